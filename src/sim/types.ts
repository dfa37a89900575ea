// The simulator's model vocabulary: contracts, events (multi-contract groups), trades and the
// model events the encoders turn into each venue's frames. Venue-neutral; no wire field names.
import type { Category, Kind, Venue } from "../domain/enums.js"
import type { Book, Level, LevelChange } from "./book.js"
import type { SimTrader } from "./traders.js"

export interface SimOutcome {
  /** Venue outcome id: token id on venue_b, `yes`/`no` elsewhere. */
  readonly id: string
  readonly name: string
  readonly label: string
}

export type ContractStatus = "open" | "closed" | "settled" | "void"

/** Several binary contracts listed under one event. */
export interface SimGroup {
  readonly venue: Venue
  /** Venue event id: numeric id (venue_b), event slug (venue_b_us), event ticker (Kalshi). */
  readonly id: string
  /** `<venue>:event:<id>`. */
  readonly ref: string
  readonly slug: string
  readonly title: string
  /** Exactly one contract wins. */
  readonly exclusive: boolean
  readonly contracts: Array<SimContract>
}

export interface SimContract {
  readonly venue: Venue
  /** Venue-native contract id: condition id (venue_b), slug (venue_b_us), ticker (Kalshi). */
  readonly id: string
  /** `<venue>:<id>`. */
  readonly ref: string
  /** Venue's internal market id: numeric string (venue_b), uuid (Kalshi), slug (venue_b_us). */
  readonly marketId: string
  readonly slug: string
  /** Event the contract is listed under: a multi-contract group, or null. */
  readonly group: SimGroup | null
  /** Venue event id even for single contracts (Kalshi event ticker, Polymarket event id). */
  readonly eventId: string
  readonly eventSlug: string
  readonly eventTitle: string
  readonly title: string
  /** Short name inside the event (Kalshi `yes_sub_title`). */
  readonly item: string
  readonly category: Category
  readonly kind: Kind
  readonly outcomes: readonly [SimOutcome, SimOutcome]
  readonly series: string | null
  /** venue_b per-market taker fee rate, else null. */
  readonly feeRate: number | null
  readonly listedAt: number
  closesAt: number
  settlesAt: number
  /** Tick in thousandths (10 = 0.01, 1 = 0.001). */
  tick: number
  status: ContractStatus
  /** Hidden: index of the outcome that will win, and whether the listing will be voided. */
  result: 0 | 1
  voids: boolean
  /** Hidden driver of the first outcome's probability (see `SimModel.advancePath`) and its end point. */
  x: number
  readonly end: number
  /** Simulated time `x` was last advanced to. */
  xAt: number
  readonly book: Book
  /** Makers stop requoting once the control API set this book by hand. */
  makers: boolean
  nextQuoteAt: number
  /** Last trade price of the first outcome, ten-thousandths. */
  lastPrice: number | null
  /** Contracts traded, hundredths. */
  volume: number
  readonly heat: number
  winner: 0 | 1 | null
  endedAt: number | null
}

export interface SimTrade {
  /** Model-wide trade number; with `salt` it derives the trade id and transaction hash (`ids.ts`). */
  readonly seq: number
  readonly salt: number
  readonly ts: number
  /** Outcome index the taker traded. */
  readonly outcome: 0 | 1
  readonly action: "buy" | "sell"
  /** Volume-weighted price of the traded outcome, ten-thousandths. */
  readonly price: number
  /** Hundredths of a contract. */
  readonly contracts: number
  readonly trader: SimTrader
}

/** Top of the first outcome's book after an event, for ticker-style frames. */
export interface Top {
  readonly bid: number | null
  readonly ask: number | null
  readonly bidSize: number
  readonly askSize: number
}

export type ModelEvent =
  | { readonly type: "listed"; readonly ts: number; readonly contract: SimContract }
  | { readonly type: "book"; readonly ts: number; readonly contract: SimContract; readonly bids: ReadonlyArray<Level>; readonly asks: ReadonlyArray<Level> }
  | {
    readonly type: "book_change"; readonly ts: number; readonly contract: SimContract
    readonly changes: ReadonlyArray<LevelChange>
    /** The whole book after the change (best-first), for hashes and best bid/ask. */
    readonly bids: ReadonlyArray<Level>; readonly asks: ReadonlyArray<Level>
    /** The levels a trade took (venue_b then sends a fresh `book` too, as the real venue does). */
    readonly trade?: boolean
  }
  | { readonly type: "trade"; readonly ts: number; readonly contract: SimContract; readonly trade: SimTrade; readonly top: Top; readonly volume: number }
  | { readonly type: "tick_size"; readonly ts: number; readonly contract: SimContract; readonly old: number; readonly tick: number }
  | { readonly type: "closed"; readonly ts: number; readonly contract: SimContract }
  | { readonly type: "settled"; readonly ts: number; readonly contract: SimContract; readonly winner: 0 | 1 }
  | { readonly type: "voided"; readonly ts: number; readonly contract: SimContract }
