// The HttpApi built from the operation records: one endpoint per record (same Schemas), one line of
// handler each, plus GET /healthz. No operation logic lives here; see operation.ts for how an input
// Schema is split into path, query, body and (`Operation.headers`) request headers.
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer, ParseResult, Schema, SchemaAST } from "effect"
import { type AnyOperation, closedStruct, inputSchema, type OperationsContext, pathParams } from "../operations/operation.js"
import { Health, HealthReport } from "../operations/health.js"
import { Counters } from "../store/counters.js"
import { CurrentPrincipal, RequireRead, RequireWrite } from "./auth.js"
import { ErrorEnvelopes, successSchema, wrapSuccess } from "./envelope.js"
import { bodyJson } from "./json.js"
import { currentMeter, operationContext } from "./meter.js"

type Fields = Schema.Struct.Fields

/** The fields of a `Schema.Struct` (with or without defaults), or undefined for other Schemas. */
const structFields = (schema: Schema.Schema.Any): Fields | undefined =>
  "fields" in schema && typeof schema.fields === "object" && schema.fields !== null ? (schema.fields as Fields) : undefined

const pick = (fields: Fields, keep: (name: string) => boolean): Fields =>
  Object.fromEntries(Object.entries(fields).filter(([name]) => keep(name)))


const hasBody = (op: AnyOperation) => op.method === "POST" || op.method === "PUT" || op.method === "PATCH"

/**
 * A body Schema that also takes a request with no body (HttpApi reads it as `null`) as `{}`, so a body whose
 * fields are all optional may be left out (POST /v1/events: "An empty body is valid") and any other names its
 * first missing field. A JSON object is decoded by `body` alone, so its errors are unchanged.
 */
const orNoBody = (body: Schema.Schema.Any): Schema.Schema.Any =>
  Schema.Union(body, Schema.transformOrFail(Schema.Null, Schema.typeSchema(body), {
    strict: false,
    decode: (_, options) => ParseResult.decodeUnknown(body)({}, options),
    encode: () => ParseResult.succeed(null),
  }))

/**
 * A header's value as the text its bytes spell in UTF-8. Node hands a header over one character per byte
 * (Latin-1), so without this an Idempotency-Key of 60 emoji would be 240 characters here and 60 over MCP,
 * and the same key sent through both doors would be two keys. Bytes that are not UTF-8 are VALIDATION.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true })
const Utf8HeaderText = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (latin1, _, ast) => {
    try {
      return ParseResult.succeed(UTF8.decode(Buffer.from(latin1, "latin1")))
    } catch {
      return ParseResult.fail(new ParseResult.Type(ast, latin1, "must be UTF-8 text"))
    }
  },
  encode: (text) => ParseResult.succeed(Buffer.from(text, "utf8").toString("latin1")),
})

/** A header field's Schema reading the header's UTF-8 text (an optional field stays optional). */
const utf8Header = (field: Schema.Schema.All | Schema.PropertySignature.All): Schema.Schema.All | Schema.PropertySignature.All => {
  if (Schema.isSchema(field)) return Schema.compose(Utf8HeaderText, field as Schema.Schema<unknown, string>)
  const from = (field as { readonly from?: unknown }).from
  return Schema.isSchema(from) ? Schema.optionalWith(Schema.compose(Utf8HeaderText, from as Schema.Schema<unknown, string>), { exact: true }) : field
}

/** The path, query, body and header Schemas of an operation's input, each but the headers rejecting unknown fields. */
export const httpInput = (op: AnyOperation): {
  readonly path: Schema.Schema.Any | undefined
  readonly urlParams: Schema.Schema.Any
  readonly payload: Schema.Schema.Any | undefined
  readonly headers: Schema.Schema.Any | undefined
} => {
  const params = pathParams(op.path)
  const fields = structFields(op.input)
  const headerFields = Object.entries(op.headers ?? {})
  if (fields === undefined && (params.length > 0 || !hasBody(op) || headerFields.length > 0)) {
    throw new Error(`${op.name}: input must be a Schema.Struct when the route has path, query or header parameters`)
  }
  const missing = [...params, ...headerFields.map(([, field]) => field)].filter((p) => fields !== undefined && !(p in fields))
  if (missing.length > 0) throw new Error(`${op.name}: path or header parameter ${missing.join(", ")} is not an input field`)
  const fromHeader = new Set(headerFields.map(([, field]) => field))
  // Other request headers are not the operation's business, so this Struct ignores them.
  const headers = fields === undefined || headerFields.length === 0
    ? undefined
    : Schema.Struct(Object.fromEntries(headerFields.flatMap(([header, field]) => {
      const schema = fields[field]
      return schema === undefined ? [] : [[header, utf8Header(schema)]]
    })))
  const rest = fields === undefined ? undefined : closedStruct(pick(fields, (n) => !params.includes(n) && !fromHeader.has(n)))
  const strict = (s: Schema.Schema.Any): Schema.Schema.Any => inputSchema(s)
  return {
    path: fields !== undefined && params.length > 0 ? strict(closedStruct(pick(fields, (n) => params.includes(n)))) : undefined,
    // Every route declares its query, an empty one for body routes, so unknown parameters are VALIDATION.
    urlParams: strict(!hasBody(op) && rest !== undefined ? rest : closedStruct({})),
    payload: hasBody(op) ? strict(orNoBody(strict(rest ?? op.input))) : undefined,
    headers,
  }
}

// HttpApi types every endpoint statically, while the registry is a runtime list of records. So the
// operations' endpoints, their group and its handlers are typed loosely below (`Loose*`), in this one
// place; what the types cannot check is checked at start: every endpoint gets exactly one handler.
type Endpoint = HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
type LooseGroup = HttpApiGroup.HttpApiGroup<"operations", Endpoint>
interface LooseHandlers {
  readonly handle: (
    name: string,
    handler: (request: {
      readonly path?: object
      readonly urlParams?: object
      readonly payload?: unknown
      readonly headers?: object
    }) => Effect.Effect<unknown, unknown, unknown>,
  ) => LooseHandlers
}

const endpointOf = (op: AnyOperation): Endpoint => {
  const input = httpInput(op)
  const base = HttpApiEndpoint.make(op.method)(op.name, op.path as HttpApiEndpoint.PathSegment)
    .setUrlParams(input.urlParams)
    .addSuccess(successSchema(op), { status: op.status })
    .annotate(OpenApi.Summary, op.summary)
  const guarded = op.scope === "read" ? base.middleware(RequireRead) : base.middleware(RequireWrite)
  const withPath = input.path === undefined ? guarded : guarded.setPath(input.path)
  const withHeaders = input.headers === undefined ? withPath : withPath.setHeaders(input.headers)
  const endpoint = input.payload === undefined ? withHeaders : withHeaders.setPayload(input.payload)
  return endpoint as unknown as Endpoint
}

const HealthWaiting = HealthReport.annotations({ identifier: "HealthWaiting", ...HttpApiSchema.annotations({ status: 503 }) })

const systemGroup = HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("healthz", "/healthz").addSuccess(HealthReport).addError(HealthWaiting),
)

/** The HttpApi of a list of operations. */
export const makeApi = (operations: ReadonlyArray<AnyOperation>) => {
  const names = new Set<string>()
  let group = HttpApiGroup.make("operations") as unknown as LooseGroup
  for (const op of operations) {
    if (names.has(op.name)) throw new Error(`Operation ${op.name} is registered twice`)
    names.add(op.name)
    group = group.add(endpointOf(op))
  }
  return HttpApi.make("whalewatch").annotate(OpenApi.Title, "whalewatch").add(systemGroup).add(group).addError(Schema.Union(...ErrorEnvelopes))
}

/** The input fields an operation takes from request headers, from the decoded headers. */
const fromHeaders = (op: AnyOperation, headers: object | undefined): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [header, field] of Object.entries(op.headers ?? {})) {
    const value = (headers as Record<string, unknown> | undefined)?.[header]
    if (value !== undefined) out[field] = value
  }
  return out
}

/**
 * Whether encoding a Schema's values only checks them: no transformation anywhere, so a value of its
 * Type is already its JSON form. Recursive Schemas and declarations count as transforming.
 */
export const encodesAsIs = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Refinement": return encodesAsIs(ast.from)
    case "TypeLiteral": return ast.propertySignatures.every((p) => encodesAsIs(p.type)) && ast.indexSignatures.every((i) => encodesAsIs(i.type))
    case "TupleType": return ast.elements.every((e) => encodesAsIs(e.type)) && ast.rest.every((r) => encodesAsIs(r.type))
    case "Union": return ast.types.every(encodesAsIs)
    case "Literal": case "StringKeyword": case "NumberKeyword": case "BooleanKeyword": case "Enums": case "TemplateLiteral":
    case "UndefinedKeyword": case "UnknownKeyword": case "AnyKeyword": case "ObjectKeyword": case "NeverKeyword":
      return true
    default: return false
  }
}

/**
 * The success response of an operation. An output whose Schema only checks (see `encodesAsIs`) is
 * written as it is: the handler's typed value is already JSON-shaped, and checking a page of 50 trade
 * rows field by field costs more than the rest of the request. The test suite (VITEST) still checks
 * every such output against its Schema, so a handler that breaks a refinement fails its route's tests.
 * Listing rows are written once per row object (json.ts).
 */
const respond = (op: AnyOperation): ((output: unknown) => Effect.Effect<unknown>) => {
  if (!encodesAsIs(op.output.ast)) return (output) => Effect.succeed(wrapSuccess(op, output))
  const check = process.env["VITEST"] === undefined ? undefined : Schema.validate(op.output as Schema.Schema<unknown>)
  return (output) => {
    // A string body is written with its headers in one write (a Uint8Array one costs an encode and a writev).
    const body = bodyJson(wrapSuccess(op, output))
    const response = HttpServerResponse.raw(body.text, { status: op.status, contentType: "application/json", contentLength: body.bytes })
    return check === undefined ? Effect.succeed(response) : Effect.as(Effect.orDie(check(output)), response)
  }
}

/**
 * An operation's route handler. Its generator is made once per route, not once per request: V8 gives every
 * generator function object its own hidden class (in old space), which kept each request's whole graph
 * alive through the next young-generation GC (bench/gc-promotion.ts). Hot paths use `Effect.fnUntraced`
 * with a module-level (or per-route) generator for the same reason.
 */
const handlerOf = (op: AnyOperation, counters: Counters["Type"]) => {
  const success = respond(op)
  return Effect.fnUntraced(function* (request: {
    readonly path?: object
    readonly urlParams?: object
    readonly payload?: unknown
    readonly headers?: object
  }) {
    const principal = yield* CurrentPrincipal
    const meter = yield* currentMeter
    const input = hasBody(op) && structFields(op.input) === undefined
      ? request.payload
      : {
        ...request.path, ...request.urlParams, ...(request.payload as object | undefined),
        ...fromHeaders(op, request.headers),
      }
    const output = yield* op.run(input, operationContext(meter, principal, counters))
    return yield* success(output)
  })
}

const looseGroup = HttpApiBuilder.group as unknown as (
  api: unknown,
  name: "operations",
  build: (handlers: LooseHandlers) => Effect.Effect<LooseHandlers, never, Counters>,
) => Layer.Layer<HttpApiGroup.ApiGroup<"whalewatch", "operations">, never, Counters>

/**
 * The handlers of the operations and of /healthz: the `HttpApi.Api` layer HttpApiBuilder.serve needs.
 * Requires the operations' own services besides Health, Counters and the auth middleware.
 */
export const makeApiLive = <Ops extends ReadonlyArray<AnyOperation>>(operations: Ops): Layer.Layer<
  HttpApi.Api,
  never,
  Health | Counters | RequireRead | RequireWrite | OperationsContext<Ops>
> => {
  const api = makeApi(operations)
  const system = HttpApiBuilder.group(api, "system", (handlers) =>
    handlers.handle("healthz", () =>
      Effect.flatMap(Health, (health) => health.report).pipe(
        Effect.map((report) => HttpServerResponse.unsafeJson(report, { status: report.status === "ok" ? 200 : 503 })),
      )))
  const ops = looseGroup(api, "operations", (handlers) =>
    Effect.map(Counters, (counters) => operations.reduce((h, op) => h.handle(op.name, handlerOf(op, counters)), handlers)))
  return HttpApiBuilder.api(api).pipe(Layer.provide([system, ops]))
}
