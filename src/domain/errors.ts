// One tagged error class per API `code` of the spec's Errors table; the HTTP status travels with it.
// Operations fail only with these. The envelope `{ success: false, error, code }` is built from them
// by `toEnvelope`, used by every door (HTTP, SSE before open, MCP tool results).
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * A value a sentence quotes, as given, cut to 80 characters (code points) with its own length after it
 * ("… (300 characters)"): a long ref or id is not echoed whole (the same cut as decode sentences).
 */
export const quoted = (value: string): string => {
  const chars = [...value]
  return chars.length <= 80 ? value : `${chars.slice(0, 80).join("")}… (${chars.length} characters)`
}

/** 400: body or query violates the schema; `error` names the field. */
export class Validation extends Schema.TaggedError<Validation>()("VALIDATION", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 400 })) {}

/** 400: a live order or sell sent without an Idempotency-Key. */
export class IdempotencyKeyRequired extends Schema.TaggedError<IdempotencyKeyRequired>()("IDEMPOTENCY_KEY_REQUIRED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 400 })) {}

/**
 * 401: missing, malformed, unknown or revoked API key. The spec leaves this case open; we answer
 * 401 with code UNAUTHORIZED and `www-authenticate: Bearer` (documented in the README).
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("UNAUTHORIZED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 401 })) {}

/** 403: key lacks the scope, or the account has no active subscription. */
export class ScopeRequired extends Schema.TaggedError<ScopeRequired>()("SCOPE_REQUIRED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 403 })) {}

export class LiveTradingUnavailable extends Schema.TaggedError<LiveTradingUnavailable>()("LIVE_TRADING_UNAVAILABLE", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 403 })) {}

export class GeoBlocked extends Schema.TaggedError<GeoBlocked>()("GEO_BLOCKED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 403 })) {}

export class SpendCapExceeded extends Schema.TaggedError<SpendCapExceeded>()("SPEND_CAP_EXCEEDED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 403 })) {}

/** 404: does not exist or belongs to another account (reported identically). */
export class NotFound extends Schema.TaggedError<NotFound>()("NOT_FOUND", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 404 })) {}

export class IdempotencyInProgress extends Schema.TaggedError<IdempotencyInProgress>()("IDEMPOTENCY_IN_PROGRESS", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 409 })) {}

export class WalletNotReady extends Schema.TaggedError<WalletNotReady>()("WALLET_NOT_READY", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 409 })) {}

export class AutopilotNotReady extends Schema.TaggedError<AutopilotNotReady>()("AUTOPILOT_NOT_READY", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 409 })) {}

/** 429: per-minute limit or an allowance used up; `retryAfter` is seconds until a retry can pass. */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QUOTA_EXCEEDED", {
  error: Schema.String,
  retryAfter: Schema.Int,
}, HttpApiSchema.annotations({ status: 429 })) {}

export class UpstreamFailed extends Schema.TaggedError<UpstreamFailed>()("UPSTREAM_FAILED", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 502 })) {}

export class Internal extends Schema.TaggedError<Internal>()("INTERNAL", {
  error: Schema.String,
}, HttpApiSchema.annotations({ status: 500 })) {}

export const API_ERRORS = [
  Validation, IdempotencyKeyRequired, Unauthorized, ScopeRequired, LiveTradingUnavailable, GeoBlocked,
  SpendCapExceeded, NotFound, IdempotencyInProgress, WalletNotReady, AutopilotNotReady, QuotaExceeded,
  UpstreamFailed, Internal,
] as const

export type ApiError = InstanceType<(typeof API_ERRORS)[number]>
export type ErrorCode = ApiError["_tag"]

export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  VALIDATION: 400, IDEMPOTENCY_KEY_REQUIRED: 400, UNAUTHORIZED: 401, SCOPE_REQUIRED: 403,
  LIVE_TRADING_UNAVAILABLE: 403, GEO_BLOCKED: 403, SPEND_CAP_EXCEEDED: 403, NOT_FOUND: 404,
  IDEMPOTENCY_IN_PROGRESS: 409, WALLET_NOT_READY: 409, AUTOPILOT_NOT_READY: 409, QUOTA_EXCEEDED: 429,
  UPSTREAM_FAILED: 502, INTERNAL: 500,
}

/** The spec's error envelope. */
export const ErrorEnvelope = Schema.Struct({
  success: Schema.Literal(false),
  error: Schema.String,
  code: Schema.String,
})
export type ErrorEnvelope = typeof ErrorEnvelope.Type

export const toEnvelope = (e: ApiError): ErrorEnvelope => ({ success: false, error: e.error, code: e._tag })

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof (u as { _tag: unknown })._tag === "string" &&
  (u as { _tag: string })._tag in STATUS_OF_CODE && "error" in u
