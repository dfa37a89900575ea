// The operation record: each documented operation is defined once here-shaped (input Schema → run →
// output Schema) and served by every door. A record names its REST route and MCP tool but knows
// nothing of HTTP requests: doors decode the input with `inputSchema(op)`, call `run` with a context
// they build, and wrap the output in their own envelope.
import type { Effect } from "effect"
import { ParseResult, Schema } from "effect"
import type { Scope } from "../domain/enums.js"
import type { ApiError, QuotaExceeded } from "../domain/errors.js"
import type { Principal } from "../domain/principal.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
export type Version = "v1" | "v2"
export type OperationPath = `/v1/${string}` | `/v2/${string}`

/** What a door gives `run`: who is calling, and the per-request meter. */
export interface OperationContext {
  readonly principal: Principal
  /**
   * Charges `units` more requests against the caller's per-minute limit (each `include`, each sweep
   * value). Fails with QUOTA_EXCEEDED, charging nothing, when they would pass the limit.
   */
  readonly charge: (units: number) => Effect.Effect<void, QuotaExceeded>
  /** Sets a response header (`x-trades-*`, `Idempotent-Replayed`); doors without headers ignore it. */
  readonly setHeader: (name: string, value: string) => Effect.Effect<void>
}

export interface Operation<I, O, R> {
  /** camelCase, unique: the HttpApi endpoint name and the cursor binding. */
  readonly name: string
  /** snake_case MCP tool name. */
  readonly tool: string
  /**
   * False on a REST route of an operation whose MCP tool another record is (`restOnly`: the v2 route of a
   * tool the spec maps to a v1 path): the MCP door skips it. Omitted: the record is its tool.
   */
  readonly mcp?: boolean
  readonly method: Method
  /** `/v2/bots/:id`: `:name` segments are read from the input's fields of that name. */
  readonly path: OperationPath
  readonly version: Version
  readonly scope: Scope
  readonly summary: string
  /** HTTP status of a success (200; 201 for creations). */
  readonly status: number
  /**
   * One Schema for every door. Its fields are split by the HTTP door: path segments by name, the
   * rest from the query string (GET, DELETE) or the JSON body (POST, PUT, PATCH). Query values
   * arrive as strings, so numeric and boolean fields use the dual-form schemas of `params.ts`.
   * Unknown fields are rejected by `inputSchema`.
   */
  readonly input: Schema.Schema<I, any>
  /** The `data` of the envelope; for a listing, the whole `Page` (`{ data, nextCursor }`). */
  readonly output: Schema.Schema<O, any>
  /** v2 listing envelope `{ data, nextCursor }` instead of `{ data }`. */
  readonly listing: boolean
  /**
   * Input fields that travel as request headers over HTTP: lower-case header name → input field
   * (`{ "idempotency-key": "idempotencyKey" }`). The HTTP door decodes the header with that field's
   * Schema and copies it into the input (the field is then not accepted in the body or query); other
   * doors pass the field like any other argument.
   */
  readonly headers?: Readonly<Record<string, string>>
  readonly run: (input: I, ctx: OperationContext) => Effect.Effect<O, ApiError, R>
}

/** Any operation, for registries and doors. */
export type AnyOperation = Operation<any, any, any>

/** The services the operations of a registry need, for the doors' layer types. */
export type OperationsContext<Ops extends ReadonlyArray<AnyOperation>> = Ops[number] extends infer Op
  ? Op extends Operation<any, any, infer R> ? R : never
  : never

interface Definition<I, IE, O, R> {
  readonly name: string
  readonly tool: string
  readonly mcp?: boolean
  readonly method: Method
  readonly path: OperationPath
  readonly scope: Scope
  readonly summary?: string
  readonly status?: number
  readonly input: Schema.Schema<I, IE>
  readonly headers?: Readonly<Record<string, string>>
  readonly run: (input: I, ctx: OperationContext) => Effect.Effect<O, ApiError, R>
}

const versionOf = (path: OperationPath): Version => (path.startsWith("/v1/") ? "v1" : "v2")

/** A non-listing operation: the output is the envelope's `data`. */
export const operation = <I, IE, O, OE, R>(
  def: Definition<I, IE, O, R> & { readonly output: Schema.Schema<O, OE> },
): Operation<I, O, R> => ({
  ...def,
  summary: def.summary ?? def.name,
  status: def.status ?? 200,
  version: versionOf(def.path),
  listing: false,
})

/** A page of a listing; `nextCursor` is null on the last page. */
export const Page = <Row, RowE>(row: Schema.Schema<Row, RowE>) =>
  Schema.Struct({ data: Schema.Array(row), nextCursor: Schema.NullOr(Schema.String) })
export interface Page<Row> {
  readonly data: ReadonlyArray<Row>
  readonly nextCursor: string | null
}

/** A listing: `run` returns a `Page` (build it with `paginate` from `paging.ts`). */
export const listing = <I, IE, Row, RowE, R>(
  def: Definition<I, IE, Page<Row>, R> & { readonly row: Schema.Schema<Row, RowE> },
): Operation<I, Page<Row>, R> => {
  const { row, ...rest } = def
  return {
    ...rest,
    summary: def.summary ?? def.name,
    status: def.status ?? 200,
    output: Page(row),
    version: versionOf(def.path),
    listing: true,
  }
}

/**
 * The same operation at a second REST path (the spec's v1 path of a tool served by a v2 route): the same
 * input, handler and output, its own endpoint name and the envelope of the path's version. The spec's MCP
 * table maps the tool to this path, so this record is the tool (its result is this route's body); list
 * the original with `restOnly`. Cursors are bound to the listing, not the path, so they page on either route.
 */
export const alsoAt = <I, O, R>(op: Operation<I, O, R>, alias: { readonly name: string; readonly path: OperationPath }): Operation<I, O, R> => ({
  ...op,
  name: alias.name,
  path: alias.path,
  version: versionOf(alias.path),
  summary: `${op.summary} (also at ${op.path})`,
})

/** A REST route whose MCP tool another record is (its v1 path: `alsoAt`). */
export const restOnly = <Op extends AnyOperation>(op: Op): Op => ({ ...op, mcp: false })

/**
 * A Struct of `fields` that rejects unknown keys. An empty Struct decodes as "any non-null value"
 * (no key is checked at all), so an empty one refuses every key by a filter instead.
 */
export const closedStruct = (fields: Schema.Struct.Fields): Schema.Schema.Any =>
  Object.keys(fields).length > 0
    ? Schema.Struct(fields)
    : Schema.Struct({}).pipe(Schema.filter((o) => {
      const key = Object.keys(o)[0]
      return key === undefined ? true : new ParseResult.Pointer(key, o, new ParseResult.Unexpected(o[key as keyof typeof o], "is unexpected"))
    }))

const isEmptyStruct = (schema: Schema.Schema.Any): boolean =>
  "fields" in schema && typeof schema.fields === "object" && schema.fields !== null && Object.keys(schema.fields).length === 0

/** The input Schema as every door must decode it: unknown fields (nested too, and on an input without fields) are errors. */
export const inputSchema = <I, IE, R>(schema: Schema.Schema<I, IE, R>): Schema.Schema<I, IE, R> =>
  (isEmptyStruct(schema) ? (closedStruct({}) as unknown as Schema.Schema<I, IE, R>) : schema)
    .annotations({ parseOptions: { onExcessProperty: "error" } })

/** `:name` segments of a route, in order. */
export const pathParams = (path: string): ReadonlyArray<string> =>
  path.split("/").filter((s) => s.startsWith(":")).map((s) => s.slice(1).replace(/\?$/, ""))
