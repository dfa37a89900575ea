// Thresholds of whale intelligence: what counts as a whale trade, a move, a flip, a whales move, a
// winning trader and an exited position. Plain data with documented defaults; no I/O, no clock.
import type { Venue } from "../domain/enums.js"

export const MINUTE_MS = 60_000
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS

export interface IntelConfig {
  readonly whale: {
    /** A trade is a whale trade when its dollars reach this (inclusive). */
    readonly minUsd: number
    /** Per-venue override of `minUsd`. */
    readonly minUsdByVenue: Readonly<Partial<Record<Venue, number>>>
  }
  readonly agreement: {
    /** Look-back of `agreement`: other whale buys in (t − windowMs, t). */
    readonly windowMs: number
    /** How far behind the newest trade of a market an arriving trade may still be answered exactly. */
    readonly latenessMs: number
  }
  readonly move: {
    /** Yes price change, in points (1 point = 0.01), inclusive. */
    readonly minPoints: number
    /** The change happens within this many minutes, inclusive. */
    readonly withinMinutes: number
    /** The moved price holds (still at least `minPoints` away, same direction) this many minutes. */
    readonly holdMinutes: number
  }
  readonly flip: {
    /** The new favourite holds (Yes stays on the new side of 0.5) this many minutes. */
    readonly holdMinutes: number
  }
  readonly whales: {
    /** Distinct whales buying one side, inclusive. */
    readonly minTraders: number
    /** Within this many minutes (window [t − M, t]). */
    readonly withinMinutes: number
  }
  readonly records: {
    /** `winRate` and `return` are null below this many settled bets (spec: 10). */
    readonly minSettledForRates: number
    /** `bestKind` only considers kinds with at least this many settled bets. */
    readonly bestKindMinSettled: number
    /** Traders with fewer settled bets (whole record) are unranked. */
    readonly rankMinSettled: number
    /** How many similar traders to return. */
    readonly similarTop: number
  }
  readonly winning: {
    /** A winning record in a kind: at least this many settled bets ... */
    readonly minSettled: number
    /** ... a win rate of at least this ... */
    readonly minWinRate: number
    /** ... and profit strictly above this. */
    readonly minProfit: number
  }
  readonly positions: {
    /** A position is `exited` once this share of the bought contracts is sold (spec: 95 %). */
    readonly exitShare: number
  }
}

export const defaultIntelConfig: IntelConfig = {
  whale: { minUsd: 10_000, minUsdByVenue: {} },
  agreement: { windowMs: DAY_MS, latenessMs: HOUR_MS },
  move: { minPoints: 10, withinMinutes: 15, holdMinutes: 5 },
  flip: { holdMinutes: 5 },
  whales: { minTraders: 3, withinMinutes: 15 },
  records: { minSettledForRates: 10, bestKindMinSettled: 1, rankMinSettled: 1, similarTop: 5 },
  winning: { minSettled: 10, minWinRate: 0.55, minProfit: 0 },
  positions: { exitShare: 0.95 },
}

type Overrides<T> = { readonly [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] }

/** Defaults with some groups overridden one field at a time. */
export const intelConfig = (overrides: Overrides<IntelConfig> = {}): IntelConfig => ({
  whale: { ...defaultIntelConfig.whale, ...overrides.whale },
  agreement: { ...defaultIntelConfig.agreement, ...overrides.agreement },
  move: { ...defaultIntelConfig.move, ...overrides.move },
  flip: { ...defaultIntelConfig.flip, ...overrides.flip },
  whales: { ...defaultIntelConfig.whales, ...overrides.whales },
  records: { ...defaultIntelConfig.records, ...overrides.records },
  winning: { ...defaultIntelConfig.winning, ...overrides.winning },
  positions: { ...defaultIntelConfig.positions, ...overrides.positions },
})

export const whaleThreshold = (config: IntelConfig, venue: Venue): number =>
  config.whale.minUsdByVenue[venue] ?? config.whale.minUsd

export const isWhaleTrade = (config: IntelConfig, venue: Venue, usd: number): boolean =>
  Number.isFinite(usd) && usd >= whaleThreshold(config, venue)
