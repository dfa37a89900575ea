// The daily trade allowance (spec: Limits, 50,000 trade rows per key, reset at midnight UTC): every
// trade row a key receives (GET /v2/trades rows, Get Market `include=trades` rows, stream trade frames)
// is charged here, once, in the Counters key `trades:<keyId>:<yyyy-mm-dd>` (UTC day of Effect's Clock;
// the key expires two days after its first write, so a day's count outlives its day). Filtered-out rows
// are never charged: callers charge what they return. No limit policy lives in a door.
//
// Decisions where the spec is silent:
// - A request made when nothing remains fails with QUOTA_EXCEEDED (`retryAfter` = seconds to midnight
//   UTC, the sentence names the reset time), even one that would have returned no rows.
// - A page larger than what remains is not refused: it is cut to what remains (`chargeTrades` grants
//   at most the remainder, the listing keeps that many rows and its `nextCursor` resumes right after the
//   last row returned). The next request then fails until the reset.
// - Charging is atomic (one conditional add, `Counters.take`: nothing is reserved ahead or refunded), and
//   charges what a listing returns once it has read it, so concurrent requests of one key never hand out
//   more rows than the allowance, and one never finds the allowance spent by another's unused rows.
// - The stream charges after the fact (`spendTrades`, once a minute): frames already sent are counted
//   in full, and the remaining count reads 0 from then on.
import { Clock, Context, DateTime, Effect } from "effect"
import { QuotaExceeded } from "../domain/errors.js"
import { DAILY_TRADE_ALLOWANCE } from "../domain/limits.js"
import type { Principal } from "../domain/principal.js"
import { Counters } from "../store/counters.js"
import type { OperationContext } from "./operation.js"

/** Trade rows per key per UTC day. A Reference, so a test layer can shrink it without new wiring. */
export class TradeAllowanceLimit extends Context.Reference<TradeAllowanceLimit>()("whalewatch/TradeAllowanceLimit", {
  defaultValue: (): number => DAILY_TRADE_ALLOWANCE,
}) {}

const DAY_MS = 86_400_000
/** A day's counter lives two days from its first write: past its own day whatever the hour. */
const COUNTER_TTL_SECONDS = 2 * 86_400

/** What the `x-trades-*` headers report. */
export interface TradeAllowanceState {
  readonly limit: number
  readonly remaining: number
  /** Seconds until midnight UTC (1..86400). */
  readonly resetSeconds: number
  /** The next midnight UTC, ISO 8601. */
  readonly resetsAt: string
}

/** The counter of `keyId` on the UTC day holding `nowMs`. */
export const allowanceCounter = (keyId: string, nowMs: number): string =>
  `trades:${keyId}:${DateTime.formatIsoDateUtc(DateTime.unsafeMake(Math.floor(nowMs / DAY_MS) * DAY_MS))}`

const stateOf = (limit: number, used: number, nowMs: number): TradeAllowanceState => {
  const midnight = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS
  return {
    limit,
    remaining: Math.max(0, limit - used),
    resetSeconds: Math.max(1, Math.ceil((midnight - nowMs) / 1000)),
    resetsAt: DateTime.formatIso(DateTime.unsafeMake(midnight)),
  }
}

/** The QUOTA_EXCEEDED of a spent allowance; the sentence names when it resets. */
export const allowanceExceeded = (state: TradeAllowanceState): QuotaExceeded =>
  new QuotaExceeded({
    error: `Daily trade allowance of ${state.limit} trades used up; it resets at midnight UTC (${state.resetsAt}, in ${state.resetSeconds} s)`,
    retryAfter: state.resetSeconds,
  })

/** The allowance left to a key now (the stream refuses to open when `remaining` is 0). */
export const tradesRemaining: (principal: Principal) => Effect.Effect<TradeAllowanceState, never, Counters> =
  Effect.fnUntraced(function* (principal: Principal) {
    const counters = yield* Counters
    const limit = yield* TradeAllowanceLimit
    const now = yield* Clock.currentTimeMillis
    const used = yield* counters.get(allowanceCounter(principal.keyId, now))
    return stateOf(limit, used, now)
  })

/**
 * Counts `rows` already delivered (the stream's once-a-minute charge). Never fails: the rows are
 * counted in full even past the limit; the state says what remains (0 = close the stream).
 */
export const spendTrades = (principal: Principal, rows: number): Effect.Effect<TradeAllowanceState, never, Counters> =>
  rows <= 0
    ? tradesRemaining(principal)
    : Effect.gen(function* () {
      const counters = yield* Counters
      const limit = yield* TradeAllowanceLimit
      const now = yield* Clock.currentTimeMillis
      const used = yield* counters.incrBy(allowanceCounter(principal.keyId, now), rows, COUNTER_TTL_SECONDS)
      return stateOf(limit, used, now)
    })

/** Sets `x-trades-limit`, `x-trades-remaining`, `x-trades-reset` on the response. */
export const setTradeHeaders = (ctx: OperationContext, state: TradeAllowanceState): Effect.Effect<void> =>
  Effect.all([
    ctx.setHeader("x-trades-limit", String(state.limit)),
    ctx.setHeader("x-trades-remaining", String(state.remaining)),
    ctx.setHeader("x-trades-reset", String(state.resetSeconds)),
  ], { discard: true })

/** QUOTA_EXCEEDED (headers set) when nothing remains: a listing's check before it reads anything. */
export const requireTradesLeft: (ctx: OperationContext) => Effect.Effect<void, QuotaExceeded, Counters> =
  Effect.fnUntraced(function* (ctx: OperationContext) {
    const state = yield* tradesRemaining(ctx.principal)
    if (state.remaining > 0) return
    yield* setTradeHeaders(ctx, state)
    return yield* allowanceExceeded(state)
  })

/**
 * Charges `rows` about to be returned, cut to what remains, in one atomic step (nothing is reserved ahead
 * and refunded: a reservation held while a listing ran made a request meanwhile see nothing remaining,
 * and answer QUOTA_EXCEEDED, though the first used two rows of its hundred). Returns how many may be
 * returned (the caller cuts its page to that); sets the headers; QUOTA_EXCEEDED when nothing remained
 * before the charge.
 */
export const chargeTrades: (ctx: OperationContext, rows: number) => Effect.Effect<number, QuotaExceeded, Counters> =
  Effect.fnUntraced(function* (ctx: OperationContext, rows: number) {
    const counters = yield* Counters
    const limit = yield* TradeAllowanceLimit
    const now = yield* Clock.currentTimeMillis
    const { taken, before } = yield* counters.take(
      allowanceCounter(ctx.principal.keyId, now), Math.max(0, Math.floor(rows)), limit, COUNTER_TTL_SECONDS, true)
    const state = stateOf(limit, before + taken, now)
    yield* setTradeHeaders(ctx, state)
    if (before >= limit) return yield* allowanceExceeded(state)
    return taken
  })
