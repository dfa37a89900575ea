// The per-minute request limit (spec: Limits, 120 per key), enforced here once for every door.
// Fixed windows aligned to the clock minute: a key's count lives in the counter `rate:<keyId>:<minute>`
// and resets at the next minute boundary (so a burst can straddle two windows; the spec names no
// window shape and this one needs a single atomic INCRBY on a shared Redis). A request counts 1 when
// authenticated; an operation charges extra units (includes, sweep values) in the same window.
import { Clock, Effect } from "effect"
import { QuotaExceeded } from "../domain/errors.js"
import { Counters, type CountersService } from "../store/counters.js"

export const REQUESTS_PER_MINUTE = 120
const WINDOW_MS = 60_000

/** What the `x-ratelimit-*` headers report. */
export interface RateState {
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets (1..60). */
  readonly resetSeconds: number
}

/** One caller's current window; charges made through it land in the same minute. */
export interface RateWindow {
  readonly counter: string
  readonly endsAt: number
}

export const currentWindow = (keyId: string): Effect.Effect<RateWindow> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const minute = Math.floor(now / WINDOW_MS)
    return { counter: `rate:${keyId}:${minute}`, endsAt: (minute + 1) * WINDOW_MS }
  })

const stateOf = (window: RateWindow, count: number, now: number): RateState => ({
  limit: REQUESTS_PER_MINUTE,
  remaining: Math.max(0, REQUESTS_PER_MINUTE - count),
  resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
})

/** The refusal; `units` when the request's extra charge (includes, sweep values) is what does not fit. */
const exceeded = (state: RateState, units?: number) =>
  new QuotaExceeded({
    error: units === undefined
      ? `Rate limit of ${REQUESTS_PER_MINUTE} requests per minute reached; retry in ${state.resetSeconds} s`
      : `Rate limit of ${REQUESTS_PER_MINUTE} requests per minute: this request's includes or sweep values count ${units} more and ${state.remaining} remain this minute; retry in ${state.resetSeconds} s`,
    retryAfter: state.resetSeconds,
  })

/**
 * Counts one request. Returns the state and, when the request is over the limit, the error to fail
 * with (the caller still reports the headers). Refused requests keep counting: the window's count is
 * only a ceiling test and it resets with the window anyway.
 */
export const chargeRequest = (window: RateWindow): Effect.Effect<
  { readonly state: RateState; readonly refused: QuotaExceeded | undefined },
  never,
  Counters
> => Effect.flatMap(Counters, (counters) => chargeRequestWith(counters, window))

/**
 * `chargeRequest` with the counters given: the HTTP door's per-request path, where providing the service
 * would copy the request's whole context (and its fiber refs) for one call.
 */
export const chargeRequestWith: (counters: CountersService, window: RateWindow) => Effect.Effect<
  { readonly state: RateState; readonly refused: QuotaExceeded | undefined }
> = Effect.fnUntraced(function* (counters: CountersService, window: RateWindow) {
  const count = yield* counters.incrBy(window.counter, 1, WINDOW_MS / 1000 + 5)
  const state = stateOf(window, count, yield* Clock.currentTimeMillis)
  return { state, refused: count > REQUESTS_PER_MINUTE ? exceeded(state) : undefined }
})

/**
 * Charges `units` more in the same window, only when they fit under the limit (one atomic step: they are
 * never added and then taken back, which made requests running meanwhile see the window full); when they
 * would pass it, nothing is charged and QUOTA_EXCEEDED is returned.
 */
export const chargeExtra: (counters: CountersService, window: RateWindow, units: number) => Effect.Effect<
  { readonly state: RateState; readonly refused: QuotaExceeded | undefined }
> = Effect.fnUntraced(function* (counters: CountersService, window: RateWindow, units: number) {
  const { taken, before } = yield* counters.take(window.counter, units, REQUESTS_PER_MINUTE, WINDOW_MS / 1000 + 5, false)
  const now = yield* Clock.currentTimeMillis
  const state = stateOf(window, before + taken, now)
  return taken === units ? { state, refused: undefined } : { state, refused: exceeded(state, units) }
})
