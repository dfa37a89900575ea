// The move row: a sharp Yes-price move, a change of favorite, or a burst of whale buying, as List Moves
// and the stream's `move` frame show it. Output shape only.
import { Schema } from "effect"
import { Count, Price, Usd, UtcTime } from "./limits.js"
import { MarketObject } from "./market-object.js"

/** `move`: Yes price moved sharply within minutes and held; `flip`: the favorite changed; `whales`: several whales bought one side. */
export const MoveType = Schema.Literal("move", "flip", "whales")
export type MoveType = typeof MoveType.Type

export const MoveRow = Schema.Struct({
  /** Stable across the listing and the stream. */
  id: Schema.String,
  /** When the move was recorded. */
  time: UtcTime,
  type: MoveType,
  market: MarketObject,
  /** On `move`, `Yes`; on `flip`, the new favorite; on `whales`, the side bought. */
  outcome: Schema.String,
  /** Yes price before a `move`; null for other types. */
  priceBefore: Schema.NullOr(Price),
  /** Yes price when recorded; null on a `whales` move with no price yet. */
  priceAfter: Schema.NullOr(Price),
  /** Duration of a `move`; null otherwise. */
  minutes: Schema.NullOr(Count),
  /** Whale count on `whales`; null otherwise. */
  traders: Schema.NullOr(Count),
  /** Dollars spent on `whales`; null otherwise. */
  usd: Schema.NullOr(Usd),
}).annotations({ identifier: "MoveRow" })
export type MoveRow = typeof MoveRow.Type
