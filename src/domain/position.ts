// The whale position row of List Positions: one side of one market held by traders with a winning
// record, with its holders, money split, last-hour activity and measured record. Output shape only.
import { Schema } from "effect"
import { Count, Price, Share, Signed, Usd, UtcTime } from "./limits.js"
import { MarketObject } from "./market-object.js"
import { TraderSummary } from "./trader-summary.js"

/** A holder: trader summary fields plus the dollars on this side and the average price paid. */
export const Holder = Schema.Struct({
  ...TraderSummary.fields,
  usd: Usd,
  entryPrice: Schema.NullOr(Price),
}).annotations({ identifier: "Holder" })
export type Holder = typeof Holder.Type

/** Winning traders' money on this side against the other sides. */
export const PositionSplit = Schema.Struct({
  sameSideUsd: Usd,
  otherSideUsd: Usd,
  otherSideTraders: Count,
})
export type PositionSplit = typeof PositionSplit.Type

/** The last hour of the market; each figure null without a reading. */
export const PositionActivity = Schema.Struct({
  /** Change of the price over the hour (signed, in dollars of price). */
  move1h: Schema.NullOr(Signed),
  volume1h: Schema.NullOr(Usd),
})
export type PositionActivity = typeof PositionActivity.Type

/** Measured record of similar bets at this price. */
export const PositionRecord = Schema.Struct({
  settled: Count,
  winRate: Share,
  /** The highest price at which the record says the bet was worth buying. */
  maxPrice: Price,
})
export type PositionRecord = typeof PositionRecord.Type

export const WhalePositionRow = Schema.Struct({
  market: MarketObject,
  /** Side held. */
  outcome: Schema.String,
  /** Venue's wording when Yes/No alone says too little. */
  outcomeLabel: Schema.NullOr(Schema.String),
  /** Average price paid by all holders (dollars divided by contracts). */
  entryPrice: Schema.NullOr(Price),
  /** Current price; null when nothing traded recently. */
  price: Schema.NullOr(Price),
  priceAt: Schema.NullOr(UtcTime),
  /** Dollars on the side; on venues that do not name traders, the sum of large buys. */
  usd: Usd,
  openedAt: UtcTime,
  lastBoughtAt: UtcTime,
  /** Biggest holder; null on venues that do not name traders. */
  lead: Schema.NullOr(Holder),
  others: Schema.Array(Holder),
  split: PositionSplit,
  activity: Schema.NullOr(PositionActivity),
  record: Schema.NullOr(PositionRecord),
}).annotations({ identifier: "WhalePositionRow" })
export type WhalePositionRow = typeof WhalePositionRow.Type
