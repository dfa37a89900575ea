// Domain events emitted by market actors (src/actors/markets) and consumed by intelligence, bots,
// accounts and the stream. Past tense; venue-neutral refs (`<venue>:<contract>`, events
// `<venue>:event:<id>`); times are feed time in epoch ms. A reader needing the book or the bars takes
// the actor's current snapshot through the registry instead of receiving them here; only a trade or a
// price change that a follower will fill paper orders on carries the book as of its feed batch (`book`).
import type { Category, Kind, Venue } from "./enums.js"
import type { FeedTrader, Level } from "./feed-events.js"

/** One side of a contract: venue outcome id, spec `name` (venue_b: own name; else Yes/No) and `label`. */
export interface MarketSide {
  readonly id: string
  readonly name: string
  readonly label: string
}

/** What is known of a contract from its listing; persisted, and the `market` object of rows. */
export interface MarketInfo {
  readonly ref: string
  readonly venue: Venue
  readonly contract: string
  /** Event ref for a contract of a multi-contract event, else null. */
  readonly event: string | null
  readonly eventTitle: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  /** [Yes side, No side] (venue_b: first and second named outcome). */
  readonly sides: readonly [MarketSide, MarketSide]
  readonly rule: string | null
  readonly series: string | null
  readonly opensAt: number | null
  readonly closesAt: number | null
  readonly feeRate: number | null
  readonly listedAt: number
}

export type MarketLifecycle = "open" | "closed" | "settled" | "void"

export interface BookSideView {
  readonly side: MarketSide
  /** Best first. */
  readonly bids: ReadonlyArray<Level>
  readonly asks: ReadonlyArray<Level>
  readonly bestBid: Level | null
  readonly bestAsk: Level | null
}

/** Both sides' books of one contract, a copy: later changes to the book do not show in it. */
export interface BookView {
  readonly ref: string
  /** Venue time of the last book change; null before the first snapshot (or once retired). */
  readonly asOf: number | null
  /** [Yes side, No side]. */
  readonly sides: readonly [BookSideView, BookSideView]
}

export type MarketEvent =
  | { readonly _tag: "MarketOpened"; readonly ts: number; readonly market: MarketInfo }
  | {
    readonly _tag: "BookChanged"
    readonly ts: number
    readonly ref: string
    /** The book at the end of the feed batch, when a follower keeps the contract's book in feed order (MarketsService.watchBooks). */
    readonly book?: BookView
  }
  /** Yes price moved (last trade, or mid of the Yes book when it changes and no trade printed since). */
  | {
    readonly _tag: "PriceChanged"
    readonly ts: number
    readonly ref: string
    readonly yesPrice: number
    /** The book at the end of the feed batch that moved the price, when a follower watches the contract (MarketsService.watchBooks). */
    readonly book?: BookView
  }
  | {
    readonly _tag: "TradePrinted"
    readonly ts: number
    readonly ref: string
    /** Venue trade id (or derived), unique within the contract. */
    readonly tradeId: string
    readonly txId: string | null
    readonly side: MarketSide
    readonly action: "buy" | "sell"
    readonly price: number
    readonly contracts: number
    readonly usd: number
    /** Named trader where the venue names one (venue_b: joined from its trades feed by txId). */
    readonly trader: FeedTrader | null
    /** The book at the end of the feed batch that printed the trade, when a follower copies trades (MarketsService.watchBooks). */
    readonly book?: BookView
  }
  | { readonly _tag: "MarketClosed"; readonly ts: number; readonly ref: string }
  | { readonly _tag: "MarketSettled"; readonly ts: number; readonly ref: string; readonly winner: MarketSide }
  | { readonly _tag: "MarketVoided"; readonly ts: number; readonly ref: string }

export const marketRefOf = (venue: Venue, contract: string): string => `${venue}:${contract}`
export const eventRefOf = (venue: Venue, event: string): string => `${venue}:event:${event}`

/**
 * What is kept of a contract beyond its live book: its listing and lifecycle, the last trade's Yes
 * price and time. Persisted by ref (src/store/markets.ts); what a restart restores and what reads of a
 * retired (settled or void) market return.
 */
export interface MarketRecord {
  readonly info: MarketInfo
  readonly status: MarketLifecycle
  /** Winning side once settled, else null. */
  readonly winner: MarketSide | null
  readonly closedAt: number | null
  /** When it settled or was voided (feed time), else null. */
  readonly settledAt: number | null
  /** Yes price of the last trade. */
  readonly lastPrice: number | null
  readonly lastTradeAt: number | null
}

/**
 * Adds `ref` to an event's contract list in listing order (listing time, then ref), the order a restart
 * restores them in, so the event's outcomes and its `rule` (its first contract's) read the same before and
 * after one, whatever order the feed announced them in.
 */
export const insertByListing = (refs: Array<string>, ref: string, listedAtOf: (ref: string) => number): void => {
  if (refs.includes(ref)) return
  const at = listedAtOf(ref)
  let i = refs.length
  while (i > 0) {
    const before = refs[i - 1] as string
    const t = listedAtOf(before)
    if (t < at || (t === at && before < ref)) break
    i--
  }
  refs.splice(i, 0, ref)
}
