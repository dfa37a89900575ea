// The order book of one contract: per outcome, bids and asks as price → size maps, fed one
// BookSnapshot or BookDelta per frame (hot path: one call per frame, no allocation per level
// beyond the map's own). Plain and mutable, owned by the market actor; never an xstate context of
// its own. It records what the venue said: a crossed or locked book is kept as is, never "fixed"
// and never an error (venues show transient crossings, e.g. the real burst's frames 47–48).
import type { BookDelta, BookSnapshot, Level } from "../../domain/feed-events.js"

export type BookSide = "bid" | "ask"

// Additive deltas (Kalshi counts have 2 decimals) must not leave float dust such as 1e-15 as a level.
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6

/** One side of one outcome: levels plus a lazily recomputed best price. */
class Ladder {
  readonly levels = new Map<number, number>()
  private best: number | null = null
  private bestKnown = true

  constructor(private readonly isBid: boolean) {}

  private better(a: number, b: number): boolean {
    return this.isBid ? a > b : a < b
  }

  /** Sets a level's size; a size ≤ 0 (or not a number) removes the level. */
  set(price: number, size: number): void {
    if (size > 0) {
      this.levels.set(price, size)
      if (this.bestKnown && (this.best === null || this.better(price, this.best))) this.best = price
    } else if (this.levels.delete(price) && price === this.best) {
      this.bestKnown = false
    }
  }

  add(price: number, change: number): void {
    this.set(price, round6((this.levels.get(price) ?? 0) + change))
  }

  replace(levels: ReadonlyArray<Level>): void {
    this.levels.clear()
    this.best = null
    this.bestKnown = true
    for (const level of levels) this.set(level.price, level.size)
  }

  bestPrice(): number | null {
    if (!this.bestKnown) {
      let best: number | null = null
      for (const price of this.levels.keys()) if (best === null || this.better(price, best)) best = price
      this.best = best
      this.bestKnown = true
    }
    return this.best
  }

  /** Levels best-first, at most `depth` of them. */
  sorted(depth: number): Array<Level> {
    const prices = Array.from(this.levels.keys())
    prices.sort(this.isBid ? (a, b) => b - a : (a, b) => a - b)
    const result: Array<Level> = []
    for (const price of prices) {
      if (result.length >= depth) break
      result.push({ price, size: this.levels.get(price) ?? 0 })
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
  private readonly books = new Map<string, OutcomeBook>()

  private outcome(outcome: string): OutcomeBook {
    let book = this.books.get(outcome)
    if (book === undefined) {
      book = new OutcomeBook()
      this.books.set(outcome, book)
    }
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
    for (const change of delta.changes) {
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
    return Array.from(this.books.keys())
  }

  /** Drops one outcome's book (or all), e.g. when a sequence gap makes it untrusted. */
  clear(outcome?: string): void {
    if (outcome === undefined) this.books.clear()
    else this.books.delete(outcome)
  }

  private top(outcome: string, side: BookSide): Level | null {
    const ladder = this.books.get(outcome)?.side(side)
    if (ladder === undefined) return null
    const price = ladder.bestPrice()
    return price === null ? null : { price, size: ladder.levels.get(price) ?? 0 }
  }

  bestBid(outcome: string): Level | null {
    return this.top(outcome, "bid")
  }

  bestAsk(outcome: string): Level | null {
    return this.top(outcome, "ask")
  }

  /** One side's levels, best first (bids descending, asks ascending), at most `depth`. */
  levels(outcome: string, side: BookSide, depth = Number.POSITIVE_INFINITY): Array<Level> {
    return this.books.get(outcome)?.side(side).sorted(depth) ?? []
  }

  /** Size resting at one price (0 when none). */
  sizeAt(outcome: string, side: BookSide, price: number): number {
    return this.books.get(outcome)?.side(side).levels.get(price) ?? 0
  }

  /** Number of levels on one side. */
  depth(outcome: string, side: BookSide): number {
    return this.books.get(outcome)?.side(side).levels.size ?? 0
  }
}
