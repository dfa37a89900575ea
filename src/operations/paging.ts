// Listing pages: `limit` and `cursor` inputs, and keyset pagination with opaque, tamper-proof cursors.
// A cursor is `base64url(JSON payload) "." base64url(HMAC-SHA256(payload))`, the payload naming the
// listing, a hash of its filters and the account, plus the last row's key. So a cursor used on another
// listing, with other filters, by another account, or edited by hand is VALIDATION
// "cursor is not valid for this listing". The secret comes from `CursorKey` (main wires it from the
// stored Settings). Pure bookkeeping: the listing's own query lives in its `fetch`.
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Validation } from "../domain/errors.js"
import type { OperationContext, Page } from "./operation.js"
import { IntParam } from "./params.js"

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 200

export const Limit = IntParam("limit", 1, MAX_LIMIT)
export const Cursor = Schema.String.pipe(Schema.maxLength(2000)).annotations({
  message: () => ({ message: "cursor is not valid for this listing", override: true }),
  description: "The nextCursor of the previous page",
})

/** Spread into a listing's input struct: `Schema.Struct({ ...PageParams, venue: ... })`. */
export const PageParams = {
  limit: Schema.optionalWith(Limit, { default: () => DEFAULT_LIMIT }),
  cursor: Schema.optional(Cursor),
}

/** The HMAC secret of cursors. */
export class CursorKey extends Context.Tag("whalewatch/CursorKey")<CursorKey, { readonly secret: Uint8Array }>() {
  static readonly layer = (secret: string | Uint8Array): Layer.Layer<CursorKey> =>
    Layer.succeed(CursorKey, { secret: typeof secret === "string" ? Buffer.from(secret, "utf8") : secret })
}

const invalid = () => new Validation({ error: "cursor is not valid for this listing" })

/**
 * Canonical JSON (sorted keys), so equal filters hash equally whatever their key order. With `sets`, an
 * array is a set (a repeatable filter's values are OR-ed): sorted and without repeats, so
 * `venue=a&venue=b`, `venue=b&venue=a` and `venue=a&venue=b&venue=a` bind the same cursor.
 */
const canonical = (u: unknown, sets: boolean): string => {
  if (u === undefined) return "null"
  if (typeof u === "bigint") return JSON.stringify(u.toString())
  if (u instanceof Date) return JSON.stringify(u.toISOString())
  if (Array.isArray(u)) {
    const items = u.map((v) => canonical(v, sets))
    return `[${(sets ? [...new Set(items)].sort() : items).join(",")}]`
  }
  if (typeof u === "object" && u !== null) {
    const entries = Object.entries(u).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, sets)}`).join(",")}}`
  }
  return JSON.stringify(u)
}

const bindingOf = (listing: string, accountId: string, input: object): string => {
  const { limit: _limit, cursor: _cursor, ...filters } = input as Record<string, unknown>
  return createHash("sha256").update(`${canonical([listing, accountId], false)}${canonical(filters, true)}`).digest("base64url").slice(0, 22)
}

const sign = (secret: Uint8Array, body: string) => createHmac("sha256", secret).update(body).digest()

const CursorPayload = Schema.parseJson(Schema.Struct({ b: Schema.String, k: Schema.Unknown }))

export const encodeCursor = (secret: Uint8Array, binding: string, key: unknown): string => {
  const body = Buffer.from(JSON.stringify({ b: binding, k: key }), "utf8").toString("base64url")
  return `${body}.${sign(secret, body).toString("base64url")}`
}

/** The key inside a cursor, when its signature and binding check; else VALIDATION. */
export const decodeCursor = (secret: Uint8Array, binding: string, cursor: string): Effect.Effect<unknown, Validation> => {
  const [body, mac, ...rest] = cursor.split(".")
  if (body === undefined || mac === undefined || rest.length > 0) return Effect.fail(invalid())
  const expected = sign(secret, body)
  const given = Buffer.from(mac, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Effect.fail(invalid())
  return Schema.decodeUnknown(CursorPayload)(Buffer.from(body, "base64url").toString("utf8")).pipe(
    Effect.mapError(invalid),
    Effect.filterOrFail((p) => p.b === binding, invalid),
    Effect.map((p) => p.k),
  )
}

/** What `paginate` reads a page with. */
export interface PageOptions<Row, K, KE, E, R> {
  /** The operation name: a cursor is valid only for the listing that produced it. */
  readonly listing: string
  /** The decoded input; every field but `limit` and `cursor` is a filter the cursor is bound to. */
  readonly input: { readonly limit: number; readonly cursor?: string | undefined }
  readonly ctx: OperationContext
  readonly key: Schema.Schema<K, KE>
  readonly keyOf: (row: Row) => K
  readonly fetch: (after: Option.Option<K>, take: number) => Effect.Effect<ReadonlyArray<Row>, E, R>
}

/**
 * Keyset pagination. `fetch(after, take)` returns up to `take` rows strictly after `after` (none: from
 * the start) in the listing's order; `keyOf` gives the key a row is ordered by (unique, e.g.
 * `[ts, id]`), `key` its JSON Schema. One extra row is fetched to know whether a next page exists.
 */
export const paginate: <Row, K, KE, E, R>(options: PageOptions<Row, K, KE, E, R>) => Effect.Effect<Page<Row>, E | Validation, R | CursorKey> =
  Effect.fnUntraced(function* <Row, K, KE, E, R>(options: PageOptions<Row, K, KE, E, R>) {
    const { secret } = yield* CursorKey
    const { input } = options
    const binding = bindingOf(options.listing, options.ctx.principal.accountId, input)
    const after = input.cursor === undefined
      ? Option.none<K>()
      : Option.some(
        yield* decodeCursor(secret, binding, input.cursor).pipe(
          Effect.flatMap((k) => Schema.decodeUnknown(options.key)(k).pipe(Effect.mapError(invalid))),
        ),
      )
    const rows = yield* options.fetch(after, input.limit + 1)
    const data = rows.slice(0, input.limit)
    const last = data[data.length - 1]
    if (rows.length <= input.limit || last === undefined) return { data, nextCursor: null }
    const key = yield* Schema.encode(options.key)(options.keyOf(last)).pipe(Effect.orDie)
    return { data, nextCursor: encodeCursor(secret, binding, key) }
  })
