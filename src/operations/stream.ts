// GET /v2/stream as an operation: its input, the checks made before the stream opens (allowance,
// concurrent streams), each connection's filters, and the per-connection bookkeeping while it is open
// (heartbeat, once-a-minute charging of trade frames and of the per-minute request, the lease on a
// stream slot). It knows nothing of HTTP: the SSE door (src/sse/) decodes the query, writes the text
// this module returns and closes the connection when `run` ends.
//
// Decisions (README "Stream"):
// - Only trades GET /v2/trades lists are sent: `TradeRecorded` of a whale trade, as `event: trade`
//   with the listing's row (`tradeRowOf`; at recording the summary kept on the trade is the live one
//   `liveTradeRows` shows); a trade's settlement is not re-sent. `MoveRecorded` is `event: move`.
// - Trade frames sent are counted and charged to the daily allowance every 60 s of Clock and when the
//   stream closes. Between charges the connection stops sending trade frames once it has sent what
//   remained at the last charge; within one tick (1 s) it charges, sends `event: error` and ends.
// - Concurrent streams: at most 3 per key across nodes (v1 streams would share the same counter).
//   The 4th is refused with 429 QUOTA_EXCEEDED (retry-after 30). A slot is a lease in 30-second
//   buckets of Counters, renewed by the open stream each bucket, so a crashed node's streams stop
//   counting within 60 s.
// - Every 60 s of Clock an open stream counts one request in the key's per-minute window.
import { Clock, Effect, Queue, Schema, type Scope } from "effect"
import type { Category, Kind, Venue } from "../domain/enums.js"
import { QuotaExceeded, Validation } from "../domain/errors.js"
import { MAX_CONCURRENT_STREAMS, MIN_SETTLED_FOR_RATES, STREAM_HEARTBEAT_SECONDS } from "../domain/limits.js"
import { MoveType } from "../domain/move.js"
import type { IntelEvent } from "../intel/intel-bus.js"
import type { StoredMove, StoredTrade } from "../intel/pipeline.js"
import { moveRowOf, tradeRowOf } from "../intel/rows.js"
import { Counters } from "../store/counters.js"
import { allowanceExceeded, spendTrades, tradesRemaining, type TradeAllowanceState } from "./allowance.js"
import { checkOutcome, checkRange, outcomeMatches, SharedFilters } from "./filters.js"
import { Intel } from "../intel/live.js"
import type { OperationContext } from "./operation.js"
import { BooleanParam, IntParam, NumberParam, Repeatable } from "./params.js"
import { chargeRequest, currentWindow } from "./rate-limit.js"

// Input -------------------------------------------------------------------------------------------

const opt = Schema.optional

export const StreamInput = Schema.Struct({
  channels: opt(Repeatable("channels", Schema.Literal("trades", "moves"))),
  ...SharedFilters,
  priceMin: opt(NumberParam("priceMin", 0, 1)),
  priceMax: opt(NumberParam("priceMax", 0, 1)),
  action: Schema.optionalWith(Schema.Literal("buy", "sell", "all"), { default: () => "buy" as const }),
  entry: Schema.optionalWith(Schema.Literal("open", "add", "all"), { default: () => "all" as const }),
  minUsd: opt(NumberParam("minUsd", 0, 1e12)),
  maxUsd: opt(NumberParam("maxUsd", 0, 1e12)),
  named: opt(BooleanParam("named")),
  minWinRate: opt(NumberParam("minWinRate", 0, 1)),
  minSettled: opt(IntParam("minSettled", 1, 100_000)),
  type: opt(Repeatable("type", MoveType)),
  minPoints: opt(NumberParam("minPoints", 0, 100)),
})
export type StreamInput = typeof StreamInput.Type

/** Route facts for the door; the stream is not a JSON operation, so it is not in the registry. */
export const STREAM_ROUTE = { method: "GET", path: "/v2/stream", scope: "read" } as const

// Filters -----------------------------------------------------------------------------------------

export interface StreamFilter {
  readonly trades: boolean
  readonly moves: boolean
  readonly trade: (t: StoredTrade) => boolean
  readonly move: (m: StoredMove) => boolean
}

const setOf = <A>(values: ReadonlyArray<A> | undefined): ReadonlySet<A> | undefined =>
  values === undefined || values.length === 0 ? undefined : new Set(values)

const inRange = (value: number | null, min: number | undefined, max: number | undefined): boolean =>
  (min === undefined && max === undefined) ||
  (value !== null && (min === undefined || value >= min) && (max === undefined || value <= max))

/** The cross-field rules the Schema cannot state; VALIDATION naming the field. */
const checkInput = (input: StreamInput): Effect.Effect<void, Validation> =>
  Effect.all([
    checkOutcome(input),
    checkRange("priceMin", input.priceMin, "priceMax", input.priceMax),
    checkRange("minUsd", input.minUsd, "maxUsd", input.maxUsd),
  ], { discard: true })

/** A trader's record in a row's kind (whole record when unclassified), as GET /v2/trades reads it. */
export type RecordLookup = (trader: string, category: Category | null, kind: Kind | null) => { readonly settled: number; readonly winRate: number | null } | undefined

/**
 * One connection's filters, as predicates over what the pipeline stores: the same rules as GET
 * /v2/trades and GET /v2/moves (filters.ts; `minWinRate`/`minSettled` read the trader's
 * live record in the row's kind through `record`, or the summary kept on the trade without one).
 */
export const streamFilter = (input: StreamInput, record?: RecordLookup): StreamFilter => {
  const channels = setOf(input.channels)
  const types = setOf(input.type)
  const { action, entry, priceMin, priceMax, minUsd, maxUsd, minWinRate, minSettled, minPoints } = input
  // The shared filters of filters.ts (`sharedMatch`), compiled to sets: this runs for every connection
  // on every event, so it allocates nothing.
  const venues = setOf(input.venue)
  const categories = setOf(input.category)
  const kinds = setOf(input.kind)
  const markets = setOf(input.market)
  const traders = setOf(input.trader)
  const outcome = input.outcome
  const scope = (venue: string, category: string | null, kind: string | null, market: string, contract: string | null) =>
    (venues === undefined || venues.has(venue as Venue)) &&
    (categories === undefined || (category !== null && categories.has(category as Category))) &&
    (kinds === undefined || (kind !== null && kinds.has(kind as Kind))) &&
    (markets === undefined || markets.has(market) || (contract !== null && markets.has(contract)))
  const recordOf = (t: StoredTrade) =>
    record === undefined ? (t.summary ?? undefined) : t.trader === null ? undefined
      : record(t.trader, t.kind === null ? null : t.category, t.kind)
  const passesRecord = (t: StoredTrade): boolean => {
    if (minWinRate === undefined && minSettled === undefined) return true
    if (t.trader === null) return false
    const r = recordOf(t)
    const settled = r?.settled ?? 0
    if (minSettled !== undefined && settled < minSettled) return false
    if (minWinRate !== undefined && (r === undefined || settled < MIN_SETTLED_FOR_RATES || r.winRate === null || r.winRate < minWinRate)) return false
    return true
  }
  return {
    trades: channels === undefined || channels.has("trades"),
    moves: channels === undefined || channels.has("moves"),
    trade: (t) =>
      t.whale &&
      (action === "all" || t.action === action) &&
      (t.action !== "buy" || entry === "all" || t.entry === entry) &&
      scope(t.venue, t.category, t.kind, t.market, t.contract) &&
      (traders === undefined || (t.trader !== null && traders.has(t.trader))) &&
      (outcome === undefined || outcomeMatches(outcome, t.outcome, t.outcomeLabel)) &&
      inRange(t.price, priceMin, priceMax) &&
      inRange(t.usd, minUsd, maxUsd) &&
      (input.named !== true || t.trader !== null) &&
      passesRecord(t),
    move: (m) =>
      scope(m.venue, m.category, m.kind, m.ref, m.market) &&
      (types === undefined || types.has(m.type)) &&
      (minPoints === undefined || m.type !== "move" || m.priceBefore === null || m.priceAfter === null ||
        Math.abs(m.priceAfter - m.priceBefore) * 100 >= minPoints - 1e-9) &&
      inRange(m.priceAfter, priceMin, priceMax),
  }
}

// Frames ------------------------------------------------------------------------------------------

/**
 * An IntelBus event prepared once for every connection: its frame text is built (row and JSON) the
 * first time a connection wants it, then shared.
 */
export class StreamEvent {
  #text: string | null | undefined
  constructor(readonly event: IntelEvent) {}

  /** The market refs the event names (market or event ref, contract ref, event ref), for the fan-out's index. */
  get markets(): ReadonlyArray<string | null> {
    const e = this.event
    return e._tag === "MoveRecorded" ? [e.move.ref, e.move.market, e.move.event] : [e.trade.market, e.trade.contract, e.trade.event]
  }

  /** Key for de-duplication across nodes. */
  get key(): string {
    const e = this.event
    return e._tag === "MoveRecorded" ? `m:${e.move.id}` : `${e._tag === "TradeRecorded" ? "t" : "s"}:${e.trade.id}`
  }

  /** The SSE text of the frame, or null when the event is never a frame (a settlement). */
  get text(): string | null {
    if (this.#text === undefined) this.#text = frameText(this.event)
    return this.#text
  }
}

const frameText = (e: IntelEvent): string | null => {
  switch (e._tag) {
    case "TradeRecorded": return `event: trade\ndata: ${JSON.stringify(tradeRowOf(e.trade))}\n\n`
    case "MoveRecorded": return `event: move\ndata: ${JSON.stringify(moveRowOf(e.move))}\n\n`
    case "TradeSettled": return null
  }
}

export const CONNECTED = ": connected\n\n"
export const PING = ": ping\n\n"
export const errorFrame = (e: QuotaExceeded): string =>
  `event: error\ndata: ${JSON.stringify({ code: e._tag, error: e.error })}\n\n`

// Stream slots ------------------------------------------------------------------------------------

const SLOT_BUCKET_MS = 30_000
const slotKey = (keyId: string, bucket: number) => `streams:${keyId}:${bucket}`
const SLOT_TTL_SECONDS = (3 * SLOT_BUCKET_MS) / 1000

/**
 * Takes one of the key's stream slots for the scope: counted in the current and the next bucket,
 * renewed into the following bucket by `renew`; released from both on scope close.
 */
const takeSlot = (keyId: string): Effect.Effect<{ readonly renew: Effect.Effect<void> }, QuotaExceeded, Counters | Scope.Scope> =>
  Effect.gen(function* () {
    const counters = yield* Counters
    const bucketNow = Effect.map(Clock.currentTimeMillis, (now) => Math.floor(now / SLOT_BUCKET_MS))
    const opened = yield* bucketNow
    // Taken only when one is free (one atomic step): a refused open never counts, even for a moment.
    const { taken } = yield* counters.take(slotKey(keyId, opened), 1, MAX_CONCURRENT_STREAMS, SLOT_TTL_SECONDS, false)
    if (taken === 0) {
      return yield* new QuotaExceeded({
        error: `At most ${MAX_CONCURRENT_STREAMS} streams may be open at once per API key; close one first`,
        retryAfter: SLOT_BUCKET_MS / 1000,
      })
    }
    yield* counters.incrBy(slotKey(keyId, opened + 1), 1, SLOT_TTL_SECONDS)
    let renewedUpTo = opened + 1
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const now = yield* bucketNow
        for (let b = now; b <= renewedUpTo; b++) yield* counters.decrBy(slotKey(keyId, b), 1)
      }))
    return {
      renew: Effect.gen(function* () {
        const now = yield* bucketNow
        while (renewedUpTo < now + 1) {
          renewedUpTo++
          yield* counters.incrBy(slotKey(keyId, renewedUpTo), 1, SLOT_TTL_SECONDS)
        }
      }),
    }
  })

// The session -------------------------------------------------------------------------------------

/** Where a session writes: the door's connection. */
export interface StreamTransport {
  readonly write: (text: string) => void
}

export interface StreamSession {
  /** The `market` filter: the connection wants no event outside these refs (undefined: no filter). */
  readonly markets: ReadonlySet<string> | undefined
  /** The text to send this connection for an event, or null when its filters remove it. Synchronous. */
  readonly accept: (event: StreamEvent) => string | null
  /**
   * Heartbeats and charging until the allowance is spent; then it returns the `event: error` frame
   * text the door writes before closing. Interrupt it when the client goes away.
   */
  readonly run: (transport: StreamTransport) => Effect.Effect<string, never, Counters>
}

export interface StreamOptions {
  /** How often (real time) the session looks at the Clock to ping and charge. */
  readonly tickMs?: number
  /** The node's shared ticker (the door's); without one a session runs its own. */
  readonly ticker?: StreamTicker
}

const DEFAULT_TICK_MS = 1000

/** A session as the ticker sees it: whether something is due at `now`, and how to wake it. */
interface TickedSession {
  readonly due: (now: number) => boolean
  readonly wake: (now: number) => void
}

/**
 * One timer for every stream of a node: each tick reads the Clock once and wakes only the sessions
 * with something due (a heartbeat, a charge, a slot renewal, a spent allowance). An idle session
 * then costs a comparison a tick instead of a fiber waking up (at 1,000 streams, ~60 ms of CPU a second).
 */
export interface StreamTicker {
  readonly register: (session: TickedSession) => Effect.Effect<void, never, Scope.Scope>
}

export const makeStreamTicker = (tickMs: number = DEFAULT_TICK_MS): Effect.Effect<StreamTicker, never, Scope.Scope> =>
  Effect.gen(function* () {
    const sessions = new Set<TickedSession>()
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.sleep(tickMs),
      Effect.map(Clock.currentTimeMillis, (now) => {
        for (const session of sessions) if (session.due(now)) session.wake(now)
      }),
    )))
    return {
      register: (session) =>
        Effect.acquireRelease(Effect.sync(() => void sessions.add(session)), () => Effect.sync(() => void sessions.delete(session))),
    }
  })

const MINUTE_MS = 60_000
const HEARTBEAT_MS = STREAM_HEARTBEAT_SECONDS * 1000

/**
 * Opens a stream for `ctx.principal`: VALIDATION on cross-field rules, QUOTA_EXCEEDED when the
 * allowance is spent or the key already has 3 streams open. The slot and the final charge belong to
 * the scope: close it when the connection ends.
 */
export const openStream = (
  input: StreamInput,
  ctx: OperationContext,
  options: StreamOptions = {},
): Effect.Effect<StreamSession, Validation | QuotaExceeded, Counters | Scope.Scope> =>
  Effect.gen(function* () {
    yield* checkInput(input)
    const principal = ctx.principal
    const initial = yield* tradesRemaining(principal)
    if (initial.remaining <= 0) return yield* allowanceExceeded(initial)
    const slot = yield* takeSlot(principal.keyId)
    // The live records, as GET /v2/trades reads them (absent only in tests that run without Intel).
    const intel = yield* Effect.serviceOption(Intel)
    const filter = streamFilter(input, intel._tag === "Some" ? intel.value.record : undefined)
    const ticker = options.ticker ?? (yield* makeStreamTicker(options.tickMs ?? DEFAULT_TICK_MS))

    // Frames sent since the last charge, and what remained at that charge.
    let unbilled = 0
    let budget = initial.remaining
    let spent = false

    const charge: Effect.Effect<TradeAllowanceState, never, Counters> = Effect.suspend(() => {
      const rows = unbilled
      unbilled = 0
      return Effect.tap(spendTrades(principal, rows), (state) => Effect.sync(() => { budget = state.remaining }))
    })
    yield* Effect.addFinalizer(() => Effect.asVoid(charge))

    const accept = (event: StreamEvent): string | null => {
      const e = event.event
      switch (e._tag) {
        case "TradeRecorded": {
          if (!filter.trades || spent || !filter.trade(e.trade)) return null
          const text = event.text
          if (text === null) return null
          unbilled++
          if (unbilled >= budget) spent = true
          return text
        }
        case "MoveRecorded":
          return filter.moves && filter.move(e.move) ? event.text : null
        case "TradeSettled":
          return null
      }
    }

    const run = (transport: StreamTransport) =>
      Effect.scoped(Effect.gen(function* () {
        let lastPing = yield* Clock.currentTimeMillis
        let lastCharge = lastPing
        let bucket = Math.floor(lastPing / SLOT_BUCKET_MS)
        const wakeups = yield* Queue.sliding<number>(1)
        // The ticker wakes this session only when something is due. A spent allowance is noticed
        // then too (accept already stopped sending), within one tick.
        yield* ticker.register({
          due: (now) =>
            spent || Math.floor(now / SLOT_BUCKET_MS) !== bucket || now - lastCharge >= MINUTE_MS || now - lastPing >= HEARTBEAT_MS,
          wake: (now) => void Queue.unsafeOffer(wakeups, now),
        })
        for (;;) {
          const now = yield* Queue.take(wakeups)
          if (Math.floor(now / SLOT_BUCKET_MS) !== bucket) {
            bucket = Math.floor(now / SLOT_BUCKET_MS)
            yield* slot.renew
          }
          if (now - lastCharge >= MINUTE_MS || spent) {
            const minutes = Math.max(1, Math.floor((now - lastCharge) / MINUTE_MS))
            if (now - lastCharge >= MINUTE_MS) {
              lastCharge += minutes * MINUTE_MS
              // An open stream uses one request of each minute's 120.
              yield* chargeRequest(yield* currentWindow(principal.keyId))
            }
            const state = yield* charge
            if (state.remaining <= 0) {
              spent = true
              return errorFrame(allowanceExceeded(state))
            }
            spent = false // a new UTC day began since the frames were counted
          }
          if (now - lastPing >= HEARTBEAT_MS) {
            lastPing = now
            transport.write(PING)
          }
        }
      }))

    return { markets: setOf(input.market), accept, run }
  })
