// The trader summary of the spec, embedded as `trader` in trade rows and spread into holders and
// whale rows. A leaf module so that trade, position, market and trader files share it without cycles.
import { Schema } from "effect"
import { Count, Share, Signed } from "./limits.js"

export const TraderSummary = Schema.Struct({
  /** Trader ref `<venue>:<handle>`; a plain string on output. */
  ref: Schema.String,
  /** Public name; a wallet address is never returned as a name. */
  name: Schema.NullOr(Schema.String),
  /** Share of settled bets won in the row's kind of market; null until 10 settled bets. */
  winRate: Schema.NullOr(Share),
  /** USD over the same bets. */
  profit: Schema.NullOr(Signed),
  /** Settled bets behind `winRate` and `profit`. */
  settled: Count,
}).annotations({ identifier: "TraderSummary" })
export type TraderSummary = typeof TraderSummary.Type
