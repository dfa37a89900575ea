// describeUniverse's size quantiles (quickselect) equal nearest-rank quantiles of the sorted sizes,
// duplicates and single buys included; its counts add up.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BacktestHistory } from "./backtest-store.js"
import { describeUniverse } from "./universe.js"

const NOW = Date.UTC(2026, 0, 1)

describe("describeUniverse", () => {
  it("gives nearest-rank size quantiles and counts that add up", () => {
    fc.assert(fc.property(
      fc.array(fc.record({ usd: fc.oneof(fc.integer({ min: 1, max: 40 }).map((u) => u * 1_000), fc.double({ min: 1, max: 1e6, noNaN: true })), whale: fc.boolean(), price: fc.integer({ min: 0, max: 100 }) }), { maxLength: 300 }),
      (buys) => {
        const history = new BacktestHistory()
        buys.forEach((b, i) => history.add({
          id: `q${i}`, seq: i + 1, time: NOW - 1_000 * (i + 1), venue: "venue_a", contract: "venue_a:c", outcome: "Yes", title: `T${i % 7}`,
          category: null, kind: null, action: "buy", entry: null, price: b.price / 100, usd: b.usd, trader: b.whale ? null : `venue_a:t${i % 3}`,
          whale: b.whale, result: "open", settledAt: null,
        }))
        const u = describeUniverse(history, NOW)
        const sorted = buys.filter((b) => b.whale).map((b) => b.usd).sort((a, b) => a - b)
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
        if (sorted.length === 0) expect(u.sizes).toBeNull()
        else {
          expect(u.sizes).toEqual({ min: sorted[0], p25: at(0.25), p50: at(0.5), p75: at(0.75), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] })
        }
        expect(u.whaleBuys.total).toBe(sorted.length)
        expect(u.priceBands.reduce((n, b) => n + b.whaleBuys, 0)).toBe(sorted.length)
        expect(u.categories.reduce((n, c) => n + c.whaleBuys, 0)).toBe(sorted.length)
        expect(u.namedBuys).toBe(buys.filter((b) => !b.whale).length)
      },
    ), { numRuns: 300, seed: 5 })
  })
})
