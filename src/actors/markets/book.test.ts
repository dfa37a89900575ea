// The order book: snapshots replace one outcome, set/add deltas, removal at size ≤ 0, best levels,
// best-first ordering whatever the arrival order, and crossed books kept as the venue said.
import { describe, expect, it } from "vitest"
import type { BookDelta, BookSnapshot, Level } from "../../domain/feed-events.js"
import { Book } from "./book.js"

const snapshot = (outcome: string, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>): BookSnapshot => ({
  _tag: "BookSnapshot", venue: "venue_b", ts: 1, receivedAt: 1, contract: "c", outcome, bids, asks,
})
const delta = (mode: "set" | "add", changes: BookDelta["changes"]): BookDelta => ({
  _tag: "BookDelta", venue: "venue_a", ts: 1, receivedAt: 1, contract: "c", mode, changes,
})
const l = (price: number, size: number): Level => ({ price, size })

describe("Book", () => {
  it("sorts levels best-first whatever the venue's order, and limits depth", () => {
    const book = new Book()
    // Polymarket order: bids ascending, asks descending (best last).
    book.applySnapshot(snapshot("yes", [l(0.1, 1), l(0.3, 3), l(0.2, 2)], [l(0.9, 9), l(0.5, 5), l(0.7, 7)]))
    expect(book.levels("yes", "bid")).toEqual([l(0.3, 3), l(0.2, 2), l(0.1, 1)])
    expect(book.levels("yes", "ask", 2)).toEqual([l(0.5, 5), l(0.7, 7)])
    expect(book.bestBid("yes")).toEqual(l(0.3, 3))
    expect(book.bestAsk("yes")).toEqual(l(0.5, 5))
  })

  it("a snapshot replaces only its outcome; zero-size levels are dropped", () => {
    const book = new Book()
    book.applySnapshot(snapshot("yes", [l(0.3, 3)], [l(0.5, 5)]))
    book.applySnapshot(snapshot("no", [l(0.4, 4)], []))
    book.applySnapshot(snapshot("yes", [l(0.2, 2), l(0.25, 0)], []))
    expect(book.levels("yes", "bid")).toEqual([l(0.2, 2)])
    expect(book.bestAsk("yes")).toBeNull()
    expect(book.bestBid("no")).toEqual(l(0.4, 4))
    expect(book.outcomes()).toEqual(["yes", "no"])
  })

  it("set mode: new totals, 0 removes, the best level is recomputed after its removal", () => {
    const book = new Book()
    book.applySnapshot(snapshot("yes", [l(0.3, 3), l(0.2, 2)], [l(0.5, 5)]))
    book.applyDelta(delta("set", [{ outcome: "yes", side: "bid", price: 0.3, size: 0 }]))
    expect(book.bestBid("yes")).toEqual(l(0.2, 2))
    book.applyDelta(delta("set", [
      { outcome: "yes", side: "bid", price: 0.2, size: 20 },
      { outcome: "yes", side: "ask", price: 0.45, size: 1 },
    ]))
    expect(book.bestBid("yes")).toEqual(l(0.2, 20))
    expect(book.bestAsk("yes")).toEqual(l(0.45, 1))
    expect(book.depth("yes", "ask")).toBe(2)
  })

  it("add mode: signed changes; a level reaching ≤ 0 is removed; no float dust remains", () => {
    const book = new Book()
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0.4, size: 0.1 }]))
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0.4, size: 0.2 }]))
    expect(book.sizeAt("yes", "bid", 0.4)).toBe(0.3)
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0.4, size: -0.3 }]))
    expect(book.depth("yes", "bid")).toBe(0)
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0.4, size: 5 }]))
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0.4, size: -9 }]))
    expect(book.bestBid("yes")).toBeNull()
  })

  it("keeps a crossed or locked book as given, without throwing or trimming", () => {
    const book = new Book()
    book.applySnapshot(snapshot("yes", [l(0.311, 1), l(0.301, 2)], [l(0.301, 3)]))
    expect(book.bestBid("yes")?.price).toBe(0.311)
    expect(book.bestAsk("yes")?.price).toBe(0.301)
    book.apply(delta("set", [{ outcome: "yes", side: "bid", price: 0.311, size: 0 }]))
    expect(book.bestBid("yes")?.price).toBe(0.301) // locked
    expect(book.bestAsk("yes")?.price).toBe(0.301)
    expect(book.levels("yes", "bid")).toEqual([l(0.301, 2)])
  })

  it("unknown outcomes read as empty; clear drops books", () => {
    const book = new Book()
    expect(book.bestBid("nope")).toBeNull()
    expect(book.levels("nope", "ask")).toEqual([])
    book.applySnapshot(snapshot("yes", [l(0.3, 3)], []))
    book.clear("yes")
    expect(book.bestBid("yes")).toBeNull()
    book.applySnapshot(snapshot("yes", [l(0.3, 3)], []))
    book.clear()
    expect(book.outcomes()).toEqual([])
  })

  it("agrees with a sorted scan after many random set/add operations", () => {
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const book = new Book()
    const model = new Map<number, number>()
    for (let i = 0; i < 5000; i++) {
      const price = Math.round(next() * 100) / 100
      const size = Math.round((next() * 20 - 5) * 100) / 100
      book.applyDelta(delta("set", [{ outcome: "yes", side: "bid", price, size }]))
      if (size > 0) model.set(price, size)
      else model.delete(price)
      const best = [...model.keys()].sort((a, b) => b - a)[0]
      expect(book.bestBid("yes")?.price).toBe(best)
    }
  })

  it("keeps every level of both sides as a price → size map would, under set and add", () => {
    let seed = 11
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const book = new Book()
    const model = { bid: new Map<number, number>(), ask: new Map<number, number>() }
    const round6 = (x: number) => Math.round(x * 1e6) / 1e6
    for (let i = 0; i < 4000; i++) {
      const side = next() < 0.5 ? "bid" : "ask"
      const price = Math.round(next() * 1000) / 1000
      const size = Math.round((next() * 20 - 6) * 100) / 100
      const mode = next() < 0.5 ? "set" : "add"
      book.applyDelta(delta(mode, [{ outcome: "yes", side, price, size }]))
      const total = mode === "add" ? round6((model[side].get(price) ?? 0) + size) : size
      if (total > 0) model[side].set(price, total)
      else model[side].delete(price)
      if (i % 97 === 0 || i === 3999) {
        const bids = [...model.bid].sort((a, b) => b[0] - a[0]).map(([p, s]) => l(p, s))
        const asks = [...model.ask].sort((a, b) => a[0] - b[0]).map(([p, s]) => l(p, s))
        expect(book.levels("yes", "bid")).toEqual(bids)
        expect(book.levels("yes", "ask")).toEqual(asks)
        expect(book.depth("yes", "bid")).toBe(bids.length)
        expect(book.sizeAt("yes", "ask", price)).toBe(model.ask.get(price) ?? 0)
      }
    }
  })

  it("treats -0 as the level 0", () => {
    const book = new Book()
    book.applyDelta(delta("set", [{ outcome: "yes", side: "bid", price: -0, size: 2 }]))
    book.applyDelta(delta("add", [{ outcome: "yes", side: "bid", price: 0, size: 1 }]))
    expect(book.levels("yes", "bid")).toEqual([l(0, 3)])
    expect(Object.is(book.bestBid("yes")?.price, 0)).toBe(true)
  })
})
