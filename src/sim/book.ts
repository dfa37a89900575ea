// A simulated contract's order book and the pure moves on it: market makers' quotes around a fair
// price, the diff between two books, and a taker walking levels. One canonical book per contract,
// for its first outcome ("Yes"); the second outcome's book is its mirror (a bid for Yes at p is an
// offer of No at 1 − p). Prices are integer thousandths, sizes integer hundredths of a contract, so
// arithmetic is exact and output is byte-stable.
import type { Rng } from "./random.js"

export interface Book {
  readonly bids: Map<number, number>
  readonly asks: Map<number, number>
}

export type BookSide = "bid" | "ask"

/** One level's new aggregate size and what it was (Kalshi wants the signed difference). */
export interface LevelChange {
  readonly side: BookSide
  readonly price: number
  readonly size: number
  readonly prev: number
}

export interface Level {
  readonly price: number
  readonly size: number
}

export const emptyBook = (): Book => ({ bids: new Map(), asks: new Map() })

/** Levels best-first: bids descending, asks ascending. */
export const levelsOf = (book: Book, side: BookSide): Array<Level> => {
  const map = side === "bid" ? book.bids : book.asks
  const prices = [...map.keys()].sort((a, b) => (side === "bid" ? b - a : a - b))
  return prices.map((price) => ({ price, size: map.get(price) ?? 0 }))
}

export const bestBid = (book: Book): number | null => (book.bids.size === 0 ? null : Math.max(...book.bids.keys()))
export const bestAsk = (book: Book): number | null => (book.asks.size === 0 ? null : Math.min(...book.asks.keys()))

/** Makes `book` equal to `target`, returning the level changes in a fixed order (bids then asks, by price). */
export const applyTarget = (book: Book, target: Book): Array<LevelChange> => {
  const changes: Array<LevelChange> = []
  for (const side of ["bid", "ask"] as const) {
    const now = side === "bid" ? book.bids : book.asks
    const next = side === "bid" ? target.bids : target.asks
    const prices = [...new Set([...now.keys(), ...next.keys()])].sort((a, b) => a - b)
    for (const price of prices) {
      const prev = now.get(price) ?? 0
      const size = next.get(price) ?? 0
      if (prev === size) continue
      if (size === 0) now.delete(price)
      else now.set(price, size)
      changes.push({ side, price, size, prev })
    }
  }
  return changes
}

/** Sets one level, returning the change (or none when the size is unchanged). */
export const setLevel = (book: Book, side: BookSide, price: number, size: number): LevelChange | null => {
  const map = side === "bid" ? book.bids : book.asks
  const prev = map.get(price) ?? 0
  if (prev === size) return null
  if (size === 0) map.delete(price)
  else map.set(price, size)
  return { side, price, size, prev }
}

/**
 * The makers' quote around `fair` (0..1): a spread of one to three ticks and five to nine levels a
 * side, each worth a few thousand dollars, deeper further from the touch.
 */
export const makerQuote = (rng: Rng, fair: number, tick: number, depthUsd: number, into?: Book): Book => {
  const book = into ?? emptyBook()
  book.bids.clear()
  book.asks.clear()
  const center = Math.min(1000 - tick, Math.max(tick, fair * 1000))
  const half = tick * rng.int(1, tick === 1 ? 8 : 2)
  let bid = Math.floor((center - half / 2) / tick) * tick
  let ask = Math.ceil((center + half / 2) / tick) * tick
  if (ask <= bid) ask = bid + tick
  const levels = rng.int(5, 9)
  for (let i = 0; i < levels && bid >= tick; i++) {
    book.bids.set(bid, levelSize(rng, bid, depthUsd, i))
    bid -= tick * rng.int(1, tick === 1 ? 6 : 2)
  }
  for (let i = 0; i < levels && ask <= 1000 - tick; i++) {
    book.asks.set(ask, levelSize(rng, 1000 - ask, depthUsd, i))
    ask += tick * rng.int(1, tick === 1 ? 6 : 2)
  }
  return book
}

/** Contracts (in hundredths) worth about `depthUsd` at the cost of the resting side. */
const levelSize = (rng: Rng, cost: number, depthUsd: number, depth: number): number => {
  const usd = depthUsd * (0.4 + 0.35 * depth) * rng.lognormal(0, 0.5)
  const contracts = usd / Math.max(0.05, cost / 1000)
  return Math.max(100, Math.round(contracts) * 100)
}

export interface WalkRequest {
  /** 0 = first outcome (Yes), 1 = second. */
  readonly outcome: 0 | 1
  readonly action: "buy" | "sell"
  /** Dollars to spend (buy) or to raise (sell). */
  readonly usd: number
  /** Worst acceptable price of the traded outcome, thousandths. */
  readonly limit: number
  /** Smallest contract step in hundredths (100 = whole contracts). */
  readonly quantum: number
}

export interface Walked {
  readonly contracts: number
  /** Volume-weighted price of the traded outcome in ten-thousandths. */
  readonly price: number
  readonly changes: Array<LevelChange>
}

/**
 * A taker walks the book: buying the first outcome lifts Yes asks, buying the second hits Yes bids
 * (a No offer at 1 − p), selling does the reverse. Stops at the limit or the budget.
 */
export const walk = (book: Book, request: WalkRequest): Walked | null => {
  const takesAsks = (request.outcome === 0) === (request.action === "buy")
  const side: BookSide = takesAsks ? "ask" : "bid"
  const changes: Array<LevelChange> = []
  let remaining = request.usd
  let contracts = 0
  let cost = 0
  for (const level of levelsOf(book, side)) {
    const price = request.outcome === 0 ? level.price : 1000 - level.price
    const ok = request.action === "buy" ? price <= request.limit : price >= request.limit
    if (!ok) break
    // One hundredth of a contract costs price / 100_000 dollars.
    const affordable = Math.floor((remaining * 100_000) / price / request.quantum) * request.quantum
    const take = Math.min(level.size - (level.size % request.quantum), affordable)
    if (take <= 0) break
    contracts += take
    cost += take * price
    remaining -= (take * price) / 100_000
    const change = setLevel(book, side, level.price, level.size - take)
    if (change !== null) changes.push(change)
    if (take < level.size) break
  }
  if (contracts === 0) return null
  return { contracts, price: Math.round((cost * 10) / contracts), changes }
}
