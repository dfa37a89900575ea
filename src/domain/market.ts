// Markets as clients read them: the market list row (List Markets) and the market detail (Get Market)
// with its include parts (book, whales, call, history, trades). Output shapes only; the embedded market
// object lives in market-object.ts.
import { Schema } from "effect"
import { Venue } from "./enums.js"
import {
  Contracts, Count, MAX_BOOK_LEVELS, MAX_CALL_REASONS, optionalKey, Price, SERIES_WINDOWS, Signed, Usd, UtcTime,
} from "./limits.js"
import { MarketObject } from "./market-object.js"
import { TradeRow } from "./trade.js"
import { TraderSummary } from "./trader-summary.js"

export const MarketListStatus = Schema.Literal("open", "settled", "void")
export type MarketListStatus = typeof MarketListStatus.Type

/** `closed` = trading stopped, no result yet. */
export const MarketStatus = Schema.Literal("open", "closed", "settled", "void")
export type MarketStatus = typeof MarketStatus.Type

/** The ref, contract, title, venue, category and kind of the market object, flat on a row. */
const marketFields = MarketObject.fields

export const MarketListOutcome = Schema.Struct({
  name: Schema.String,
  label: Schema.String,
  price: Schema.NullOr(Price),
})
export type MarketListOutcome = typeof MarketListOutcome.Type

/** One row per market; a multi-outcome market (a game, an election) is one row. */
export const MarketListRow = Schema.Struct({
  ...marketFields,
  status: MarketListStatus,
  /** Open market: its two sides (of the most traded contract on a multi-contract market). Empty when settled. */
  outcomes: Schema.Array(MarketListOutcome),
  /** Number of contracts. */
  outcomeCount: Count,
  /** Dollars traded in the last hour; null when the market has not been seen trading. */
  volume1h: Schema.NullOr(Usd),
  /** Change of the Yes price over the last hour. */
  move1h: Schema.NullOr(Signed),
  /** Dollars whales spent buying in the last hour; null when none. */
  whaleMoney: Schema.NullOr(Usd),
  /** Name of the winning outcome on a settled market; null while open and when void. */
  result: Schema.NullOr(Schema.String),
  settledAt: Schema.NullOr(UtcTime),
}).annotations({ identifier: "MarketListRow" })
export type MarketListRow = typeof MarketListRow.Type

/** Both sides of each contract of the market. */
export const MarketOutcome = Schema.Struct({
  /** Contract ref: pass it as `market` to a paper order or a market bot. */
  ref: Schema.String,
  /** The contract's title. */
  contract: Schema.String,
  name: Schema.String,
  label: Schema.String,
  price: Schema.NullOr(Price),
  /** Null when the venue has no book. */
  bid: Schema.NullOr(Price),
  ask: Schema.NullOr(Price),
})
export type MarketOutcome = typeof MarketOutcome.Type

/** The same outcome on another venue. */
export const OtherVenue = Schema.Struct({ venue: Venue, ref: Schema.String })
export type OtherVenue = typeof OtherVenue.Type

export const MarketBookLevel = Schema.Struct({ price: Price, size: Contracts })
export type MarketBookLevel = typeof MarketBookLevel.Type

const levels = Schema.Array(MarketBookLevel).pipe(Schema.maxItems(MAX_BOOK_LEVELS))

/** One side's book: best first, up to 20 levels each way. */
export const MarketBookSide = Schema.Struct({ outcome: Schema.String, bids: levels, asks: levels })
export type MarketBookSide = typeof MarketBookSide.Type

export const WhaleSide = Schema.Struct({ outcome: Schema.String, usd: Usd, trades: Count })
export type WhaleSide = typeof WhaleSide.Type

export const WhaleStatus = Schema.Literal("holding", "reduced", "exited")
export type WhaleStatus = typeof WhaleStatus.Type

/** One named whale on one side of the market. */
export const MarketWhale = Schema.Struct({
  ...TraderSummary.fields,
  outcome: Schema.String,
  boughtUsd: Usd,
  soldUsd: Usd,
  /** Average paid. */
  entryPrice: Schema.NullOr(Price),
  /** Average sold. */
  exitPrice: Schema.NullOr(Price),
  status: WhaleStatus,
  lastTradeAt: UtcTime,
})
export type MarketWhale = typeof MarketWhale.Type

/** Window: 30 days on a single contract, 24 hours on a multi-contract market. */
export const MarketWhales = Schema.Struct({
  sides: Schema.Array(WhaleSide),
  /** One per named whale per side, biggest buyers first. */
  traders: Schema.Array(MarketWhale),
})
export type MarketWhales = typeof MarketWhales.Type

export const CallAction = Schema.Literal("buy", "watch")
export type CallAction = typeof CallAction.Type

export const MarketCall = Schema.Struct({
  outcome: Schema.NullOr(Schema.String),
  action: CallAction,
  headline: Schema.String,
  detail: Schema.String,
  price: Price,
  maxPrice: Schema.NullOr(Price),
  reasons: Schema.Array(Schema.String).pipe(Schema.maxItems(MAX_CALL_REASONS)),
})
export type MarketCall = typeof MarketCall.Type

export const HistoryRange = Schema.Literal("1h", "1d", "7d")
export type HistoryRange = typeof HistoryRange.Type

export const PricePoint = Schema.Struct({
  time: UtcTime,
  /** Yes price. */
  price: Price,
  volume: Usd,
})
export type PricePoint = typeof PricePoint.Type

export const SeriesWindow = Schema.Struct({
  opensAt: UtcTime,
  closesAt: UtcTime,
  result: Schema.Literal("yes", "no"),
})
export type SeriesWindow = typeof SeriesWindow.Type

export const MarketSeries = Schema.Struct({
  /** The last 15 windows, newest first. */
  windows: Schema.Array(SeriesWindow).pipe(Schema.maxItems(SERIES_WINDOWS)),
  yesWon: Count,
  noWon: Count,
})
export type MarketSeries = typeof MarketSeries.Type

export const MarketHistory = Schema.Struct({
  range: HistoryRange,
  /** Oldest first. */
  prices: Schema.Array(PricePoint),
  /** Null unless the market repeats on a clock. */
  series: Schema.NullOr(MarketSeries),
})
export type MarketHistory = typeof MarketHistory.Type

/** Get Market. The include parts are absent unless asked for with `include`. */
export const MarketDetail = Schema.Struct({
  ...marketFields,
  status: MarketStatus,
  /** Winning outcome name; null until settled and when void. */
  result: Schema.NullOr(Schema.String),
  settledAt: Schema.NullOr(UtcTime),
  /** The venue's own settlement wording. */
  rule: Schema.NullOr(Schema.String),
  outcomes: Schema.Array(MarketOutcome),
  /** Empty unless the market is paired. */
  otherVenues: Schema.Array(OtherVenue),
  /** `include=book`; null on a multi-contract market. */
  book: optionalKey(Schema.NullOr(Schema.Array(MarketBookSide))),
  /** `include=whales`. */
  whales: optionalKey(MarketWhales),
  /** `include=call`; null when there is no call or it was not ready within half a second. */
  call: optionalKey(Schema.NullOr(MarketCall)),
  /** `include=history`; null on a multi-contract market. */
  history: optionalKey(Schema.NullOr(MarketHistory)),
  /** `include=trades`: the newest 40 whale buys. */
  trades: optionalKey(Schema.Array(TradeRow)),
}).annotations({ identifier: "MarketDetail" })
export type MarketDetail = typeof MarketDetail.Type
