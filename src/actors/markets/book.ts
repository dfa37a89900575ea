// The order book of one contract: per outcome, bids and asks as price-sorted levels, fed one
// BookSnapshot or BookDelta per frame (hot path: one call per frame, no allocation per level). Plain and mutable, owned by the market actor; never an xstate context of
// its own. It records what the venue said: a crossed or locked book is kept as is, never "fixed"
// and never an error (venues show transient crossings, e.g. the real burst's frames 47–48).
import type { BookChange, BookDelta, BookSnapshot, Level } from "../../domain/feed-events.js"
import { round6 } from "../../numbers.js"

export type BookSide = "bid" | "ask"

/**
 * One side of one outcome: its levels sorted by price (ascending) in two parallel typed arrays, so a
 * change is a binary search and the best level is an end of the array (a side holds tens of levels:
 * shifting on insert or removal is cheaper than hashing every price). A price that is not a number
 * is not a level and is ignored (decoders only ever produce prices in 0..1).
 */
class Ladder {
  private prices = new Float64Array(8)
  private sizes = new Float64Array(8)
  private count = 0

  constructor(private readonly isBid: boolean) {}

  get size(): number {
    return this.count
  }

  /** First index whose price is ≥ `price`. */
  private search(price: number): number {
    const prices = this.prices
    let lo = 0
    let hi = this.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((prices[mid] as number) < price) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Stores `size` at `price`, found at or to be inserted at `i`; a size ≤ 0 (or not a number) removes the level. */
  private put(i: number, hit: boolean, price: number, size: number): void {
    if (hit) {
      if (size > 0) this.sizes[i] = size
      else {
        this.prices.copyWithin(i, i + 1, this.count)
        this.sizes.copyWithin(i, i + 1, this.count)
        this.count--
      }
      return
    }
    if (!(size > 0)) return
    if (this.count === this.prices.length) {
      const prices = new Float64Array(this.count * 2)
      const sizes = new Float64Array(this.count * 2)
      prices.set(this.prices)
      sizes.set(this.sizes)
      this.prices = prices
      this.sizes = sizes
    }
    if (i < this.count) {
      this.prices.copyWithin(i + 1, i, this.count)
      this.sizes.copyWithin(i + 1, i, this.count)
    }
    this.prices[i] = price + 0 // -0 is the level 0, as a Map key would be
    this.sizes[i] = size
    this.count++
  }

  /** Sets a level's size; a size ≤ 0 (or not a number) removes the level. */
  set(price: number, size: number): void {
    if (Number.isNaN(price)) return
    const i = this.search(price)
    this.put(i, i < this.count && this.prices[i] === price, price, size)
  }

  add(price: number, change: number): void {
    if (Number.isNaN(price)) return
    const i = this.search(price)
    const hit = i < this.count && this.prices[i] === price
    // Additive deltas (Kalshi counts have 2 decimals) must not leave float dust such as 1e-15 as a level.
    this.put(i, hit, price, round6((hit ? (this.sizes[i] as number) : 0) + change))
  }

  replace(levels: ReadonlyArray<Level>): void {
    this.count = 0
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i] as Level
      this.set(level.price, level.size)
    }
  }

  bestPrice(): number | null {
    if (this.count === 0) return null
    return this.prices[this.isBid ? this.count - 1 : 0] as number
  }

  bestSize(): number {
    if (this.count === 0) return 0
    return this.sizes[this.isBid ? this.count - 1 : 0] as number
  }

  sizeAt(price: number): number {
    const i = this.search(price)
    return i < this.count && this.prices[i] === price ? (this.sizes[i] as number) : 0
  }

  /** Levels best-first, at most `depth` of them. */
  sorted(depth: number): Array<Level> {
    const n = Math.min(this.count, depth)
    const result: Array<Level> = []
    for (let k = 0; k < n; k++) {
      const i = this.isBid ? this.count - 1 - k : k
      result.push({ price: this.prices[i] as number, size: this.sizes[i] as number })
    }
    return result
  }
}

class OutcomeBook {
  readonly bids = new Ladder(true)
  readonly asks = new Ladder(false)

  side(side: BookSide): Ladder {
    return side === "bid" ? this.bids : this.asks
  }
}

export class Book {
  /** Created with the first outcome: a market that never saw a book frame carries no map. */
  private books: Map<string, OutcomeBook> | null = null

  /** The outcome last looked up, and its book (consecutive changes mostly name the same outcome). */
  private lastOutcome: string | null = null
  private lastBook: OutcomeBook | null = null

  private outcome(outcome: string): OutcomeBook {
    if (outcome === this.lastOutcome && this.lastBook !== null) return this.lastBook
    this.books ??= new Map()
    let book = this.books.get(outcome)
    if (book === undefined) {
      book = new OutcomeBook()
      this.books.set(outcome, book)
    }
    this.lastOutcome = outcome
    this.lastBook = book
    return book
  }

  /** Replaces one outcome's whole book; zero-size levels are dropped, other outcomes untouched. */
  applySnapshot(snapshot: BookSnapshot): void {
    const book = this.outcome(snapshot.outcome)
    book.bids.replace(snapshot.bids)
    book.asks.replace(snapshot.asks)
  }

  /** `set`: the level's new total; `add`: a signed change. A resulting size ≤ 0 removes the level. */
  applyDelta(delta: BookDelta): void {
    const add = delta.mode === "add"
    const changes = delta.changes
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i] as BookChange
      const ladder = this.outcome(change.outcome).side(change.side)
      if (add) ladder.add(change.price, change.size)
      else ladder.set(change.price, change.size)
    }
  }

  apply(event: BookSnapshot | BookDelta): void {
    if (event._tag === "BookSnapshot") this.applySnapshot(event)
    else this.applyDelta(event)
  }

  /** Outcomes this book has heard of, in first-seen order. */
  outcomes(): ReadonlyArray<string> {
    return this.books === null ? [] : Array.from(this.books.keys())
  }

  /** Drops one outcome's book (or all), e.g. when a sequence gap makes it untrusted. */
  clear(outcome?: string): void {
    this.lastOutcome = null
    this.lastBook = null
    if (outcome === undefined) this.books?.clear()
    else this.books?.delete(outcome)
  }

  private top(outcome: string, side: BookSide): Level | null {
    const ladder = this.books?.get(outcome)?.side(side)
    if (ladder === undefined) return null
    const price = ladder.bestPrice()
    return price === null ? null : { price, size: ladder.bestSize() }
  }

  /** Price of the best bid (or ask) of an outcome, or null: `bestBid(…)?.price` without a Level. */
  bestPrice(outcome: string, side: BookSide): number | null {
    return this.books?.get(outcome)?.side(side).bestPrice() ?? null
  }

  bestBid(outcome: string): Level | null {
    return this.top(outcome, "bid")
  }

  bestAsk(outcome: string): Level | null {
    return this.top(outcome, "ask")
  }

  /** One side's levels, best first (bids descending, asks ascending), at most `depth`. */
  levels(outcome: string, side: BookSide, depth = Number.POSITIVE_INFINITY): Array<Level> {
    return this.books?.get(outcome)?.side(side).sorted(depth) ?? []
  }

  /** Size resting at one price (0 when none). */
  sizeAt(outcome: string, side: BookSide, price: number): number {
    return this.books?.get(outcome)?.side(side).sizeAt(price) ?? 0
  }

  /** Number of levels on one side. */
  depth(outcome: string, side: BookSide): number {
    return this.books?.get(outcome)?.side(side).size ?? 0
  }
}
