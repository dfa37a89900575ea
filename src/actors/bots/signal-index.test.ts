// The signal index picks exactly the signal bots matchesSignal picks, in the order they were indexed.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CATEGORIES, VENUES } from "../../domain/enums.js"
import type { Signal } from "../../domain/signal.js"
import { SignalIndex } from "./signal-index.js"
import { matchesSignal, type MatchTrade } from "./signal-match.js"

const TRADERS = ["venue_a:alice", "venue_a:bob", "venue_b:carol"]
const WORDS = ["Bitcoin", "election", "FED"]

const signal: fc.Arbitrary<Signal> = fc.record({
  traders: fc.subarray(TRADERS, { minLength: 1 }),
  venue: fc.subarray([...VENUES]),
  category: fc.subarray([...CATEGORIES]),
  minUsd: fc.integer({ min: 0, max: 50_000 }),
  maxUsd: fc.integer({ min: 50_000, max: 100_000 }),
  priceMin: fc.double({ min: 0, max: 0.5, noNaN: true }),
  priceMax: fc.double({ min: 0.5, max: 1, noNaN: true }),
  keywords: fc.subarray(WORDS),
  entry: fc.constantFrom("open" as const, "add" as const, "all" as const),
}, { requiredKeys: ["entry"] }).map((s) => s as unknown as Signal) // traders are branded refs

const trade: fc.Arbitrary<MatchTrade> = fc.record({
  action: fc.constantFrom("buy" as const, "sell" as const),
  whale: fc.boolean(),
  trader: fc.constantFrom(null, ...TRADERS),
  venue: fc.constantFrom(...VENUES),
  category: fc.constantFrom(null, ...CATEGORIES),
  usd: fc.integer({ min: 1, max: 100_000 }),
  price: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
  entry: fc.constantFrom(null, "open" as const, "add" as const),
  title: fc.constantFrom("Will bitcoin rise?", "ELECTION night", "Fed cuts", "Rain in Paris"),
})

describe("signal index", () => {
  it("matches what matchesSignal matches, in index order, testing only candidates", () => {
    fc.assert(fc.property(fc.array(signal, { maxLength: 12 }), fc.array(trade, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(11)), (signals, trades, removed) => {
      const index = new SignalIndex()
      signals.forEach((s, i) => index.add(`s${i}`, s))
      for (const i of removed) index.remove(`s${i}`)
      const live = signals.map((s, i) => [`s${i}`, s] as const).filter(([id]) => !removed.some((i) => `s${i}` === id))
      for (const t of trades) {
        const hits: Array<string> = []
        const tested = index.match(t, hits)
        const expected = live.filter(([, s]) => matchesSignal(s, t)).map(([id]) => id)
        // Order: bots naming the trader, then the venue × category bucket, then the venue's any-category
        // bucket; within each, the order of indexing.
        expect([...hits].sort()).toEqual([...expected].sort())
        expect(new Set(hits).size).toBe(hits.length)
        expect(tested).toBeLessThanOrEqual(live.length)
      }
    }), { numRuns: 300, seed: 11 })
  })

  it("visits a bucket in the order its bots were indexed; a bot indexed again with the same signal stays, with a new one moves to the end", () => {
    const index = new SignalIndex()
    const s = { venue: ["venue_a"], entry: "all" } as Signal
    const match = () => {
      const hits: Array<string> = []
      index.match({ action: "buy", whale: true, trader: null, venue: "venue_a", category: null, usd: 1, price: 0.5, entry: null, title: "x" }, hits)
      return hits
    }
    for (const id of ["a", "b", "c"]) index.add(id, s)
    index.add("a", s) // a command that left the signal as it was (a pause, a resume)
    expect(match()).toEqual(["a", "b", "c"])
    index.add("a", { ...s }) // a new signal (a PATCH)
    expect(match()).toEqual(["b", "c", "a"])
  })
})
