// The market object of the spec, embedded as `market` in trade, move, position, paper and bot rows.
// A leaf module of its own so that rows (trade.ts) and the market detail (market.ts, which embeds trade
// rows) can both use it without an import cycle. Output shape only; refs are plain strings here.
import { Schema } from "effect"
import { Category, Kind, Venue } from "./enums.js"

export const MarketObject = Schema.Struct({
  /** Usable in any `market` filter and in Get Market. */
  ref: Schema.String,
  /** The exact contract; equals `ref` on a single-contract market. */
  contract: Schema.NullOr(Schema.String),
  title: Schema.String,
  venue: Venue,
  /** Null when unclassified. */
  category: Schema.NullOr(Category),
  kind: Schema.NullOr(Kind),
}).annotations({ identifier: "MarketObject" })
export type MarketObject = typeof MarketObject.Type
