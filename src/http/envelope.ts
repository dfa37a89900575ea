// Every HTTP response body shape, in one place: the v2 `{ data }` / `{ data, nextCursor }` and v1
// `{ success: true, data }` success envelopes, and the error envelope `{ success: false, error, code }`
// for every failure — operation errors, auth, built-in HttpApi failures (decode errors, unknown
// routes, malformed JSON) and defects (500 INTERNAL, logged, never shown). The middleware here wraps
// the whole HttpApi app, so no failure reaches the platform's own (envelope-less) error responses.
import { HttpApiSchema, HttpServerRequest, HttpServerResponse, type HttpApp } from "@effect/platform"
import { Cause, Effect, Option, Schema } from "effect"
import {
  API_ERRORS, type ApiError, Internal, isApiError, NotFound, STATUS_OF_CODE, toEnvelope, Validation, quoted } from "../domain/errors.js"
import type { AnyOperation } from "../operations/operation.js"
import { keyInUrl } from "./auth.js"
import { inputTextProblem, urlTextProblem } from "./input-text.js"
import { meterHeaders, newMeter, RequestMeter } from "./meter.js"

// Success ---------------------------------------------------------------------------------------

/** The response body Schema of an operation's route. */
export const successSchema = (op: AnyOperation): Schema.Schema.Any => {
  if (op.version === "v2") return op.listing ? op.output : Schema.Struct({ data: op.output })
  const success = Schema.Struct({ success: Schema.Literal(true) })
  return op.listing ? Schema.extend(success, op.output) : Schema.Struct({ success: Schema.Literal(true), data: op.output })
}

/** The response body of an operation's output. */
export const wrapSuccess = (op: AnyOperation, output: unknown): unknown => {
  if (op.version === "v2") return op.listing ? output : { data: output }
  return op.listing && typeof output === "object" && output !== null
    ? { success: true, ...output }
    : { success: true, data: output }
}

// Errors ----------------------------------------------------------------------------------------

/** The error envelope of each code, for the OpenAPI document (responses are built by `errorResponse`). */
export const ErrorEnvelopes = API_ERRORS.map((cls) =>
  Schema.Struct({ success: Schema.Literal(false), error: Schema.String, code: Schema.Literal(cls._tag) }).annotations({
    identifier: `Error_${cls._tag}`,
    ...HttpApiSchema.annotations({ status: STATUS_OF_CODE[cls._tag] }),
  })
)

export const errorResponse = (e: ApiError): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = {}
  if (e._tag === "UNAUTHORIZED") headers["www-authenticate"] = "Bearer"
  if (e._tag === "QUOTA_EXCEEDED") headers["retry-after"] = String(e.retryAfter)
  return HttpServerResponse.unsafeJson(toEnvelope(e), { status: STATUS_OF_CODE[e._tag], headers })
}

interface DecodeIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const isTagged = (u: unknown, tag: string): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === tag

/** One sentence naming the field, from the first decode issue. */
export const decodeSentence = (issues: ReadonlyArray<DecodeIssue>, query: URLSearchParams): string => {
  // No body decodes as `{}` too (api.ts `orNoBody`), so its issues follow the refusal of `null`: name those.
  const noBody = issues[0]?.path.length === 0 && ACTUAL_NULL.test(issues[0].message)
  // With no body, what `{}` was refused for: a field's issue, else a check of the whole body (its filter).
  const ofEmpty = noBody ? issues.find((i) => i.path.length > 0) ?? issues.find((i) => !ACTUAL_NULL.test(i.message)) : undefined
  const first = issues.find((i) => i._tag === "Unexpected") ?? ofEmpty ?? issues[0]
  // A type mismatch whose field also failed a check written for it (a repeatable parameter fails as a list
  // and as one value): the check's sentence says more than the list form's "Expected ReadonlyArray<…>".
  const issue = first?._tag === "Type" ? issues.find((i) => i !== first && writtenFor(i, first.path)) ?? first : first
  if (issue === undefined) return "The request does not match the schema"
  const path = issue.path.map(String).join(".")
  const last = String(issue.path[issue.path.length - 1] ?? "")
  // A type mismatch at the root is the body's (the path and query are always objects); a root filter's own
  // message is kept.
  if (path === "" && issue._tag === "Type" && /^Expected .*, actual /s.test(issue.message)) return "The request body must be a JSON object"
  if (path === "") return `Invalid request: ${issue.message}`
  if (issue._tag === "Unexpected") {
    return issue.path.length === 1 && query.has(last) ? `Unknown query parameter \`${path}\`` : `Unknown field \`${path}\``
  }
  if (issue._tag === "Missing") return `\`${path}\` is required`
  // Messages written for a field (params.ts) already start with its name and read as a sentence.
  if (issue.message.startsWith(`${last} `)) return clipActual(issue.message)
  // A list item's own sentence, with which item it is (the sentence names the field, not the position).
  if (writtenFor(issue, issue.path)) return clipActual(typeof issue.path[issue.path.length - 1] === "number" ? `${issue.message} (value ${Number(last) + 1})` : issue.message)
  return `Invalid value for \`${path}\`: ${clipActual(plainExpected(expectedOfAll(issues, issue) ?? issue.message, issue.path.length === 1 && query.has(last)))}`
}

/** An issue at `path` or inside it (a list's item) whose message is a sentence about the field: it starts with the field's name. */
const writtenFor = (issue: DecodeIssue, path: ReadonlyArray<PropertyKey>): boolean => {
  if (issue._tag === "Type" || issue.path.length < path.length || !path.every((k, n) => issue.path[n] === k)) return false
  const field = [...issue.path].reverse().find((k): k is string => typeof k === "string")
  return field !== undefined && issue.message.startsWith(`${field} `)
}

/**
 * Schema's "Expected <type>, actual <value>" in plain words where the type is written as Schema's
 * internals: an object's whole field list ("{ readonly usd?: … }"), a transformation's two sides
 * ("(a string matching … <-> string)"), "(Encoded side)", or a list's type (for a repeatable query
 * parameter given one value, the value's; for a body field, "a list of …"). Other messages are kept.
 */
const plainExpected = (message: string, queryParameter: boolean): string => {
  const match = EXPECTED.exec(message)
  if (match === null) return message
  const actual = match[2] as string
  const what = plainType(match[1] as string)
  const listed = /^ReadonlyArray<(.*)>$/s.exec(what)
  const expected = listed === null ? what : queryParameter ? plainType(listed[1] as string) : `a list of ${plainType(listed[1] as string)}`
  return `Expected ${expected}, actual ${actual}`
}

/** A type as Schema writes it, in plain words: a transformation's decoded-from side, an object as "an object". */
const plainType = (type: string): string => {
  let what = type.replace(/ \(Encoded side\)$/, "")
  for (let t = /^\((.*) <-> .*\)$/s.exec(what); t !== null; t = /^\((.*) <-> .*\)$/s.exec(what)) {
    what = (t[1] as string).replace(/ \(Encoded side\)$/, "")
  }
  return /^\{ readonly /.test(what) || what === "Struct" || what === "{}" ? "an object" : what
}

/** The value a sentence quotes ("…, actual <value>"), cut to 80 characters: a 100 KB value is not echoed. */
const clipActual = (message: string): string => {
  const at = message.lastIndexOf(", actual ")
  if (at < 0) return message
  const actual = message.slice(at + 9)
  return actual.length <= 80 ? message : `${message.slice(0, at + 9)}${actual.slice(0, 80)}… (${lengthOf(actual)} characters)`
}

/**
 * The length of a quoted value: a string's own characters (code points, as limits.ts counts them), not
 * its quotation marks and escapes; any other value as written.
 */
const lengthOf = (actual: string): number => {
  try {
    const value: unknown = JSON.parse(actual)
    return typeof value === "string" ? [...value].length : actual.length
  } catch {
    return actual.length
  }
}

const EXPECTED = /^Expected (.*), actual (.*)$/s
const ACTUAL_NULL = /, actual null$/

/**
 * A union (of literals, say) fails once per member at the same path: "Expected "buy", actual "x"", then
 * "sell", then "all". One sentence names them all ("Expected "buy", "sell" or "all", actual "x""); the
 * `undefined` of an optional field and the list form of a repeatable one are left out. Null when the issue
 * is not such a mismatch.
 */
const expectedOfAll = (issues: ReadonlyArray<DecodeIssue>, issue: DecodeIssue): string | null => {
  const first = issue._tag === "Type" ? EXPECTED.exec(issue.message) : null
  if (first === null) return null
  const same = (i: DecodeIssue) => i._tag === "Type" && i.path.length === issue.path.length && i.path.every((k, n) => k === issue.path[n])
  const expected: Array<string> = []
  for (const other of issues) {
    const match = same(other) ? EXPECTED.exec(other.message) : null
    if (match === null || match[2] !== first[2]) continue
    const what = match[1] as string
    if (what !== "undefined" && !expected.includes(what)) expected.push(what)
  }
  // A repeatable parameter is a value or a list of them: its list form is not what a single bad value missed.
  const values = expected.filter((what) => !what.startsWith("ReadonlyArray<"))
  if (values.length < 2) return null
  return `Expected ${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}, actual ${first[2]}`
}

const malformedJson = (u: unknown) => isTagged(u, "RequestError") && u["reason"] === "Decode"

/** The API error a failed request answers with; `defect` is set when it must be logged. */
export const classify = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
): { readonly error: ApiError; readonly defect: boolean } => {
  const failure = Cause.failureOption(cause)
  const failed = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
  if (isApiError(failed)) return { error: failed, defect: false }
  if (isTagged(failed, "HttpApiDecodeError")) {
    const issues = Array.isArray(failed["issues"]) ? (failed["issues"] as ReadonlyArray<DecodeIssue>) : []
    const query = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "")
    return { error: new Validation({ error: decodeSentence(issues, query) }), defect: false }
  }
  if (isTagged(failed, "RouteNotFound")) {
    const path = request.url.split("?")[0] ?? request.url
    return { error: new NotFound({ error: `No route for ${request.method} ${quoted(path)}` }), defect: false }
  }
  // HttpApi reads the body with `orDie`, so malformed JSON arrives as a defect.
  if (malformedJson(failed)) return { error: new Validation({ error: "The request body is not valid JSON" }), defect: false }
  return { error: new Internal({ error: "Internal error" }), defect: true }
}

/** The path of the MCP door (src/mcp/door.ts), which reads its own body and answers in JSON-RPC. */
export const MCP_PATH = "/mcp"

export const isMcpRequest = (request: HttpServerRequest.HttpServerRequest): boolean => (request.url.split("?")[0] ?? "") === MCP_PATH

/** The Content-Type HttpApi reads as JSON (it reads any other type as bytes, a form or text). */
const JSON_TYPE = /^application\/json\s*(?:;|$)/i

/**
 * A GET or DELETE takes no body: its input is the path and query. One sent anyway (fields, or text that is
 * not JSON) would otherwise be ignored and the request carried out, so it is refused like an unknown field.
 */
const noBodyProblem = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Validation | undefined> => {
  const length = request.headers["content-length"]
  if (request.headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) return Effect.succeed(undefined)
  return request.text.pipe(
    Effect.map((text) =>
      text === "" ? undefined : new Validation({ error: `${request.method} takes no body; give the input in the path and query string` })
    ),
    Effect.orElseSucceed(() => undefined),
  )
}

/**
 * What every JSON body must be before its route's Schema reads it: sent as JSON (a form or any other
 * Content-Type is refused; none is read as JSON), with no unstorable text and no absurd nesting
 * (input-text.ts). The text read here is the request's own cached body, which the route reads again.
 */
const bodyProblem = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Validation | undefined> => {
  if (isMcpRequest(request)) return Effect.succeed(undefined)
  if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return noBodyProblem(request)
  const type = request.headers["content-type"]
  if (type !== undefined && type !== "" && !JSON_TYPE.test(type)) {
    return Effect.succeed(new Validation({ error: `Content-Type must be application/json (the body is JSON), not ${type.slice(0, 80)}` }))
  }
  return request.text.pipe(
    Effect.map((text) => {
      if (text.trim() === "") return undefined
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return undefined // the route answers malformed JSON
      }
      const problem = inputTextProblem(parsed)
      return problem === undefined ? undefined : new Validation({ error: problem })
    }),
    Effect.orElseSucceed(() => undefined), // a body that cannot be read: the route answers it
  )
}

/**
 * The Api-level middleware: refuses keys in the URL, text no store can hold in the path, query or body,
 * and bodies that are not JSON; gives the request its meter, turns every failure into the error envelope
 * and puts the meter's headers (rate limit, operation headers) on the response.
 */
export const envelopeMiddleware = (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const meter = newMeter()
    const inUrl = urlTextProblem(request.url)
    // A key in the URL is refused first, before anything reads it. Text no store can hold, or a body that is
    // not JSON, is answered after the key is checked and the request counted (the routes' `authorize`, the
    // MCP door), so it carries the rate headers; a request that reaches no key check answers it here.
    meter.refused = (inUrl === undefined ? undefined : new Validation({ error: inUrl })) ?? (yield* bodyProblem(request))
    const refused = keyInUrl(request)
    const response = yield* (refused === undefined ? app : Effect.fail(refused)).pipe(
      Effect.locally(RequestMeter, meter),
      // A success no key check came before (a route without one, e.g. /healthz) still answers the input
      // problem; an error a door rendered itself (the stream's or MCP's 401) stands.
      Effect.flatMap((ok) => (meter.refused !== undefined && meter.principal === undefined && ok.status < 400 ? Effect.fail(meter.refused) : Effect.succeed(ok))),
      Effect.catchAllCause((cause) => {
        // A client that went away: nothing to answer.
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
        const classified = classify(cause, request)
        // No route matched (a path the router could not read, e.g. one with a NUL): the input problem says more.
        const { error, defect } = classified.error._tag === "NOT_FOUND" && meter.principal === undefined && meter.refused !== undefined
          ? { error: meter.refused, defect: false }
          : classified
        const logged = defect
          ? Effect.logError(`${request.method} ${request.url.split("?")[0]} failed`, cause)
          : Effect.void
        return Effect.as(logged, errorResponse(error))
      }),
    )
    return HttpServerResponse.setHeaders(response, meterHeaders(meter))
  })
