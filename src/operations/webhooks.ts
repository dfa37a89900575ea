// Webhook endpoints (spec: v1 operations, Events → Webhook deliveries, Limits): register, list and remove
// an account's endpoints. Sends nothing: deliveries belong to webhooks/deliverer.ts, which resolves the
// host again at send time (DNS can change after registration) and does not follow redirects.
//
// Decisions where the spec is silent:
// - Event types: `WEBHOOK_EVENT_TYPES` in domain/webhook.ts (trade.whale, trade.followed, copy.executed,
//   move.detected, bot.trade, paper.order.filled, paper.position.settled). An unknown one is VALIDATION
//   naming it. `events` is stored and echoed as sent (duplicates dropped); `[]` means every type.
// - POST answers 201 `{ success: true, data: { id, url, events, secret } }`; the secret is shown only here.
// - GET /v1/webhooks (read) answers `{ success: true, data: [{ id, url, events, createdAt }] }`, oldest
//   first, never with secrets. At most 5 rows exist, so it is not paged.
// - DELETE /v1/webhooks/{id} (write) answers 200 `{ success: true, data: { id, deleted: true } }`; an
//   unknown id and another account's id are the same NOT_FOUND.
// - The URL must be https without userinfo (the Schema) and every address it names must be public: an IP
//   literal is checked as is, a host name through `HostResolver` (all addresses; one non-public address,
//   or none at all, refuses it).
import { lookup as dnsLookup } from "node:dns/promises"
import { isIPv4, isIPv6 } from "node:net"
import { Context, Effect, Option, Schema } from "effect"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_WEBHOOK_ENDPOINTS, STRICT, UtcTime } from "../domain/limits.js"
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, WebhookCreateRequest, WebhookEndpoint } from "../domain/webhook.js"
import { Webhooks } from "../store/webhooks.js"
import { webhookSink } from "../webhooks/sink.js"
import { operation } from "./operation.js"

// Addresses -------------------------------------------------------------------------------------

type Block = readonly [a: number, b: number, c: number, d: number, prefix: number]

/** IPv4 ranges that are not publicly routable (RFC 6890 and successors). */
const NON_PUBLIC_V4: ReadonlyArray<Block> = [
  [0, 0, 0, 0, 8], // "this network", unspecified
  [10, 0, 0, 0, 8], // private
  [100, 64, 0, 0, 10], // carrier-grade NAT
  [127, 0, 0, 0, 8], // loopback
  [169, 254, 0, 0, 16], // link-local
  [172, 16, 0, 0, 12], // private
  [192, 0, 0, 0, 24], // IETF protocol assignments
  [192, 0, 2, 0, 24], // documentation
  [192, 88, 99, 0, 24], // 6to4 relay anycast
  [192, 168, 0, 0, 16], // private
  [198, 18, 0, 0, 15], // benchmarking
  [198, 51, 100, 0, 24], // documentation
  [203, 0, 113, 0, 24], // documentation
  [224, 0, 0, 0, 4], // multicast
  [240, 0, 0, 0, 4], // reserved, broadcast
]

const v4Number = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0

const isPublicV4 = (a: number, b: number, c: number, d: number): boolean => {
  const n = v4Number(a, b, c, d)
  return !NON_PUBLIC_V4.some(([ba, bb, bc, bd, prefix]) => {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0
    return ((n & mask) >>> 0) === ((v4Number(ba, bb, bc, bd) & mask) >>> 0)
  })
}

const v4Octets = (s: string): readonly [number, number, number, number] => {
  const [a = 0, b = 0, c = 0, d = 0] = s.split(".").map(Number)
  return [a, b, c, d]
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad allowed). */
const v6Groups = (s: string): ReadonlyArray<number> => {
  let text = s
  if (text.includes(".")) {
    const at = text.lastIndexOf(":")
    const [a, b, c, d] = v4Octets(text.slice(at + 1))
    text = `${text.slice(0, at + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [left = "", right] = text.split("::")
  const head = left === "" ? [] : left.split(":")
  const tail = right === undefined || right === "" ? [] : right.split(":")
  const middle = right === undefined ? [] : Array.from({ length: 8 - head.length - tail.length }, () => "0")
  return [...head, ...middle, ...tail].map((g) => parseInt(g, 16))
}

const embeddedV4 = (hi: number, lo: number) => isPublicV4(hi >> 8, hi & 0xff, lo >> 8, lo & 0xff)

const isPublicV6 = (g: ReadonlyArray<number>): boolean => {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g
  // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses reach the IPv4 address inside.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return embeddedV4(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embeddedV4(g6, g7)
  // Only global unicast (2000::/3) is public; this refuses ::, ::1, fc00::/7, fe80::/10, ff00::/8 and the rest.
  if ((g0 & 0xe000) !== 0x2000) return false
  if (g0 === 0x2001 && g1 < 0x200) return false // IETF protocol assignments (Teredo among them)
  if (g0 === 0x2001 && g1 === 0xdb8) return false // documentation
  if (g0 === 0x3fff && g1 < 0x1000) return false // documentation
  if (g0 === 0x2002) return embeddedV4(g1, g2) // 6to4 reaches the IPv4 address inside
  return true
}

/** True for an IPv4 or IPv6 address on the public internet; false for every other range and non-address. */
export const isPublicAddress = (address: string): boolean => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (isIPv4(bare)) return isPublicV4(...v4Octets(bare))
  // A zone id (`%eth0`) only exists on scoped, non-public addresses.
  if (isIPv6(bare) && !bare.includes("%")) return isPublicV6(v6Groups(bare))
  return false
}

// Name resolution -------------------------------------------------------------------------------

export interface HostResolverService {
  /** Every address `hostname` resolves to; empty when it does not resolve. */
  readonly lookup: (hostname: string) => Effect.Effect<ReadonlyArray<string>>
}

/**
 * Resolves webhook host names. The default asks the system resolver (node:dns, every address, 5 s at
 * most); tests provide their own with `Layer.succeed(HostResolver, ...)`.
 */
export class HostResolver extends Context.Reference<HostResolver>()("whalewatch/HostResolver", {
  defaultValue: (): HostResolverService => ({
    lookup: (hostname) =>
      Effect.tryPromise(() => dnsLookup(hostname, { all: true, verbatim: true })).pipe(
        Effect.map((found): ReadonlyArray<string> => found.map((entry) => entry.address)),
        Effect.timeout("5 seconds"),
        Effect.orElseSucceed((): ReadonlyArray<string> => []),
      ),
  }),
}) {}

/** Refuses a URL naming a non-public address, directly or through its host name. */
const checkPublic = Effect.fn("Webhooks.checkPublic")(function* (url: string) {
  const parsed = yield* Effect.try({
    try: () => new URL(url),
    catch: () => new Validation({ error: "url must be a public https URL" }),
  })
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
  if (isIPv4(host) || isIPv6(host)) {
    if (!isPublicAddress(host)) return yield* new Validation({ error: `url must be a public https URL; ${host} is not a public address` })
    return
  }
  const resolver = yield* HostResolver
  const addresses = yield* resolver.lookup(host)
  if (addresses.length === 0) return yield* new Validation({ error: "url must resolve to a public address" })
  const refused = addresses.find((address) => !isPublicAddress(address))
  if (refused !== undefined) {
    return yield* new Validation({ error: `url must resolve to a public address; ${host} resolves to ${refused}` })
  }
})

/** The requested types without repeats, in the order sent; an unknown type is VALIDATION naming it. */
const checkEvents = (events: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, Validation> => {
  const unknown = events.find((event) => !isWebhookEventType(event))
  return unknown === undefined
    ? Effect.succeed([...new Set(events)])
    : Effect.fail(new Validation({ error: `events: unknown event type \`${unknown}\`; known types are ${WEBHOOK_EVENT_TYPES.join(", ")}` }))
}

// Operations ------------------------------------------------------------------------------------

/** An endpoint as GET /v1/webhooks lists it: never with its secret. */
export const WebhookListed = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  createdAt: UtcTime,
}).annotations({ identifier: "WebhookListed" })
export type WebhookListed = typeof WebhookListed.Type

export const WebhookDeleted = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) })
  .annotations({ identifier: "WebhookDeleted" })

/** Tells this node's webhooks layer (when it runs) to look up who wants what again, now. */
const endpointsChanged = Effect.map(webhookSink, (sink) => {
  if (Option.isSome(sink)) sink.value.endpointsChanged?.()
})

export const createWebhook = operation({
  name: "createWebhook", tool: "create_webhook", method: "POST", path: "/v1/webhooks", scope: "write", status: 201,
  summary: "Register a webhook endpoint (the secret is shown only in this response)",
  input: WebhookCreateRequest, output: WebhookEndpoint,
  run: Effect.fn("Webhooks.create")(function* (request, ctx) {
    const events = yield* checkEvents(request.events ?? [])
    yield* checkPublic(request.url)
    const created = yield* Webhooks.create({
      accountId: ctx.principal.accountId, url: request.url, events, max: MAX_WEBHOOK_ENDPOINTS,
    })
    if (Option.isNone(created)) {
      return yield* new Validation({ error: `at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per account` })
    }
    yield* endpointsChanged
    const { id, url, secret } = created.value
    return { id, url, events: created.value.events, secret }
  }),
})

export const listWebhooks = operation({
  name: "listWebhooks", tool: "list_webhooks", method: "GET", path: "/v1/webhooks", scope: "read",
  summary: "List the account's webhook endpoints (without secrets)",
  input: Schema.Struct({}).annotations(STRICT), output: Schema.Array(WebhookListed),
  run: (_input, ctx) => Webhooks.list(ctx.principal.accountId),
})

export const deleteWebhook = operation({
  name: "deleteWebhook", tool: "delete_webhook", method: "DELETE", path: "/v1/webhooks/:id", scope: "write",
  summary: "Remove a webhook endpoint and its pending deliveries",
  input: Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(100)) }).annotations(STRICT), output: WebhookDeleted,
  run: Effect.fn("Webhooks.delete")(function* (input, ctx) {
    if (!(yield* Webhooks.remove(ctx.principal.accountId, input.id))) {
      return yield* new NotFound({ error: `No webhook endpoint has id ${quoted(input.id)}` })
    }
    yield* endpointsChanged
    return { id: input.id, deleted: true as const }
  }),
})
