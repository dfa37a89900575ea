// venue_b wire frames: the Polymarket CLOB market channel (`/ws/market`) and the Data-API trades
// feed. These Schemas document the shapes (current generation first, then legacy) and type the
// simulator's encoders; the hot-path decoder (`decode.ts`) checks the same facts by hand.
//
// Wire facts the decoder relies on (see venues.md §1): prices and sizes are decimal strings
// ("0.456", ".48"); socket timestamps are epoch ms as strings (numbers accepted); a frame is one
// object or a JSON array of objects; the text `PONG` is the heartbeat answer; level order is never
// trusted (real `book` frames list bids ascending and asks descending).
//
// Conventions of whalewatch (the real venue has no such field; our simulator sends them):
// - `new_market` / `market_resolved` may carry `category` and `kind` (the spec's words, e.g.
//   "crypto" / "bitcoin") and `series` (repeating series id). Without them the decoder falls back on
//   `tags` matching a category or kind word case-insensitively ("Crypto", "NBA").
// - `new_market` may carry `start_date` / `end_date` (ISO 8601 or epoch ms) for open/close times,
//   and `description` (the resolution rule).
// - Void: a `market_resolved` with no winning asset (`winning_asset_id` empty, null or absent) is a
//   void, MarketVoided (the real venue's 50-50 resolution). The simulator sends it with
//   `winning_asset_id` "", `winning_outcome` "50-50" and `outcome_prices` ["0.5","0.5"]; the decoder
//   keys on the missing winner alone.
// - The trades feed is the Data-API `Trade` row, sent one row per frame or as an array of rows (the
//   `/trades` response body). `timestamp` is epoch **seconds**. `name` is a public name only when it
//   is not a wallet address (nor the Data-API's auto `<wallet>-<ms>` name); else `pseudonym`.
import { Schema } from "effect"

/** Decimal text as the venue sends it: "0.456", ".48", "219.217767". */
export const DecimalText = Schema.String
/** Epoch milliseconds, as a digit string (the venue's form) or a number. */
export const EpochMs = Schema.Union(Schema.String, Schema.Number)

export const VenueBLevel = Schema.Struct({ price: DecimalText, size: DecimalText })
export type VenueBLevel = typeof VenueBLevel.Type

/** Full book of one token. Real initial dumps sometimes omit `event_type` (detected by bids/asks). */
export const VenueBBook = Schema.Struct({
  event_type: Schema.optional(Schema.Literal("book")),
  asset_id: Schema.String,
  market: Schema.String,
  bids: Schema.Array(VenueBLevel),
  asks: Schema.Array(VenueBLevel),
  timestamp: EpochMs,
  hash: Schema.String,
  tick_size: Schema.optional(DecimalText),
  last_trade_price: Schema.optional(DecimalText),
})
export type VenueBBook = typeof VenueBBook.Type

/** Legacy book: `buys` / `sells` instead of `bids` / `asks`. */
export const VenueBLegacyBook = Schema.Struct({
  event_type: Schema.optional(Schema.Literal("book")),
  asset_id: Schema.String,
  market: Schema.String,
  buys: Schema.Array(VenueBLevel),
  sells: Schema.Array(VenueBLevel),
  timestamp: EpochMs,
  hash: Schema.String,
})
export type VenueBLegacyBook = typeof VenueBLegacyBook.Type

export const VenueBSide = Schema.Literal("BUY", "SELL")
export type VenueBSide = typeof VenueBSide.Type

/** One level change; `size` is the level's new aggregate ("0" removes it). BUY = bid, SELL = ask. */
export const VenueBPriceChangeEntry = Schema.Struct({
  asset_id: Schema.String,
  price: DecimalText,
  size: DecimalText,
  side: VenueBSide,
  hash: Schema.String,
  best_bid: DecimalText,
  best_ask: DecimalText,
})
export type VenueBPriceChangeEntry = typeof VenueBPriceChangeEntry.Type

/** Current `price_change` (since 2025-09-15): `asset_id` per entry. */
export const VenueBPriceChange = Schema.Struct({
  event_type: Schema.Literal("price_change"),
  market: Schema.String,
  timestamp: EpochMs,
  price_changes: Schema.Array(VenueBPriceChangeEntry),
})
export type VenueBPriceChange = typeof VenueBPriceChange.Type

/** Legacy `price_change`: top-level `asset_id` and `hash`, `changes[]` without best bid/ask. */
export const VenueBLegacyPriceChange = Schema.Struct({
  event_type: Schema.Literal("price_change"),
  asset_id: Schema.String,
  market: Schema.String,
  timestamp: EpochMs,
  hash: Schema.optional(Schema.String),
  changes: Schema.Array(Schema.Struct({ price: DecimalText, side: VenueBSide, size: DecimalText })),
})
export type VenueBLegacyPriceChange = typeof VenueBLegacyPriceChange.Type

/** A match; `side` is the taker's side. No trader identity: join the trades feed by `transaction_hash`. */
export const VenueBLastTradePrice = Schema.Struct({
  event_type: Schema.Literal("last_trade_price"),
  asset_id: Schema.String,
  market: Schema.String,
  price: DecimalText,
  size: DecimalText,
  side: VenueBSide,
  fee_rate_bps: Schema.optional(DecimalText),
  timestamp: EpochMs,
  transaction_hash: Schema.optional(Schema.String),
})
export type VenueBLastTradePrice = typeof VenueBLastTradePrice.Type

export const VenueBTickSizeChange = Schema.Struct({
  event_type: Schema.Literal("tick_size_change"),
  asset_id: Schema.String,
  market: Schema.String,
  old_tick_size: DecimalText,
  new_tick_size: DecimalText,
  timestamp: EpochMs,
})
export type VenueBTickSizeChange = typeof VenueBTickSizeChange.Type

/** Custom feature; the decoder ignores it (the book already says it, per token). */
export const VenueBBestBidAsk = Schema.Struct({
  event_type: Schema.Literal("best_bid_ask"),
  asset_id: Schema.String,
  market: Schema.String,
  best_bid: DecimalText,
  best_ask: DecimalText,
  spread: DecimalText,
  timestamp: EpochMs,
})
export type VenueBBestBidAsk = typeof VenueBBestBidAsk.Type

export const VenueBFeeSchedule = Schema.Struct({
  exponent: Schema.Union(Schema.String, Schema.Number),
  rate: Schema.Union(Schema.String, Schema.Number),
  taker_only: Schema.optional(Schema.Boolean),
  rebate_rate: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
})
export type VenueBFeeSchedule = typeof VenueBFeeSchedule.Type

export const VenueBEventMessage = Schema.Struct({
  id: Schema.Union(Schema.String, Schema.Number),
  ticker: Schema.optional(Schema.String),
  slug: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
})
export type VenueBEventMessage = typeof VenueBEventMessage.Type

const marketFields = {
  id: Schema.Union(Schema.String, Schema.Number),
  question: Schema.String,
  /** Condition id: whalewatch's contract id. */
  market: Schema.String,
  slug: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  /** Token ids, in the order of `outcomes` (Yes/Up first). */
  assets_ids: Schema.Tuple(Schema.String, Schema.String),
  outcomes: Schema.Tuple(Schema.String, Schema.String),
  event_message: Schema.optional(VenueBEventMessage),
  tags: Schema.optional(Schema.Array(Schema.String)),
  condition_id: Schema.optional(Schema.String),
  active: Schema.optional(Schema.Boolean),
  order_price_min_tick_size: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  fees_enabled: Schema.optional(Schema.Boolean),
  fee_schedule: Schema.optional(VenueBFeeSchedule),
  timestamp: Schema.optional(EpochMs),
  // whalewatch extensions (see the file's top).
  category: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.String),
  series: Schema.optional(Schema.String),
  start_date: Schema.optional(EpochMs),
  end_date: Schema.optional(EpochMs),
}

export const VenueBNewMarket = Schema.Struct({ event_type: Schema.Literal("new_market"), ...marketFields })
export type VenueBNewMarket = typeof VenueBNewMarket.Type

export const VenueBMarketResolved = Schema.Struct({
  event_type: Schema.Literal("market_resolved"),
  ...marketFields,
  /** Winning token id; empty or absent = void (see the file's top). */
  winning_asset_id: Schema.optional(Schema.String),
  /** Winning outcome name; "50-50" on a void. */
  winning_outcome: Schema.String,
  /** Final price per outcome, in the order of `outcomes` (["0.5","0.5"] on a void). */
  outcome_prices: Schema.optional(Schema.Array(DecimalText)),
})
export type VenueBMarketResolved = typeof VenueBMarketResolved.Type

/** Any object of the market channel, current or legacy. */
export const VenueBMarketMessage = Schema.Union(
  VenueBBook, VenueBLegacyBook, VenueBPriceChange, VenueBLegacyPriceChange, VenueBLastTradePrice,
  VenueBTickSizeChange, VenueBBestBidAsk, VenueBNewMarket, VenueBMarketResolved,
)
export type VenueBMarketMessage = typeof VenueBMarketMessage.Type

/** The heartbeat answer, a plain text frame (the client sends `PING`). */
export const VENUE_B_PONG = "PONG"

/** One Data-API `Trade` row (the trades feed). Numbers are JSON numbers; digit strings are accepted. */
export const VenueBTradeRow = Schema.Struct({
  proxyWallet: Schema.String,
  side: VenueBSide,
  /** Token id (outcome). */
  asset: Schema.String,
  /** Condition id (contract). */
  conditionId: Schema.String,
  size: Schema.Number,
  price: Schema.Number,
  /** Epoch seconds. */
  timestamp: Schema.Number,
  title: Schema.String,
  slug: Schema.optional(Schema.String),
  eventSlug: Schema.optional(Schema.String),
  outcome: Schema.String,
  outcomeIndex: Schema.Number,
  name: Schema.String,
  pseudonym: Schema.String,
  transactionHash: Schema.String,
  /** Present on `/activity` rows; rows whose type is not TRADE are ignored. */
  type: Schema.optional(Schema.String),
})
export type VenueBTradeRow = typeof VenueBTradeRow.Type

/** What one text frame of either venue_b feed holds once parsed. */
export type VenueBFrame =
  | VenueBMarketMessage
  | ReadonlyArray<VenueBMarketMessage>
  | VenueBTradeRow
  | ReadonlyArray<VenueBTradeRow>
