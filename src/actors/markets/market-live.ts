// The live state of one contract that is not a statechart: its book, its Yes price, its last trade and
// its one-minute bars, plus the pure reduction of resolved market inputs into MarketEvents. Plain and
// mutable, owned by one market actor (src/actors/markets/market.machine.ts), which calls `applyData`
// once per delivered batch. No clock, no I/O: every time is an input's own `ts`.
//
// Price rule (what PriceChanged means): the Yes price is the last trade's (a trade on the No side
// counts as 1 − price). Before the first trade the actor has seen, the venue's ticker price
// (PriceReported) or else the mid of the Yes book (1 − the No book's mid when the Yes book lacks a
// side) stands in; once a trade prints, only trades move it. PriceChanged is emitted whenever this
// Yes price changes value.
import type { BookDelta, BookSnapshot, FeedOutcome, MarketListed } from "../../domain/feed-events.js"
import { eventRefOf, marketRefOf, type MarketEvent, type MarketInfo, type MarketSide } from "../../domain/market-events.js"
import { Bars, DEFAULT_BARS_KEPT } from "./bars.js"
import { Book } from "./book.js"
import { round6 } from "../../numbers.js"

export type TradeEvent = Extract<MarketEvent, { readonly _tag: "TradePrinted" }>

/** What a market actor is fed: feed events already routed to it, checked and resolved to sides. A book event is fed as it came (no wrapper: one per delta). */
export type MarketInput =
  | BookSnapshot
  | BookDelta
  | { readonly _tag: "trade"; readonly trade: TradeEvent }
  /** The venue's own last price of the Yes side (ticker). */
  | { readonly _tag: "price"; readonly ts: number; readonly price: number }
  | { readonly _tag: "listed"; readonly info: MarketInfo }
  | { readonly _tag: "close"; readonly ts: number }
  | { readonly _tag: "settle"; readonly ts: number; readonly winner: MarketSide }
  | { readonly _tag: "void"; readonly ts: number }

/** Inputs that change the lifecycle or the listing: the statechart's business, not `applyData`'s. */
export type ControlInput = Extract<MarketInput, { readonly _tag: "listed" | "close" | "settle" | "void" }>

export const isControl = (input: MarketInput): input is ControlInput =>
  input._tag === "listed" || input._tag === "close" || input._tag === "settle" || input._tag === "void"

const side = (venue: MarketListed["venue"], outcome: FeedOutcome, index: 0 | 1): MarketSide => {
  // Spec: a side's name is the outcome's own name on venue_b, else Yes/No; the label is the venue's
  // wording (Kalshi's yes_sub_title), or the name when the venue has none.
  const name = venue === "venue_b" ? outcome.name : index === 0 ? "Yes" : "No"
  return { id: outcome.id, name, label: outcome.label === "" ? name : outcome.label }
}

/** MarketInfo of a listing; `listedAt` is kept from the first listing on an upsert. */
export const infoOf = (listing: MarketListed, listedAt: number = listing.ts): MarketInfo => ({
  ref: marketRefOf(listing.venue, listing.contract),
  venue: listing.venue,
  contract: listing.contract,
  event: listing.event === null ? null : eventRefOf(listing.venue, listing.event),
  eventTitle: listing.eventTitle,
  title: listing.title,
  category: listing.category,
  kind: listing.kind,
  sides: [side(listing.venue, listing.outcomes[0], 0), side(listing.venue, listing.outcomes[1], 1)],
  rule: listing.rule,
  series: listing.series,
  opensAt: listing.opensAt,
  closesAt: listing.closesAt,
  feeRate: listing.feeRate,
  listedAt,
})

/** The side an outcome id names, or null when the contract has no such outcome. */
export const sideOf = (info: MarketInfo, outcome: string): MarketSide | null =>
  info.sides[0].id === outcome ? info.sides[0] : info.sides[1].id === outcome ? info.sides[1] : null

/** The Yes price a trade implies. */
export const yesPriceOf = (info: MarketInfo, trade: TradeEvent): number =>
  trade.side.id === info.sides[0].id ? trade.price : round6(1 - trade.price)

const midOf = (bid: number | null, ask: number | null): number | null =>
  bid === null || ask === null ? null : round6((bid + ask) / 2)

export interface LiveStart {
  readonly lastPrice: number | null
  readonly lastTradeAt: number | null
  readonly barsKept?: number
}

export class MarketLive {
  readonly book = new Book()
  /** Created on the first observation: an idle market carries no bars. */
  private barsOf: Bars | null = null
  /** Yes price of the last trade. */
  lastPrice: number | null
  lastTradeAt: number | null
  /** Current Yes price (see the price rule above). */
  yesPrice: number | null
  /**
   * Feed time of the newest PriceChanged this actor emitted (or of the last trade it started from): a
   * price event at or before it was reported before now (what a market alert set now must not fire on).
   */
  yesPriceAt: number | null
  /** Venue time of the last book change applied. */
  bookAt: number | null = null
  private readonly barsKept: number

  constructor(start: LiveStart = { lastPrice: null, lastTradeAt: null }) {
    this.lastPrice = start.lastPrice
    this.lastTradeAt = start.lastTradeAt
    this.yesPrice = start.lastPrice
    this.yesPriceAt = start.lastTradeAt
    this.barsKept = start.barsKept ?? DEFAULT_BARS_KEPT
  }

  get bars(): Bars | null {
    return this.barsOf
  }

  private ensureBars(): Bars {
    if (this.barsOf === null) this.barsOf = new Bars(this.barsKept)
    return this.barsOf
  }

  /** Mid of the Yes book, or 1 − mid of the No book, or null. */
  yesMid(info: MarketInfo): number | null {
    const yes = info.sides[0].id
    const mid = midOf(this.book.bestPrice(yes, "bid"), this.book.bestPrice(yes, "ask"))
    if (mid !== null) return mid
    const no = info.sides[1].id
    const noMid = midOf(this.book.bestPrice(no, "bid"), this.book.bestPrice(no, "ask"))
    return noMid === null ? null : round6(1 - noMid)
  }

  /**
   * The last trade a history backfill saw (by another registry), when newer than this one's: it
   * becomes the last trade and the current price, as if this actor had seen it. True when it was taken.
   * An actor that had seen no trade priced the market by book mids and tickers (the fallback), which a
   * trade outranks: its bars, holding only those, go too (they would stand over history's bars of the
   * same minutes, in reads and in the store).
   */
  adoptLastTrade(price: number, at: number): boolean {
    if (this.lastTradeAt !== null && this.lastTradeAt >= at) return false
    if (this.lastTradeAt === null) this.barsOf = null
    this.lastPrice = price
    this.lastTradeAt = at
    this.yesPrice = price
    this.pricedAt(at)
    return true
  }

  /** A PriceChanged at `ts` was emitted (the newest kept: a late trade's is older). */
  pricedAt(ts: number): void {
    if (this.yesPriceAt === null || ts > this.yesPriceAt) this.yesPriceAt = ts
  }

  /** A price from a source other than a trade; only used while no trade has been seen. */
  private fallback(ref: string, ts: number, price: number | null, out: Array<MarketEvent>): void {
    if (this.lastTradeAt !== null || price === null || price === this.yesPrice) return
    this.yesPrice = price
    this.pricedAt(ts)
    this.ensureBars().observe(ts, price)
    out.push({ _tag: "PriceChanged", ts, ref, yesPrice: price })
  }

  private trade(info: MarketInfo, trade: TradeEvent, out: Array<MarketEvent>): void {
    const yes = yesPriceOf(info, trade)
    this.lastPrice = yes
    if (this.lastTradeAt === null || trade.ts > this.lastTradeAt) this.lastTradeAt = trade.ts
    this.ensureBars().trade(trade.ts, yes, trade.usd, trade.contracts)
    out.push(trade)
    if (yes !== this.yesPrice) {
      this.yesPrice = yes
      this.pricedAt(trade.ts)
      out.push({ _tag: "PriceChanged", ts: trade.ts, ref: info.ref, yesPrice: yes })
    }
  }

  /**
   * Applies data inputs from `from` until the first control input (or the end) and returns its index
   * (`inputs.length` when none). One BookChanged per run of consecutive book inputs, at the run's last
   * `ts`. With `data` false (a settled or void market) data inputs are skipped.
   */
  applyData(info: MarketInfo, inputs: ReadonlyArray<MarketInput>, from: number, data: boolean, out: Array<MarketEvent>): number {
    let bookTs: number | null = null
    let i = from
    for (; i < inputs.length; i++) {
      const input = inputs[i]
      if (input === undefined) continue
      if (isControl(input)) break
      if (!data) continue
      if (input._tag === "BookDelta" || input._tag === "BookSnapshot") {
        this.book.apply(input)
        this.bookAt = input.ts
        bookTs = input.ts
        continue
      }
      if (bookTs !== null) this.bookChanged(info, bookTs, out)
      bookTs = null
      if (input._tag === "trade") this.trade(info, input.trade, out)
      else this.fallback(info.ref, input.ts, input.price, out)
    }
    if (bookTs !== null) this.bookChanged(info, bookTs, out)
    return i
  }

  /** The end of a run of book inputs: one BookChanged, and the mid as price while no trade is known. */
  private bookChanged(info: MarketInfo, ts: number, out: Array<MarketEvent>): void {
    out.push({ _tag: "BookChanged", ts, ref: info.ref })
    if (this.lastTradeAt === null) this.fallback(info.ref, ts, this.yesMid(info), out)
  }
}
