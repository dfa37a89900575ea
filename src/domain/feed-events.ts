// FeedEvent: what every venue decoder produces and everything after the decoder consumes.
// Venue wire formats end at the decoder; these carry venue-native ids (`contract`, `outcome`) but
// neutral units: prices 0..1 as numbers, sizes in contracts, times in epoch milliseconds.
// `ts` is venue time; `receivedAt` is when the feed read the frame (replay moves the clock to it).
import { Schema } from "effect"
import { Category, Kind, Venue } from "./enums.js"

const Common = {
  venue: Venue,
  ts: Schema.Number,
  receivedAt: Schema.Number,
}

/** One side of a binary contract: `id` is the venue's outcome id (token id, or `yes`/`no`). */
export const FeedOutcome = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  label: Schema.String,
})
export type FeedOutcome = typeof FeedOutcome.Type

export const MarketListed = Schema.TaggedStruct("MarketListed", {
  ...Common,
  contract: Schema.String,
  /** Event id when the contract belongs to a multi-contract event, else null. */
  event: Schema.NullOr(Schema.String),
  eventTitle: Schema.NullOr(Schema.String),
  title: Schema.String,
  category: Schema.NullOr(Category),
  kind: Schema.NullOr(Kind),
  /** Exactly two sides, the first being Yes (or the venue's first named outcome). */
  outcomes: Schema.Tuple(FeedOutcome, FeedOutcome),
  rule: Schema.NullOr(Schema.String),
  /** Repeating series id when the market reopens on a clock, else null. */
  series: Schema.NullOr(Schema.String),
  opensAt: Schema.NullOr(Schema.Number),
  closesAt: Schema.NullOr(Schema.Number),
  /** Per-market taker fee rate where the venue has one (venue_b), else null. */
  feeRate: Schema.NullOr(Schema.Number),
})
export type MarketListed = typeof MarketListed.Type

export const Level = Schema.Struct({ price: Schema.Number, size: Schema.Number })
export type Level = typeof Level.Type

/** Full book of one outcome: bids and asks, in no particular order (decoders never trust order). */
export const BookSnapshot = Schema.TaggedStruct("BookSnapshot", {
  ...Common,
  contract: Schema.String,
  outcome: Schema.String,
  bids: Schema.Array(Level),
  asks: Schema.Array(Level),
})
export type BookSnapshot = typeof BookSnapshot.Type

export const BookChange = Schema.Struct({
  outcome: Schema.String,
  side: Schema.Literal("bid", "ask"),
  price: Schema.Number,
  /** `set`: the level's new total (0 removes it). `add`: a signed change to the level's size. */
  size: Schema.Number,
})
export type BookChange = typeof BookChange.Type

export const BookDelta = Schema.TaggedStruct("BookDelta", {
  ...Common,
  contract: Schema.String,
  mode: Schema.Literal("set", "add"),
  changes: Schema.Array(BookChange),
})
export type BookDelta = typeof BookDelta.Type

export const FeedTrader = Schema.Struct({
  /** Venue's stable id for the trader (handle, or wallet address). */
  id: Schema.String,
  /** Public name; never a wallet address. */
  name: Schema.NullOr(Schema.String),
})
export type FeedTrader = typeof FeedTrader.Type

export const TradePrinted = Schema.TaggedStruct("TradePrinted", {
  ...Common,
  contract: Schema.String,
  tradeId: Schema.String,
  /** Outcome the taker traded. */
  outcome: Schema.String,
  action: Schema.Literal("buy", "sell"),
  price: Schema.Number,
  contracts: Schema.Number,
  trader: Schema.NullOr(FeedTrader),
  txId: Schema.NullOr(Schema.String),
})
export type TradePrinted = typeof TradePrinted.Type

/** venue_b's separate trades feed: who was behind a transaction (joined to prints by `txId`). */
export const TradeAttributed = Schema.TaggedStruct("TradeAttributed", {
  ...Common,
  contract: Schema.String,
  outcome: Schema.String,
  txId: Schema.String,
  trader: FeedTrader,
  action: Schema.Literal("buy", "sell"),
  price: Schema.Number,
  contracts: Schema.Number,
})
export type TradeAttributed = typeof TradeAttributed.Type

/** Ticker-style summary (Kalshi `ticker`): last price and top of book of the Yes side. */
export const PriceReported = Schema.TaggedStruct("PriceReported", {
  ...Common,
  contract: Schema.String,
  price: Schema.NullOr(Schema.Number),
  bid: Schema.NullOr(Schema.Number),
  ask: Schema.NullOr(Schema.Number),
  volume: Schema.NullOr(Schema.Number),
})
export type PriceReported = typeof PriceReported.Type

export const TickSizeChanged = Schema.TaggedStruct("TickSizeChanged", {
  ...Common,
  contract: Schema.String,
  outcome: Schema.String,
  tickSize: Schema.Number,
})
export type TickSizeChanged = typeof TickSizeChanged.Type

export const MarketClosed = Schema.TaggedStruct("MarketClosed", { ...Common, contract: Schema.String })
export type MarketClosed = typeof MarketClosed.Type

export const MarketSettled = Schema.TaggedStruct("MarketSettled", {
  ...Common,
  contract: Schema.String,
  /** Winning outcome id. */
  winner: Schema.String,
})
export type MarketSettled = typeof MarketSettled.Type

export const MarketVoided = Schema.TaggedStruct("MarketVoided", { ...Common, contract: Schema.String })
export type MarketVoided = typeof MarketVoided.Type

/** The venue moved the contract's close time (Kalshi `close_date_updated`); the listing is otherwise unchanged. */
export const MarketRescheduled = Schema.TaggedStruct("MarketRescheduled", { ...Common, contract: Schema.String, closesAt: Schema.Number })
export type MarketRescheduled = typeof MarketRescheduled.Type

export const FeedEvent = Schema.Union(
  MarketListed, BookSnapshot, BookDelta, TradePrinted, TradeAttributed, PriceReported, TickSizeChanged,
  MarketClosed, MarketSettled, MarketVoided, MarketRescheduled,
)
export type FeedEvent = typeof FeedEvent.Type

/** A frame a decoder could not use: counted and logged once per `reason`, never thrown. */
export interface FrameRejected {
  readonly _tag: "FrameRejected"
  readonly venue: Venue
  readonly reason: string
}

/** What a decoder returns for one frame: events, and control facts for the socket (gaps). */
export interface Decoded {
  readonly events: ReadonlyArray<FeedEvent>
  readonly rejected: ReadonlyArray<FrameRejected>
}
