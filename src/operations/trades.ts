// GET /v2/trades (list_trades): whale trades of the last 30 days, newest first or biggest first, with
// the shared filters and every trade filter of the spec; each returned row is charged to the daily
// trade allowance (allowance.ts). Rows come from Intel's in-memory index of the stored whale trades of
// the window (src/intel/trade-index.ts); the trader summary on a row is the trader's live record from
// Intel (the stored one when Intel does not know the trader). "Now" is Effect's Clock.
//
// Decisions where the spec is silent (README):
// - `since` older than 30 days reads as 30 days ago; `until` defaults to now; `since` after `until`,
//   `minUsd` above `maxUsd` and `priceMin` above `priceMax` are VALIDATION.
// - `sort=size` without `trader` or `market` reads the last 24 hours (or from a `since` inside them);
//   a `since` older than 24 hours then is VALIDATION. With `trader` or `market` it reads the full window.
// - `named=false` is the same as leaving `named` out (no restriction).
// - `minWinRate` and `minSettled` test the trader's live record in the row's kind (the whole record on
//   an unclassified row), never the fallback the summary shows; `minWinRate` also needs 10 settled bets
//   there. Unnamed trades drop out of both.
// - `entry` applies to buys: sells pass it (they are excluded by the default `action=buy` anyway).
// - `q` words must each occur in the title, the outcome name or its label (case-insensitive).
import { Clock, Effect, Option, Schema } from "effect"
import type { Category, Kind } from "../domain/enums.js"
import { MIN_SETTLED_FOR_RATES, TRADES_WINDOW_DAYS, MAX_TRADE_Q_LENGTH, MAX_TRADE_Q_WORDS } from "../domain/limits.js"
import { Validation } from "../domain/errors.js"
import { TradeRow } from "../domain/trade.js"
import { DAY_MS } from "../intel/config.js"
import { Intel, type IntelService } from "../intel/live.js"
import type { StoredTrade } from "../intel/pipeline.js"
import type { SummaryFigures } from "../intel/records.js"
import { tradeRowOf } from "../intel/rows.js"
import type { TradeKey, TradeQuery } from "../intel/trade-index.js"
import { chargeTrades, requireTradesLeft } from "./allowance.js"
import { checkOutcome, checkRange, SearchText, SharedFilters, TimeWithOffset, wordsOf } from "./filters.js"
import { listing, type OperationContext } from "./operation.js"
import { PageParams, paginate } from "./paging.js"
import { BooleanParam, IntParam, NumberParam } from "./params.js"

const MAX_USD = 1e12

export const ListTradesInput = Schema.Struct({
  ...SharedFilters,
  action: Schema.optionalWith(Schema.Literal("buy", "sell", "all"), { default: () => "buy" as const }),
  entry: Schema.optionalWith(Schema.Literal("open", "add", "all"), { default: () => "all" as const }),
  minUsd: Schema.optional(NumberParam("minUsd", 0, MAX_USD)),
  maxUsd: Schema.optional(NumberParam("maxUsd", 0, MAX_USD)),
  priceMin: Schema.optional(NumberParam("priceMin", 0, 1)),
  priceMax: Schema.optional(NumberParam("priceMax", 0, 1)),
  named: Schema.optional(BooleanParam("named")),
  minWinRate: Schema.optional(NumberParam("minWinRate", 0, 1)),
  minSettled: Schema.optional(IntParam("minSettled", 1, 100_000)),
  result: Schema.optional(Schema.Literal("open", "win", "loss")),
  q: Schema.optional(SearchText("q", MAX_TRADE_Q_LENGTH, MAX_TRADE_Q_WORDS)),
  since: Schema.optional(TimeWithOffset("since")),
  until: Schema.optional(TimeWithOffset("until", "until")),
  sort: Schema.optionalWith(Schema.Literal("newest", "size"), { default: () => "newest" as const }),
  ...PageParams,
})
export type ListTradesInput = typeof ListTradesInput.Type

const SIZE_WINDOW_MS = DAY_MS

/** The window and query of a request; VALIDATION for the cross-field rules. */
const queryOf: (input: ListTradesInput, now: number) => Effect.Effect<TradeQuery, Validation> =
  Effect.fnUntraced(function* (input: ListTradesInput, now: number) {
    yield* checkOutcome(input)
    yield* checkRange("minUsd", input.minUsd, "maxUsd", input.maxUsd)
    yield* checkRange("priceMin", input.priceMin, "priceMax", input.priceMax)
    yield* checkRange("since", input.since, "until", input.until)
    const scoped = (input.trader?.length ?? 0) > 0 || (input.market?.length ?? 0) > 0
    const floor = now - TRADES_WINDOW_DAYS * DAY_MS
    if (input.sort === "size" && !scoped && input.since !== undefined && input.since < now - SIZE_WINDOW_MS) {
      return yield* new Validation({
        error: "sort=size reads only the last 24 hours unless trader or market is set; since is older than that",
      })
    }
    const from = Math.max(floor, input.since ?? (input.sort === "size" && !scoped ? now - SIZE_WINDOW_MS : floor))
    return {
      venue: input.venue, category: input.category, kind: input.kind, trader: input.trader, market: input.market,
      outcome: input.outcome, action: input.action, entry: input.entry, minUsd: input.minUsd, maxUsd: input.maxUsd,
      priceMin: input.priceMin, priceMax: input.priceMax, named: input.named === true, result: input.result,
      words: input.q === undefined ? [] : wordsOf(input.q), from, to: input.until ?? now, sort: input.sort,
    }
  })

/** A trader's live record in a row's kind passes the record filters. */
const passesRecord = (intel: IntelService, input: ListTradesInput, trader: string, category: Category | null, kind: Kind | null): boolean => {
  const row = kind === null || category === null ? intel.record(trader, null, null) : intel.record(trader, category, kind)
  const settled = row?.settled ?? 0
  if (input.minSettled !== undefined && settled < input.minSettled) return false
  if (input.minWinRate !== undefined) {
    if (row === undefined || settled < MIN_SETTLED_FOR_RATES || row.winRate === null) return false
    if (row.winRate < input.minWinRate) return false
  }
  return true
}

/** With `minWinRate`/`minSettled`: only named rows whose trader's live record in the row's kind passes. */
const withRecordFilter = (intel: IntelService, input: ListTradesInput, query: TradeQuery): TradeQuery => {
  if (input.minWinRate === undefined && input.minSettled === undefined) return query
  const verdicts = new Map<string, boolean>()
  return {
    ...query,
    named: true,
    accept: (t) => {
      const key = `${t.trader}\u0000${t.kind ?? ""}`
      let passes = verdicts.get(key)
      if (passes === undefined) {
        passes = t.trader !== null && passesRecord(intel, input, t.trader, t.category, t.kind)
        verdicts.set(key, passes)
      }
      return passes
    },
  }
}

/**
 * The last row made of each stored trade. A stored trade object never changes (a settlement replaces
 * it), so its row is the same while the trader's summary figures are: the same row object then goes out
 * again, and the HTTP door writes its JSON text once (http/json.ts).
 */
const rowOfTrade = new WeakMap<StoredTrade, TradeRow>()

/** The row shows these figures (as traderSummary writes them); an unnamed trade's row shows none. */
const sameFigures = (row: TradeRow, s: SummaryFigures | null): boolean => {
  const shown = row.trader
  return shown === null || (shown.winRate === (s?.winRate ?? null) && shown.profit === (s?.profit ?? null) && shown.settled === (s?.settled ?? 0))
}

export const tradeRowWith = (t: StoredTrade, summary: SummaryFigures | null): TradeRow => {
  const figures = summary ?? t.summary
  const known = rowOfTrade.get(t)
  if (known !== undefined && sameFigures(known, figures)) return known
  const row = tradeRowOf(t, figures)
  rowOfTrade.set(t, row)
  return row
}

/**
 * Rows with each trader's live summary (the stored one when Intel does not know the trader), looked up
 * once per trader and kind of market however many rows share them.
 */
export const liveTradeRows = (intel: IntelService, trades: ReadonlyArray<StoredTrade>): Array<TradeRow> => {
  const summaries = new Map<string, SummaryFigures | null>()
  return trades.map((t) => {
    if (t.trader === null) return tradeRowWith(t, null)
    const key = `${t.trader}\u0000${t.category ?? ""}\u0000${t.kind ?? ""}`
    let summary = summaries.get(key)
    if (summary === undefined) {
      summary = intel.record(t.trader, null, null) === undefined ? null : intel.summary(t.trader, t.category, t.kind)
      summaries.set(key, summary)
    }
    return tradeRowWith(t, summary)
  })
}

const TradeKeySchema = Schema.Tuple(Schema.Number, Schema.String)

const run =
  Effect.fnUntraced(function* (input: ListTradesInput, ctx: OperationContext) {
    const intel = yield* Intel
    const now = yield* Clock.currentTimeMillis
    const query = withRecordFilter(intel, input, yield* queryOf(input, now))
    // Nothing left: refused before any reading. Else the page is read, its rows charged, and the page cut
    // to what the charge granted (read again at that size, for its cursor; the listing is in memory).
    yield* requireTradesLeft(ctx)
    const pageOf = (limit: number) => paginate({
      listing: "listTrades",
      input: { ...input, limit },
      ctx,
      key: TradeKeySchema,
      keyOf: (t: StoredTrade): TradeKey => [query.sort === "size" ? t.usd : t.time, t.id],
      fetch: (after: Option.Option<TradeKey>, take: number) => Effect.sync(() => intel.trades.page(query, Option.getOrUndefined(after), take)),
    })
    const read = yield* pageOf(input.limit)
    const granted = yield* chargeTrades(ctx, read.data.length)
    const page = granted < read.data.length ? yield* pageOf(granted) : read
    return { data: liveTradeRows(intel, page.data), nextCursor: page.nextCursor }
  })

export const listTrades = listing({
  name: "listTrades",
  tool: "list_trades",
  method: "GET",
  path: "/v2/trades",
  scope: "read",
  summary: "Whale trades of the last 30 days",
  input: ListTradesInput,
  row: TradeRow,
  // Not Effect.fn: its span and call-site capture cost more than the listing's own logic on this hot
  // route (README, "API figures"), and no tracer is configured. The operation's name is the record's.
  run,
})
