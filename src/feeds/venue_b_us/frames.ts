// venue_b_us wire frames: the Polymarket US markets socket (`/v1/ws/markets`). These Schemas
// document the shapes and type the simulator's encoders; `decode.ts` checks the same facts by hand.
//
// Wire facts (venues.md §2): prices are `{value, currency}` objects with decimal text values; sizes
// are decimal text; `bids` / `offers` are best-first (the decoder does not rely on it); times are
// ISO 8601 text; no trader identity anywhere. The docs disagree on casing: the markets page and the
// official TS SDK use camelCase and string enums, the overview page snake_case and numeric enums.
// Both are accepted (`CamelCase` types below are the current generation; `Snake` the variant).
//
// Conventions of whalewatch:
// - Contract id = `marketSlug`; outcomes are "yes" (long) and "no" (short). A book frame is the long
//   side's book; the short side's book is derived (no bid = 1 − yes offer, no ask = 1 − yes bid).
// - A trade's `price` is the long (Yes) price. The taker's `intent` names the outcome and action:
//   BUY_LONG = buy yes at p, SELL_LONG = sell yes at p, BUY_SHORT = buy no at 1 − p, SELL_SHORT =
//   sell no at 1 − p; without an intent, the taker's `side` BUY / SELL acts on yes. Numeric enums
//   (snake variant) are read as protobuf order: side 1 BUY, 2 SELL; intent 1 BUY_LONG,
//   2 SELL_LONG, 3 BUY_SHORT, 4 SELL_SHORT (0 = unspecified).
// - An optional `tradeId` (`trade_id`) names the print; without it the decoder derives one.
// - A book frame whose `state` is closed-like (CLOSED, HALTED, SUSPENDED, EXPIRED, SETTLED,
//   TERMINATED) also yields MarketClosed.
//
// Extensions (the real socket has no listing or result message; our simulator carries them on
// `marketData` / `market_data` as extra fields, which a real client ignores; camelCase keys in both):
// - `market` (VenueBUsListing): the listing — title, category / kind (spec words, else matched like
//   venue_b's tags), series, outcome names and labels, event {slug, title}, startTime / endTime (ISO
//   8601 or epoch ms). Any frame carrying it yields MarketListed (before the books); it is sent at
//   listing and on every subscription's first frame, so a repeated listing is an upsert downstream.
//   Outcome ids stay "yes" / "no" whatever the listing says; its `outcomes[0]` names the long side.
// - `settlement: {result: "yes" | "no" | "void"}` (with state MARKET_STATE_SETTLED): the result.
//   "yes" / "no" yield MarketSettled with that winner, "void" MarketVoided (after MarketClosed).
import { Schema } from "effect"

export const VenueBUsMoney = Schema.Struct({ value: Schema.String, currency: Schema.String })
export type VenueBUsMoney = typeof VenueBUsMoney.Type

export const VenueBUsLevel = Schema.Struct({ px: VenueBUsMoney, qty: Schema.String })
export type VenueBUsLevel = typeof VenueBUsLevel.Type

export const VenueBUsStats = Schema.Struct({
  lastTradePx: Schema.optional(VenueBUsMoney),
  sharesTraded: Schema.optional(Schema.String),
  openInterest: Schema.optional(Schema.String),
  highPx: Schema.optional(VenueBUsMoney),
  lowPx: Schema.optional(VenueBUsMoney),
})
export type VenueBUsStats = typeof VenueBUsStats.Type

export const VenueBUsMarketState = Schema.String // e.g. "MARKET_STATE_OPEN"

/** One side of the listing extension; `id` is informational (the decoder's ids are "yes" / "no"). */
export const VenueBUsListingOutcome = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  label: Schema.optional(Schema.String),
})
export type VenueBUsListingOutcome = typeof VenueBUsListingOutcome.Type

/** Extension (see the file's top): the listing of the market, carried on `marketData.market`. */
export const VenueBUsListing = Schema.Struct({
  slug: Schema.optional(Schema.String),
  title: Schema.String,
  category: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.String),
  series: Schema.optional(Schema.NullOr(Schema.String)),
  /** Long (yes) side first. */
  outcomes: Schema.optional(Schema.Array(VenueBUsListingOutcome)),
  event: Schema.optional(Schema.NullOr(Schema.Struct({ slug: Schema.String, title: Schema.optional(Schema.String) }))),
  /** ISO 8601 text or epoch ms. */
  startTime: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  endTime: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  /** The resolution rule, when known. */
  rule: Schema.optional(Schema.String),
})
export type VenueBUsListing = typeof VenueBUsListing.Type

export const VenueBUsSettlementResult = Schema.Literal("yes", "no", "void")
export type VenueBUsSettlementResult = typeof VenueBUsSettlementResult.Type

/** Extension (see the file's top): the market's result, carried on `marketData.settlement`. */
export const VenueBUsSettlement = Schema.Struct({ result: VenueBUsSettlementResult })
export type VenueBUsSettlement = typeof VenueBUsSettlement.Type

/** Full book of one market (the long side). */
export const VenueBUsMarketData = Schema.Struct({
  marketSlug: Schema.String,
  bids: Schema.Array(VenueBUsLevel),
  offers: Schema.Array(VenueBUsLevel),
  state: Schema.optional(VenueBUsMarketState),
  stats: Schema.optional(VenueBUsStats),
  transactTime: Schema.String,
  // whalewatch extensions (see the file's top).
  market: Schema.optional(VenueBUsListing),
  settlement: Schema.optional(VenueBUsSettlement),
})
export type VenueBUsMarketData = typeof VenueBUsMarketData.Type

export const VenueBUsMarketDataFrame = Schema.Struct({
  requestId: Schema.optional(Schema.String),
  subscriptionType: Schema.optional(Schema.String),
  marketData: VenueBUsMarketData,
})
export type VenueBUsMarketDataFrame = typeof VenueBUsMarketDataFrame.Type

export const VenueBUsOrderSide = Schema.Literal("ORDER_SIDE_BUY", "ORDER_SIDE_SELL")
export type VenueBUsOrderSide = typeof VenueBUsOrderSide.Type
export const VenueBUsOrderIntent = Schema.Literal(
  "ORDER_INTENT_BUY_LONG", "ORDER_INTENT_SELL_LONG", "ORDER_INTENT_BUY_SHORT", "ORDER_INTENT_SELL_SHORT",
)
export type VenueBUsOrderIntent = typeof VenueBUsOrderIntent.Type

export const VenueBUsParty = Schema.Struct({ side: VenueBUsOrderSide, intent: Schema.optional(VenueBUsOrderIntent) })
export type VenueBUsParty = typeof VenueBUsParty.Type

export const VenueBUsTrade = Schema.Struct({
  marketSlug: Schema.String,
  tradeId: Schema.optional(Schema.String),
  price: VenueBUsMoney,
  quantity: VenueBUsMoney,
  tradeTime: Schema.String,
  maker: Schema.optional(VenueBUsParty),
  taker: VenueBUsParty,
})
export type VenueBUsTrade = typeof VenueBUsTrade.Type

export const VenueBUsTradeFrame = Schema.Struct({
  requestId: Schema.optional(Schema.String),
  subscriptionType: Schema.optional(Schema.String),
  trade: VenueBUsTrade,
})
export type VenueBUsTradeFrame = typeof VenueBUsTradeFrame.Type

export const VenueBUsHeartbeat = Schema.Struct({ heartbeat: Schema.Struct({}) })
export type VenueBUsHeartbeat = typeof VenueBUsHeartbeat.Type

export const VenueBUsError = Schema.Struct({ requestId: Schema.optional(Schema.String), error: Schema.Unknown })
export type VenueBUsError = typeof VenueBUsError.Type

// The snake_case variant (overview page): same content, snake keys, numeric enums.
const SnakeParty = Schema.Struct({
  side: Schema.Union(Schema.Number, VenueBUsOrderSide),
  intent: Schema.optional(Schema.Union(Schema.Number, VenueBUsOrderIntent)),
})

export const VenueBUsSnakeMarketDataFrame = Schema.Struct({
  request_id: Schema.optional(Schema.String),
  subscription_type: Schema.optional(Schema.Number),
  market_data: Schema.Struct({
    market_slug: Schema.String,
    bids: Schema.Array(VenueBUsLevel),
    offers: Schema.Array(VenueBUsLevel),
    state: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    transact_time: Schema.String,
    market: Schema.optional(VenueBUsListing),
    settlement: Schema.optional(VenueBUsSettlement),
  }),
})
export type VenueBUsSnakeMarketDataFrame = typeof VenueBUsSnakeMarketDataFrame.Type

export const VenueBUsSnakeTradeFrame = Schema.Struct({
  request_id: Schema.optional(Schema.String),
  subscription_type: Schema.optional(Schema.Number),
  trade: Schema.Struct({
    market_slug: Schema.String,
    trade_id: Schema.optional(Schema.String),
    price: VenueBUsMoney,
    quantity: VenueBUsMoney,
    trade_time: Schema.String,
    maker: Schema.optional(SnakeParty),
    taker: SnakeParty,
  }),
})
export type VenueBUsSnakeTradeFrame = typeof VenueBUsSnakeTradeFrame.Type

export const VenueBUsFrame = Schema.Union(
  VenueBUsMarketDataFrame, VenueBUsTradeFrame, VenueBUsHeartbeat, VenueBUsError,
  VenueBUsSnakeMarketDataFrame, VenueBUsSnakeTradeFrame,
)
export type VenueBUsFrame = typeof VenueBUsFrame.Type
