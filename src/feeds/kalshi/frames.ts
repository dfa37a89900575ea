// Kalshi WebSocket v2 wire frames, shared by venue_a and venue_d. These Schemas document every
// payload generation and type the simulator's encoders; `decode.ts` checks the same facts by hand.
//
// Wire facts (venues.md §3): envelope `{type, sid, seq, msg}`, `seq` per subscription; books are
// bids only per side (yes ask = 1 − best no bid); `orderbook_delta` carries a signed change, not a
// total. Three payload generations: (1) integer cents and counts (`yes`/`no`, `price`, `delta`,
// `yes_price`, `count`); (2) dual, legacy plus `*_dollars` / `*_fp` (real frames, Feb 2026);
// (3) fixed point only (since 2026-03-12). The decoder prefers `_fp` / `_dollars` and falls back.
// Prices have up to 4 decimals ("0.1200"), counts 2 decimals; `ts` is epoch seconds, `ts_ms` ms.
//
// Conventions of whalewatch (not in the real venue; our simulator sends them):
// - venue_a trade frames carry the taker's public handle as `msg.taker_handle` (venue_d never does,
//   and venue_d's decoder ignores it if present).
// - `market_lifecycle_v2` `created` carries `additional_metadata.category` and `.kind` (the spec's
//   words; a real Kalshi series category such as "Crypto" or "Economics" is also understood),
//   `.series_ticker` (the repeating series, if any) and `.event_title`; the real fields `title`,
//   `rules_primary`, `event_ticker`, `yes_sub_title` / `no_sub_title` (outcome labels) are used as is.
// - Void: `determined` or `settled` with `result` "void" or "" (no result), or `is_void: true`
//   (`settlement_value` "0.5000" conventionally) → MarketVoided. `result` yes / no → MarketSettled
//   (both `determined` and `settled` yield it; consumers treat a repeat as a no-op). A `scalar`
//   result settles yes at "1.0000", no at "0.0000", and is rejected otherwise (not binary).
// - `closed` (our simulator's explicit close; the real venue closes by time, without a message) →
//   MarketClosed. `deactivated` (trading paused until `activated`) is not a close: nothing.
import { Schema } from "effect"

/** `"0.5600"`: dollars as text, up to 4 decimals. */
export const DollarText = Schema.String
/** `"136.00"`: fixed-point count as text, 2 decimals. */
export const CountText = Schema.String
export const KalshiSide = Schema.Literal("yes", "no")
export type KalshiSide = typeof KalshiSide.Type

/** Any envelope: `seq` is present on sequenced channels (books; trades in real frames). */
export const kalshiEnvelope = <T extends string, M extends Schema.Schema.Any>(type: T, msg: M) =>
  Schema.Struct({ type: Schema.Literal(type), sid: Schema.Number, seq: Schema.optional(Schema.Number), msg })

// --- orderbook_snapshot -----------------------------------------------------------------------

/** Generation 3 (current): `[price_text, count_text]` levels; a key is absent when its side is empty. */
export const KalshiSnapshotFp = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  yes_dollars_fp: Schema.optional(Schema.Array(Schema.Tuple(DollarText, CountText))),
  no_dollars_fp: Schema.optional(Schema.Array(Schema.Tuple(DollarText, CountText))),
})
export type KalshiSnapshotFp = typeof KalshiSnapshotFp.Type

/** Generation 2: `[price_text, integer_count]` levels (alongside the generation 1 arrays). */
export const KalshiSnapshotDollars = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  yes: Schema.optional(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number))),
  no: Schema.optional(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number))),
  yes_dollars: Schema.optional(Schema.Array(Schema.Tuple(DollarText, Schema.Number))),
  no_dollars: Schema.optional(Schema.Array(Schema.Tuple(DollarText, Schema.Number))),
})
export type KalshiSnapshotDollars = typeof KalshiSnapshotDollars.Type

/** Generation 1: `[cents, count]` integer levels. */
export const KalshiSnapshotCents = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  yes: Schema.optional(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number))),
  no: Schema.optional(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number))),
})
export type KalshiSnapshotCents = typeof KalshiSnapshotCents.Type

export const KalshiSnapshotMsg = Schema.Union(KalshiSnapshotFp, KalshiSnapshotDollars, KalshiSnapshotCents)
export type KalshiSnapshotMsg = typeof KalshiSnapshotMsg.Type
export const KalshiOrderbookSnapshot = kalshiEnvelope("orderbook_snapshot", KalshiSnapshotMsg)
export type KalshiOrderbookSnapshot = typeof KalshiOrderbookSnapshot.Type

// --- orderbook_delta --------------------------------------------------------------------------

/** Current: signed `delta_fp` at `price_dollars` on one side's bids. */
export const KalshiDeltaFp = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  price_dollars: DollarText,
  delta_fp: CountText,
  side: KalshiSide,
  ts_ms: Schema.optional(Schema.Number),
  /** RFC 3339, deprecated. */
  ts: Schema.optional(Schema.String),
  client_order_id: Schema.optional(Schema.String),
  subaccount: Schema.optional(Schema.Number),
})
export type KalshiDeltaFp = typeof KalshiDeltaFp.Type

/** Legacy: integer `price` (cents) and `delta`. */
export const KalshiDeltaCents = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  price: Schema.Number,
  delta: Schema.Number,
  side: KalshiSide,
  ts: Schema.optional(Schema.String),
})
export type KalshiDeltaCents = typeof KalshiDeltaCents.Type

export const KalshiDeltaMsg = Schema.Union(KalshiDeltaFp, KalshiDeltaCents)
export type KalshiDeltaMsg = typeof KalshiDeltaMsg.Type
export const KalshiOrderbookDelta = kalshiEnvelope("orderbook_delta", KalshiDeltaMsg)
export type KalshiOrderbookDelta = typeof KalshiOrderbookDelta.Type

// --- trade ------------------------------------------------------------------------------------

/** Current trade. `taker_outcome_side` is the outcome the taker profits from; `taker_side` is its deprecated name. */
export const KalshiTradeFp = Schema.Struct({
  trade_id: Schema.String,
  market_ticker: Schema.String,
  yes_price_dollars: DollarText,
  no_price_dollars: DollarText,
  count_fp: CountText,
  taker_outcome_side: Schema.optional(KalshiSide),
  taker_book_side: Schema.optional(Schema.Literal("bid", "ask")),
  taker_side: Schema.optional(KalshiSide),
  is_block_trade: Schema.optional(Schema.Boolean),
  ts: Schema.optional(Schema.Number),
  ts_ms: Schema.optional(Schema.Number),
  /** venue_a only (whalewatch convention): the taker's public handle. */
  taker_handle: Schema.optional(Schema.String),
})
export type KalshiTradeFp = typeof KalshiTradeFp.Type

/** Transition era (real frames, Feb 2026): legacy integers plus `*_dollars` / `count_fp`. */
export const KalshiTradeDual = Schema.Struct({
  trade_id: Schema.String,
  market_ticker: Schema.String,
  yes_price: Schema.Number,
  no_price: Schema.Number,
  yes_price_dollars: DollarText,
  no_price_dollars: DollarText,
  count: Schema.Number,
  count_fp: CountText,
  taker_side: KalshiSide,
  ts: Schema.Number,
  taker_handle: Schema.optional(Schema.String),
})
export type KalshiTradeDual = typeof KalshiTradeDual.Type

/** Generation 1: cents and integer counts. */
export const KalshiTradeCents = Schema.Struct({
  trade_id: Schema.String,
  market_ticker: Schema.String,
  yes_price: Schema.Number,
  no_price: Schema.Number,
  count: Schema.Number,
  taker_side: KalshiSide,
  ts: Schema.Number,
  taker_handle: Schema.optional(Schema.String),
})
export type KalshiTradeCents = typeof KalshiTradeCents.Type

export const KalshiTradeMsg = Schema.Union(KalshiTradeFp, KalshiTradeDual, KalshiTradeCents)
export type KalshiTradeMsg = typeof KalshiTradeMsg.Type
export const KalshiTrade = kalshiEnvelope("trade", KalshiTradeMsg)
export type KalshiTrade = typeof KalshiTrade.Type

// --- ticker -----------------------------------------------------------------------------------

export const KalshiTickerFp = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  price_dollars: Schema.optional(DollarText),
  yes_bid_dollars: Schema.optional(DollarText),
  yes_ask_dollars: Schema.optional(DollarText),
  volume_fp: Schema.optional(CountText),
  open_interest_fp: Schema.optional(CountText),
  yes_bid_size_fp: Schema.optional(CountText),
  yes_ask_size_fp: Schema.optional(CountText),
  last_trade_size_fp: Schema.optional(CountText),
  ts: Schema.optional(Schema.Number),
  ts_ms: Schema.optional(Schema.Number),
})
export type KalshiTickerFp = typeof KalshiTickerFp.Type

export const KalshiTickerCents = Schema.Struct({
  market_ticker: Schema.String,
  market_id: Schema.optional(Schema.String),
  price: Schema.optional(Schema.Number),
  yes_bid: Schema.optional(Schema.Number),
  yes_ask: Schema.optional(Schema.Number),
  volume: Schema.optional(Schema.Number),
  open_interest: Schema.optional(Schema.Number),
  ts: Schema.Number,
})
export type KalshiTickerCents = typeof KalshiTickerCents.Type

export const KalshiTickerMsg = Schema.Union(KalshiTickerFp, KalshiTickerCents)
export type KalshiTickerMsg = typeof KalshiTickerMsg.Type
export const KalshiTicker = kalshiEnvelope("ticker", KalshiTickerMsg)
export type KalshiTicker = typeof KalshiTicker.Type

// --- market_lifecycle_v2 ----------------------------------------------------------------------

export const KalshiLifecycleEventType = Schema.Literal(
  "created", "activated", "deactivated", "close_date_updated", "determined", "settled",
  "price_level_structure_updated", "metadata_updated",
  /** whalewatch convention: the simulator's explicit close. */
  "closed",
)
export type KalshiLifecycleEventType = typeof KalshiLifecycleEventType.Type

export const KalshiAdditionalMetadata = Schema.Struct({
  name: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  yes_sub_title: Schema.optional(Schema.String),
  no_sub_title: Schema.optional(Schema.String),
  rules_primary: Schema.optional(Schema.String),
  event_ticker: Schema.optional(Schema.String),
  expected_expiration_ts: Schema.optional(Schema.Number),
  strike_type: Schema.optional(Schema.String),
  floor_strike: Schema.optional(Schema.Number),
  // whalewatch conventions (see the file's top).
  event_title: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.String),
  series_ticker: Schema.optional(Schema.String),
})
export type KalshiAdditionalMetadata = typeof KalshiAdditionalMetadata.Type

export const KalshiLifecycleMsg = Schema.Struct({
  market_ticker: Schema.String,
  event_type: KalshiLifecycleEventType,
  exchange_index: Schema.optional(Schema.Number),
  /** Epoch seconds. */
  open_ts: Schema.optional(Schema.Number),
  close_ts: Schema.optional(Schema.Number),
  /** yes | no | scalar | "" (none) | "void" (whalewatch). */
  result: Schema.optional(Schema.String),
  determination_ts: Schema.optional(Schema.Number),
  settlement_value: Schema.optional(DollarText),
  settled_ts: Schema.optional(Schema.Number),
  is_deactivated: Schema.optional(Schema.Boolean),
  /** whalewatch convention: the market was voided. */
  is_void: Schema.optional(Schema.Boolean),
  price_level_structure: Schema.optional(Schema.String),
  additional_metadata: Schema.optional(KalshiAdditionalMetadata),
})
export type KalshiLifecycleMsg = typeof KalshiLifecycleMsg.Type
export const KalshiMarketLifecycle = kalshiEnvelope("market_lifecycle_v2", KalshiLifecycleMsg)
export type KalshiMarketLifecycle = typeof KalshiMarketLifecycle.Type

// --- control ----------------------------------------------------------------------------------

/** Command responses: decoded to nothing (the socket reads them itself), except `error`. */
export const KalshiControl = Schema.Struct({
  id: Schema.optional(Schema.Number),
  type: Schema.Literal("subscribed", "unsubscribed", "ok", "list_subscriptions", "error"),
  sid: Schema.optional(Schema.Number),
  seq: Schema.optional(Schema.Number),
  msg: Schema.optional(Schema.Unknown),
})
export type KalshiControl = typeof KalshiControl.Type

export const KalshiFrame = Schema.Union(
  KalshiOrderbookSnapshot, KalshiOrderbookDelta, KalshiTrade, KalshiTicker, KalshiMarketLifecycle, KalshiControl,
)
export type KalshiFrame = typeof KalshiFrame.Type
