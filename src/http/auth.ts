// Authentication, the request count and scopes, as HttpApi middleware: every operation route carries
// RequireRead or RequireWrite (from its record's scope); GET /healthz and GET /openapi.json carry none.
// Order: key → count one request (so 403s count, 401s do not) → 429 → subscription/scope (403).
// A missing, malformed, unknown or revoked key is 401 UNAUTHORIZED with `www-authenticate: Bearer`
// (the spec leaves this open). Keys in the URL are refused before routing (see `keyInUrl`).
import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { Scope } from "../domain/enums.js"
import { QuotaExceeded, ScopeRequired, Unauthorized, Validation } from "../domain/errors.js"
import type { Principal } from "../domain/principal.js"
import { chargeRequestWith, currentWindow } from "../operations/rate-limit.js"
import { Counters } from "../store/counters.js"
import { Keys } from "../store/keys.js"
import { currentMeter, refuseInput } from "./meter.js"

export class CurrentPrincipal extends Context.Tag("whalewatch/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

const AuthFailure = Schema.Union(Unauthorized, ScopeRequired, QuotaExceeded, Validation)

export class RequireRead extends HttpApiMiddleware.Tag<RequireRead>()("whalewatch/http/RequireRead", {
  failure: AuthFailure,
  provides: CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer },
}) {}

export class RequireWrite extends HttpApiMiddleware.Tag<RequireWrite>()("whalewatch/http/RequireWrite", {
  failure: AuthFailure,
  provides: CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer },
}) {}

export const requirementOf = (scope: Scope) => (scope === "read" ? RequireRead : RequireWrite)

/**
 * Query parameters that look like a credential. A key in the URL leaks into logs, proxies and browser
 * history, and the stream must never accept one, so such a request is refused outright as 401
 * UNAUTHORIZED (not VALIDATION: it is an authentication mistake, and 401 holds even when a valid
 * header is sent too, so a client cannot come to rely on it).
 */
const KEY_PARAMS = new Set(["key", "apikey", "api_key", "api-key", "token", "access_token", "accesstoken", "auth", "authorization", "bearer"])

export const keyInUrl = (request: HttpServerRequest.HttpServerRequest): Unauthorized | undefined => {
  const query = request.url.indexOf("?")
  if (query < 0) return undefined
  for (const name of new URLSearchParams(request.url.slice(query + 1)).keys()) {
    if (KEY_PARAMS.has(name.toLowerCase())) {
      return new Unauthorized({ error: `API keys are accepted only in the Authorization header, never in the URL (\`${name}\`)` })
    }
  }
  return undefined
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i

/**
 * Who is calling, before any scope: the key is read and checked, one request is counted against its
 * per-minute limit (429 past it), and the account must hold an active subscription (403). The MCP door
 * uses this alone (it lists only the tools the key's scopes allow); the routes add their scope.
 */
export const authenticate = Effect.fnUntraced(function* (keys: Keys["Type"], counters: Counters["Type"]) {
  const meter = yield* currentMeter
  const request = yield* HttpServerRequest.HttpServerRequest
  const header = request.headers["authorization"]
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1]
  if (token === undefined) {
    return yield* new Unauthorized({
      error: header === undefined
        ? "Missing Authorization header; send `Authorization: Bearer <API key>`"
        : "Malformed Authorization header; send `Authorization: Bearer <API key>`",
    })
  }
  const found = yield* keys.authenticate(token)
  if (Option.isNone(found)) return yield* new Unauthorized({ error: "Unknown or revoked API key" })
  const principal = found.value
  const window = yield* currentWindow(principal.keyId)
  const { state, refused } = yield* chargeRequestWith(counters, window)
  meter.principal = principal
  meter.window = window
  meter.rate = state
  if (refused !== undefined) return yield* refused
  if (!principal.subscriptionActive) {
    return yield* new ScopeRequired({ error: "The account has no active subscription" })
  }
  return principal
})

/** A route's key check: `authenticate`, the route's scope, then what was wrong with the request's text. */
const authorize = Effect.fnUntraced(function* (scope: Scope, keys: Keys["Type"], counters: Counters["Type"]) {
  const principal = yield* authenticate(keys, counters)
  if (!principal.scopes.includes(scope)) return yield* new ScopeRequired({ error: scopeSentence(scope) })
  yield* refuseInput(yield* currentMeter)
  return principal
})

/** The sentence of a key without the scope an operation needs, the same at both doors. */
export const scopeSentence = (scope: Scope): string => `This operation needs a key with the \`${scope}\` scope`

export const AuthLive: Layer.Layer<RequireRead | RequireWrite, never, Keys | Counters> = Layer.mergeAll(
  Layer.effect(RequireRead, Effect.map(Effect.all([Keys, Counters]), ([keys, counters]) =>
    RequireRead.of({ bearer: () => authorize("read", keys, counters) }))),
  Layer.effect(RequireWrite, Effect.map(Effect.all([Keys, Counters]), ([keys, counters]) =>
    RequireWrite.of({ bearer: () => authorize("write", keys, counters) }))),
)
