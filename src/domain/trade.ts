// The trade row: one whale trade as List Trades, the stream's `trade` frame and Get Market `trades`
// show it, with its 24-hour `agreement`. Output shape only; operations build it from stored trades.
import { Schema } from "effect"
import { TradeAction, TradeEntry, TradeResult } from "./enums.js"
import { Contracts, Count, Price, Signed, Usd, UtcTime } from "./limits.js"
import { MarketObject } from "./market-object.js"
import { TraderSummary } from "./trader-summary.js"

/** Other whale trades on the market in the 24 hours before this one, on one side. */
export const AgreementSide = Schema.Struct({ trades: Count, usd: Usd })
export type AgreementSide = typeof AgreementSide.Type

export const Agreement = Schema.Struct({
  /** Buying the same side as this trade. */
  sameSide: AgreementSide,
  /** Buying the other side. */
  otherSide: AgreementSide,
})
export type Agreement = typeof Agreement.Type

export const TradeRow = Schema.Struct({
  /** Stable across listings and the stream. */
  id: Schema.String,
  /** Time on the venue. */
  time: UtcTime,
  market: MarketObject,
  /** Side by `name`. */
  outcome: Schema.String,
  action: TradeAction,
  /** Null when the venue does not say. */
  entry: Schema.NullOr(TradeEntry),
  price: Schema.NullOr(Price),
  usd: Schema.NullOr(Usd),
  contracts: Schema.NullOr(Contracts),
  /** Null on venues that do not name traders. */
  trader: Schema.NullOr(TraderSummary),
  agreement: Agreement,
  result: TradeResult,
  /** USD if held to settlement at the price paid; null while open. */
  profit: Schema.NullOr(Signed),
}).annotations({ identifier: "TradeRow" })
export type TradeRow = typeof TradeRow.Type
