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

/**
 * The market object with its fields in the Schema's order. A stored copy comes back from a jsonb column
 * with its keys in jsonb's order (shortest first), so without this an answer read back after a restart
 * (a key's replay, the account's positions) differs byte for byte from the same answer given before it.
 */
export const marketObjectInOrder = (o: MarketObject): MarketObject => ({
  ref: o.ref, contract: o.contract, title: o.title, venue: o.venue, category: o.category, kind: o.kind,
})
