// Traders as clients read them: the trader row (List Traders), the trader detail (Get Trader) with its
// include parts (positions, curve, habits, similar), and the trader position row. Output shapes only;
// the trader summary embedded in trade rows lives in trader-summary.ts.
import { Schema } from "effect"
import { Category, Kind, TradeEntry } from "./enums.js"
import { Count, Month, optionalKey, Price, Share, Signed, Usd, UtcTime } from "./limits.js"
import { MarketObject } from "./market-object.js"

/** Only venue_a and venue_b name traders. */
export const TraderVenue = Schema.Literal("venue_a", "venue_b")
export type TraderVenue = typeof TraderVenue.Type

/** `winRate` and `return` are null until 10 settled bets. */
const rates = {
  winRate: Schema.NullOr(Share),
  /** Profit divided by money traded. */
  return: Schema.NullOr(Signed),
}

export const TraderRow = Schema.Struct({
  ref: Schema.String,
  name: Schema.NullOr(Schema.String),
  venue: TraderVenue,
  ...rates,
  profit: Signed,
  volume: Usd,
  trades: Count,
  settled: Count,
  bestKind: Schema.NullOr(Kind),
  lastTradeAt: Schema.NullOr(UtcTime),
}).annotations({ identifier: "TraderRow" })
export type TraderRow = typeof TraderRow.Type

export const TraderRecord = Schema.Struct({
  trades: Count,
  settled: Count,
  ...rates,
  profit: Signed,
  volume: Usd,
})
export type TraderRecord = typeof TraderRecord.Type

/** A `byCategory` or `byKind` row; `kind` is null on a whole-category row. */
export const TraderMarketRow = Schema.Struct({
  category: Category,
  kind: Schema.NullOr(Kind),
  trades: Count,
  settled: Count,
  ...rates,
  profit: Signed,
  volume: Usd,
  avgEntry: Schema.NullOr(Price),
  lastTradeAt: Schema.NullOr(UtcTime),
})
export type TraderMarketRow = typeof TraderMarketRow.Type

/** The venue's profit ranking; 1 is top. */
export const TraderRank = Schema.Struct({
  position: Count.pipe(Schema.greaterThanOrEqualTo(1)),
  outOf: Count.pipe(Schema.greaterThanOrEqualTo(1)),
})
export type TraderRank = typeof TraderRank.Type

export const TraderPositionStatus = Schema.Literal("open", "reduced", "exited", "settled")
export type TraderPositionStatus = typeof TraderPositionStatus.Type

export const SettledResult = Schema.Literal("win", "loss", "void")
export type SettledResult = typeof SettledResult.Type

/** One market side a trader held. A position stops counting as open once 95% is sold. */
export const TraderPositionRow = Schema.Struct({
  /** Null when unnameable; its `kind` is always null. */
  market: Schema.NullOr(MarketObject),
  outcome: Schema.String,
  entryPrice: Price,
  /** Average sold. */
  exitPrice: Schema.NullOr(Price),
  /** Spent buying. */
  usd: Usd,
  soldUsd: Schema.NullOr(Usd),
  status: TraderPositionStatus,
  result: Schema.NullOr(SettledResult),
  profit: Schema.NullOr(Signed),
  openedAt: UtcTime,
  lastTradeAt: UtcTime,
}).annotations({ identifier: "TraderPositionRow" })
export type TraderPositionRow = typeof TraderPositionRow.Type

export const TraderPositions = Schema.Struct({
  open: Schema.Array(TraderPositionRow),
  recent: Schema.Array(TraderPositionRow),
})
export type TraderPositions = typeof TraderPositions.Type

export const TraderCurvePoint = Schema.Struct({
  time: UtcTime,
  /** Running total. */
  profit: Signed,
  /** Settled bets counted so far. */
  trades: Count,
})
export type TraderCurvePoint = typeof TraderCurvePoint.Type

export const TraderCurveMonth = Schema.Struct({ month: Month, trades: Count, profit: Signed })
export type TraderCurveMonth = typeof TraderCurveMonth.Type

export const TraderCurve = Schema.Struct({
  /** Oldest first. */
  points: Schema.Array(TraderCurvePoint),
  months: Schema.Array(TraderCurveMonth),
})
export type TraderCurve = typeof TraderCurve.Type

/** A `habits.bySize` row (four equal-count bands by trade size). */
export const HabitRow = Schema.Struct({
  label: Schema.String,
  trades: Count,
  settled: Count,
  ...rates,
  profit: Signed,
  volume: Usd,
})
export type HabitRow = typeof HabitRow.Type

/** A `habits.byPrice` row: a size row plus the average price paid. */
export const HabitPriceRow = Schema.Struct({ ...HabitRow.fields, avgEntry: Schema.NullOr(Price) })
export type HabitPriceRow = typeof HabitPriceRow.Type

/**
 * How trades change positions. The spec does not show the element; ours is one row per trade entry
 * (null = the venue did not say) with its count and share of the trader's trades.
 */
export const HabitBehaviour = Schema.Struct({
  entry: Schema.NullOr(TradeEntry),
  trades: Count,
  share: Share,
})
export type HabitBehaviour = typeof HabitBehaviour.Type

/**
 * Trades by US Eastern weekday and hour. The spec leaves the weekday numbering open; ours is ISO 8601:
 * 1 = Monday .. 7 = Sunday. `hour` is 0..23.
 */
export const HabitHour = Schema.Struct({
  weekday: Schema.Number.pipe(Schema.int(), Schema.between(1, 7)),
  hour: Schema.Number.pipe(Schema.int(), Schema.between(0, 23)),
  trades: Count,
})
export type HabitHour = typeof HabitHour.Type

export const HabitStreaks = Schema.Struct({
  /** Length of the running streak; 0 before any settled bet. */
  current: Count,
  /** Null before any settled bet. */
  currentKind: Schema.NullOr(Schema.Literal("win", "loss")),
  longestWin: Count,
  longestLoss: Count,
})
export type HabitStreaks = typeof HabitStreaks.Type

export const TraderHabits = Schema.Struct({
  bySize: Schema.Array(HabitRow),
  byPrice: Schema.Array(HabitPriceRow),
  behaviour: Schema.Array(HabitBehaviour),
  hours: Schema.Array(HabitHour),
  streaks: HabitStreaks,
})
export type TraderHabits = typeof TraderHabits.Type

/** A trader in the same kinds of market. */
export const SimilarTrader = Schema.Struct({ ref: Schema.String, name: Schema.NullOr(Schema.String), profit: Signed })
export type SimilarTrader = typeof SimilarTrader.Type

/** Get Trader. The include parts are absent unless asked for with `include`. */
export const TraderDetail = Schema.Struct({
  ref: Schema.String,
  name: Schema.NullOr(Schema.String),
  venue: TraderVenue,
  record: TraderRecord,
  byCategory: Schema.Array(TraderMarketRow),
  byKind: Schema.Array(TraderMarketRow),
  /** Average price paid. */
  avgEntry: Schema.NullOr(Price),
  /** Null when unranked. */
  rank: Schema.NullOr(TraderRank),
  lastTradeAt: Schema.NullOr(UtcTime),
  positions: optionalKey(TraderPositions),
  curve: optionalKey(TraderCurve),
  habits: optionalKey(TraderHabits),
  similar: optionalKey(Schema.Array(SimilarTrader)),
}).annotations({ identifier: "TraderDetail" })
export type TraderDetail = typeof TraderDetail.Type
