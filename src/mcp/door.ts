// The MCP door: `{base_url}/mcp`, a remote Model Context Protocol server (Streamable HTTP, stateless,
// JSON responses) whose tools are the operation records of src/operations, each called through the
// same input Schema and the same `run` as its REST route. It sits on the HTTP door's server as an
// HttpApi-level middleware, like the SSE door, so the envelope middleware around it refuses keys in
// the URL and puts the rate headers on every answer.
//
// - Authentication happens before the protocol: every HTTP request to /mcp needs the key in the
//   Authorization header and counts one request against the key's per-minute limit. A missing or
//   unknown key is 401, a spent limit 429 (with retry-after), an account with no active subscription
//   403, each with the error envelope; the MCP client's connect() then fails with that status.
// - tools/list lists only the tools the key's scopes allow (a read key does not see the write tools);
//   a call of one it does not allow answers SCOPE_REQUIRED, as the route would.
// - A tool's arguments are its operation's input fields as JSON (path segments and the header fields,
//   e.g. `idempotencyKey`, included); unknown fields are VALIDATION naming the field.
// - A result carries the same JSON body as the REST route (`{ data }`, `{ data, nextCursor }`, v1
//   `{ success, data }`), as text and as structuredContent. A failure is a normal tool result with
//   isError and the error envelope `{ success: false, error, code }`. The response headers the call set
//   (a replay's `idempotent-replayed`, `x-trades-*`, `x-cache`) are on the HTTP answer and, the call's own,
//   in the result's `_meta["whalewatch/headers"]`, so each call of a batch tells its own.
// - Stateless: a new protocol server per HTTP request, no session ids; GET and DELETE (a standalone
//   event stream, a session's end) answer 405, which MCP clients read as "no stream offered".
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse, type HttpApp, type HttpRouter } from "@effect/platform"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, JSONSchema, Layer, Option, ParseResult, Runtime, Schema } from "effect"
import { type ApiError, Internal, isApiError, NotFound, ScopeRequired, toEnvelope, Validation, quoted } from "../domain/errors.js"
import type { Principal } from "../domain/principal.js"
import { authenticate, scopeSentence } from "../http/auth.js"
import { inputTextProblem } from "../http/input-text.js"
import { classify, decodeSentence, errorResponse, isMcpRequest, MCP_PATH, successSchema, wrapSuccess } from "../http/envelope.js"
import { currentMeter, operationContext, refuseInput } from "../http/meter.js"
import { type AnyOperation, inputSchema, type OperationContext, type OperationsContext } from "../operations/operation.js"
import { Counters } from "../store/counters.js"
import { Keys } from "../store/keys.js"

export { MCP_PATH }
const SERVER_INFO = { name: "whalewatch", version: "0.1.0" } as const

type JsonObject = { readonly [key: string]: unknown }

/**
 * The JSON Schema of a tool's arguments: the operation's input Schema as `JSONSchema.make` writes it,
 * with a top-level `$ref` resolved (MCP wants `type: "object"` at the top) and an input that takes no
 * fields written as an empty object.
 */
export const argumentsSchema = (op: AnyOperation): Tool["inputSchema"] => {
  const { $schema: _draft, ...made } = JSONSchema.make(op.input) as unknown as JsonObject
  const ref = typeof made["$ref"] === "string" ? made["$ref"].replace(/^#\/\$defs\//, "") : null
  const defs = made["$defs"] as Record<string, JsonObject> | undefined
  const top: JsonObject = ref !== null && defs?.[ref] !== undefined ? { ...defs[ref], $defs: defs } : made
  if (top["type"] !== "object") return { type: "object", properties: {}, additionalProperties: false }
  return top as Tool["inputSchema"]
}

export const toolOf = (op: AnyOperation): Tool => ({
  name: op.tool,
  description: `${op.summary} (${op.method} ${op.path.replace(/:(\w+)/g, "{$1}")})`,
  inputSchema: argumentsSchema(op),
  // A read-scope operation changes nothing, whatever its method (backtests and queries are POSTs).
  annotations: { readOnlyHint: op.scope === "read", destructiveHint: op.method === "DELETE", openWorldHint: false },
})

/**
 * Where a result carries the response headers its call set (`_meta["whalewatch/headers"]`, names in lower
 * case): the HTTP answer has them too, but a JSON-RPC batch has one HTTP answer for all its calls.
 */
export const HEADERS_META = "whalewatch/headers"

type CallHeaders = Record<string, string>

const withHeaders = (result: CallToolResult, headers: CallHeaders): CallToolResult =>
  Object.keys(headers).length === 0 ? result : { ...result, _meta: { [HEADERS_META]: headers } }

const failed = (e: ApiError, headers: CallHeaders = {}): CallToolResult => {
  const envelope = toEnvelope(e)
  return withHeaders({ isError: true, content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope }, headers)
}

const succeeded = (body: unknown, headers: CallHeaders): CallToolResult => withHeaders({
  content: [{ type: "text", text: JSON.stringify(body) }],
  ...(typeof body === "object" && body !== null && !Array.isArray(body) ? { structuredContent: body as Record<string, unknown> } : {}),
}, headers)

/** The decoded arguments, or VALIDATION with a sentence naming the field (as the HTTP door writes it). */
const decodeArguments = (op: AnyOperation, args: unknown): Effect.Effect<unknown, Validation> =>
  Schema.decodeUnknown(inputSchema(op.input as Schema.Schema<unknown, unknown>))(args ?? {}).pipe(
    Effect.mapError((e) =>
      new Validation({ error: decodeSentence(ParseResult.ArrayFormatter.formatErrorSync(e), queryOf(op, args)) })),
  )

/** A GET or DELETE route takes its arguments in the query: an unknown one is named as REST names it. */
const queryOf = (op: AnyOperation, args: unknown): URLSearchParams => {
  const query = new URLSearchParams()
  if ((op.method === "GET" || op.method === "DELETE") && typeof args === "object" && args !== null) {
    for (const name of Object.keys(args)) query.set(name, "")
  }
  return query
}

/**
 * One tool call: the operation's own Schema and `run`, the REST route's body, or its error envelope. Text no store
 * can hold and `__proto__` keys were refused on the raw body before the SDK (`refusedCall`, `jsonRpcProblem`).
 */
export const callTool = (
  op: AnyOperation | undefined,
  name: string,
  args: unknown,
  principal: Principal,
  ctx: OperationContext,
): Effect.Effect<CallToolResult, never, any> => {
  if (op === undefined) return Effect.succeed(failed(new NotFound({ error: `No tool named ${quoted(name)}` })))
  if (!principal.scopes.includes(op.scope)) {
    return Effect.succeed(failed(new ScopeRequired({ error: scopeSentence(op.scope) })))
  }
  const encode = Schema.encode(successSchema(op) as Schema.Schema<unknown, unknown>)
  // This call's own headers, for its result; the HTTP answer gets them as well (all calls' of a batch).
  const headers: CallHeaders = {}
  const callCtx: OperationContext = {
    ...ctx,
    setHeader: (name, value) => Effect.zipRight(Effect.sync(() => { headers[name.toLowerCase()] = value }), ctx.setHeader(name, value)),
  }
  return decodeArguments(op, args).pipe(
    Effect.flatMap((input) => op.run(input, callCtx)),
    Effect.flatMap((output) => Effect.orDie(encode(wrapSuccess(op, output)))),
    Effect.map((body) => succeeded(body, headers)),
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some" && isApiError(failure.value)) return Effect.succeed(failed(failure.value, headers))
      return Effect.as(Effect.logError(`MCP tool ${name} failed`, cause), failed(new Internal({ error: "Internal error" })))
    }),
  )
}

const methodNotAllowed = HttpServerResponse.unsafeJson(
  { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; POST JSON-RPC messages" }, id: null },
  { status: 405, headers: { allow: "POST" } },
)

const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id: id ?? null, error: { code, message } })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The body's JSON, or undefined when it is not JSON (the SDK answers the parse error). */
const parsedBody = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * Tool calls in a body beyond its first: each is one more request of the key's per-minute limit, as the
 * same call over REST is (the HTTP request itself counted one).
 */
const extraToolCalls = (message: unknown): number => {
  if (!Array.isArray(message)) return 0
  const calls = message.filter((m) => isObject(m) && m["method"] === "tools/call").length
  return calls > 1 ? calls - 1 : 0
}

/** The invalid-params error of a malformed `tools/call` (no tool name, arguments not an object), else undefined. */
const callProblem = (message: unknown): object | undefined => {
  if (!isObject(message) || message["method"] !== "tools/call") return undefined
  const id = message["id"]
  const params = message["params"]
  if (!isObject(params)) return rpcError(id, -32602, "Invalid params: `params` must be an object with the tool's `name` and `arguments`")
  if (typeof params["name"] !== "string") return rpcError(id, -32602, "Invalid params: `params.name` must be the tool's name")
  if (params["arguments"] !== undefined && !isObject(params["arguments"])) {
    return rpcError(id, -32602, "Invalid params: `params.arguments` must be an object of the tool's arguments")
  }
  return undefined
}

/**
 * What no tool may be given, checked on the arguments as they arrived (the SDK's copy drops a `__proto__`
 * key, and recurses into any depth): input-text.ts's sentence naming the argument, or undefined.
 */
const argumentsProblem = (message: unknown): string | undefined => {
  if (!isObject(message) || message["method"] !== "tools/call" || !isObject(message["params"])) return undefined
  return inputTextProblem(message["params"]["arguments"], "The arguments")
}

/** A tool call refused for its arguments, answered as the tool's failed result (what the SDK would send). */
const refusedCall = (message: unknown): object | undefined => {
  if (!isObject(message) || message["id"] === undefined) return undefined
  const problem = argumentsProblem(message)
  return problem === undefined ? undefined : { jsonrpc: "2.0", id: message["id"], result: failed(new Validation({ error: problem })) }
}

/**
 * The JSON-RPC answer of a body the SDK would not answer as JSON-RPC says (an internal error with a schema
 * dump, or nothing); undefined for the SDK to handle. A batch holding a malformed call is refused whole,
 * nothing in it run: each malformed call gets its invalid-params error, every other request of it an
 * invalid-request error saying why it was not run (notifications get nothing, as ever).
 */
const jsonRpcProblem = (message: unknown): object | undefined => {
  if (message === undefined) return undefined // not JSON: the SDK answers a parse error
  if (!Array.isArray(message)) return callProblem(message)
  if (message.length === 0) return rpcError(null, -32600, "Invalid Request: an empty batch")
  const problems = message.map((m) => {
    const problem = callProblem(m)
    if (problem !== undefined) return problem
    const args = argumentsProblem(m)
    return args === undefined ? undefined : rpcError(isObject(m) ? m["id"] : null, -32602, `Invalid params: ${args}`)
  })
  if (problems.every((p) => p === undefined)) return undefined
  return message.flatMap((m, i) => {
    const problem = problems[i]
    if (problem !== undefined) return [problem]
    const id = isObject(m) ? m["id"] : undefined
    return id === undefined ? [] : [rpcError(id, -32600, "Invalid Request: not run, another call of the batch is malformed")]
  })
}

/**
 * The middleware: /mcp here, everything else to the HttpApi. The operations' services come from the
 * runtime it was built in; the tool handlers run there.
 */
export const mcpMiddleware = <Ops extends ReadonlyArray<AnyOperation>>(operations: Ops) =>
  Effect.gen(function* () {
    const keys = yield* Keys
    const counters = yield* Counters
    const runtime = yield* Effect.runtime<OperationsContext<Ops>>()
    // A record with `mcp: false` is a second REST route of a tool another record is.
    const served = operations.filter((op) => op.mcp !== false)
    const byTool = new Map(served.map((op) => [op.tool, op] as const))
    if (byTool.size !== served.length) throw new Error("Two operations share an MCP tool name")
    const tools = served.map((op) => ({ op, tool: toolOf(op) }))
    const run = Runtime.runPromise(runtime as Runtime.Runtime<unknown>)

    const serverFor = (principal: Principal, ctx: OperationContext): Server => {
      const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: tools.filter(({ op }) => principal.scopes.includes(op.scope)).map(({ tool }) => tool),
      }))
      server.setRequestHandler(CallToolRequestSchema, (request) =>
        run(callTool(byTool.get(request.params.name), request.params.name, request.params.arguments, principal, ctx)))
      return server
    }

    const serve = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const principal = yield* authenticate(keys, counters)
      const meter = yield* currentMeter
      yield* refuseInput(meter) // text no store can hold in the URL, found before the key was checked
      if (request.method !== "POST") return methodNotAllowed
      const ctx = operationContext(meter, principal, counters)
      // The body is read here (the SDK gets it back as a web Request) so a call the SDK would answer with an
      // internal error and a schema dump (arguments not an object, no tool name) or with nothing (an empty
      // batch) gets JSON-RPC's own invalid request or params error instead.
      const text = yield* request.text
      const message = parsedBody(text)
      const refused = jsonRpcProblem(message)
      if (refused !== undefined) return HttpServerResponse.unsafeJson(refused, { status: 400 })
      const refusedArguments = refusedCall(message)
      if (refusedArguments !== undefined) return HttpServerResponse.unsafeJson(refusedArguments)
      // A batch of tool calls is charged call by call before any runs (all refused, and refunded, past the limit).
      yield* ctx.charge(extraToolCalls(message))
      const url = HttpServerRequest.toURL(request)
      if (Option.isNone(url)) return yield* new Validation({ error: "The request URL is not valid" })
      const web = new Request(url.value, { method: request.method, headers: request.headers as Record<string, string>, body: text })
      const server = serverFor(principal, ctx)
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
      yield* Effect.promise(() => server.connect(transport))
      const response = yield* Effect.promise(() => transport.handleRequest(web)).pipe(
        Effect.ensuring(Effect.promise(() => server.close())),
      )
      return HttpServerResponse.fromWeb(response)
    })

    return (app: HttpApp.Default): HttpApp.Default<never, HttpRouter.HttpRouter.Provided> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (!isMcpRequest(request)) return app
        return serve.pipe(
          Effect.catchAllCause((cause) => {
            if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
            const { error, defect } = classify(cause, request)
            const logged = defect ? Effect.logError(`${request.method} ${MCP_PATH} failed`, cause) : Effect.void
            return Effect.as(logged, errorResponse(error))
          }),
        )
      })
  })

/** The door as a layer for `makeHttpServer(ops, listen, doors)`. */
export const makeMcpDoor = <Ops extends ReadonlyArray<AnyOperation>>(
  operations: Ops,
): Layer.Layer<never, never, Keys | Counters | OperationsContext<Ops>> =>
  HttpApiBuilder.middleware(mcpMiddleware(operations))
