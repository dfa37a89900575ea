// The spec's enumerations (venue, category, kind with its category, trade action, entry, result).
// Pure Schemas and lookup tables; no I/O.
import { Schema } from "effect"

export const VENUES = ["venue_a", "venue_b", "venue_b_us", "venue_d"] as const
export const Venue = Schema.Literal(...VENUES)
export type Venue = typeof Venue.Type

/** Only these venues name the trader behind a trade. */
export const NAMING_VENUES = ["venue_a", "venue_b"] as const satisfies ReadonlyArray<Venue>
export const namesTraders = (venue: Venue): boolean => venue === "venue_a" || venue === "venue_b"

export const CATEGORIES = ["sports", "politics", "crypto", "finance", "culture"] as const
export const Category = Schema.Literal(...CATEGORIES)
export type Category = typeof Category.Type

/** Each kind belongs to exactly one category. */
export const KINDS_BY_CATEGORY = {
  sports: [
    "nfl", "college_football", "nba", "wnba", "college_basketball", "basketball", "mlb", "nhl",
    "soccer", "tennis", "golf", "mma", "boxing", "motorsport", "cricket", "esports", "chess",
    "rugby", "olympics", "parlay", "other_sports",
  ],
  politics: ["us_elections", "us_politics", "world_politics", "other_politics"],
  crypto: ["bitcoin", "ethereum", "solana", "xrp", "other_crypto"],
  finance: ["fed_rates", "economic_data", "stocks_indices", "companies", "commodities", "fx", "other_finance"],
  culture: ["mentions", "weather", "entertainment", "tech_ai", "health", "other_culture"],
} as const

export type Kind = (typeof KINDS_BY_CATEGORY)[Category][number]
export const KINDS: ReadonlyArray<Kind> = CATEGORIES.flatMap((category) => KINDS_BY_CATEGORY[category])
export const Kind = Schema.Literal(...(KINDS as [Kind, ...Array<Kind>]))

const CATEGORY_OF_KIND: ReadonlyMap<Kind, Category> = new Map(
  CATEGORIES.flatMap((category) => KINDS_BY_CATEGORY[category].map((kind) => [kind, category] as const)),
)
export const categoryOfKind = (kind: Kind): Category => CATEGORY_OF_KIND.get(kind) as Category
export const kindBelongsTo = (kind: Kind, category: Category): boolean => CATEGORY_OF_KIND.get(kind) === category

export const TradeAction = Schema.Literal("buy", "sell")
export type TradeAction = typeof TradeAction.Type

export const TradeEntry = Schema.Literal("open", "add", "flip", "trim", "close")
export type TradeEntry = typeof TradeEntry.Type

export const TradeResult = Schema.Literal("open", "win", "loss", "void")
export type TradeResult = typeof TradeResult.Type

/** v1 platform identifiers (a superset of the v2 venues). */
export const Platform = Schema.Literal("venue_b", "venue_b_us", "venue_a", "venue_e", "venue_f", "venue_g", "venue_d")
export type Platform = typeof Platform.Type

export const Scope = Schema.Literal("read", "write")
export type Scope = typeof Scope.Type
