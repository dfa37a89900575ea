// Invariants of the paper book walk (src/domain/fill.ts), on generated books and orders:
// 1. A buy never fills more than the book's depth inside its limit; a sale never more than asked or
//    than the bids inside its limit hold. Every level taken is inside the limit and no larger than offered.
// 2. Before the fee, the average price of a buy is at least the best ask, of a sale at most the best bid.
// 3. cost = Σ level price × size ± fee, exactly (checked in integer micro units, independently).
// 4. A buy's cost never passes its budget; filled + unfilled = asked on a sale.
// 5. A bigger budget never fills fewer contracts; spending exactly a fill's cost fills the same.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Venue } from "../../src/domain/enums.js"
import { CONTRACT_STEP, type Fill, walkBuy, walkSell } from "../../src/domain/fill.js"

const runs = { numRuns: 300 }

// Exact decimal arithmetic for the checks: values to 6 decimals as BigInt micro units.
const micro = (x: number): bigint => BigInt(Math.round(x * 1e6))

const venue = fc.constantFrom<Venue>("venue_a", "venue_b", "venue_b_us", "venue_d")
const schedule = fc.tuple(venue, fc.constantFrom(null, 0.01, 0.02, 0.05)).map(([v, feeRate]) => ({ venue: v, feeRate }))
const tick = fc.constantFrom(100, 1000) // cent or tenth-of-a-cent prices
const levels = fc.tuple(tick, fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 8, maxLength: 8 }))
  .map(([t, raw, sizes]) => {
    const prices = [...new Set(raw.map((p) => Math.max(1, Math.round((p / 1000) * t)) / t).filter((p) => p > 0 && p < 1))]
    return prices.map((price, i) => ({ price, size: (sizes[i] ?? 1) / 100 }))
  })
const asksOf = (ls: ReadonlyArray<{ price: number; size: number }>) => [...ls].sort((a, b) => a.price - b.price)
const bidsOf = (ls: ReadonlyArray<{ price: number; size: number }>) => [...ls].sort((a, b) => b.price - a.price)
const limit = fc.option(fc.integer({ min: 1, max: 999 }).map((n) => n / 1000), { nil: undefined })
const budget = fc.integer({ min: 1, max: 100_000_000 }).map((cents) => cents / 100)

const grossOf = (fill: Fill): bigint => fill.levels.reduce((n, l) => n + micro(l.price) * micro(l.size), 0n)
const twelve = (x: number): bigint => BigInt(Math.round(x * 1e6)) * 1_000_000n // fees and budgets are ≤ 6 decimals
/** The double nearest to n × 1e-12: what an exact dollar figure must be reported as. */
const nearest = (n: bigint): number => {
  const sign = n < 0n ? "-" : ""
  const abs = n < 0n ? -n : n
  return Number(`${sign}${abs / 1_000_000_000_000n}.${(abs % 1_000_000_000_000n).toString().padStart(12, "0")}`)
}

describe("paper book walk", () => {
  it("a buy fills within the depth inside its limit, never past its budget, at or above the best ask", () => {
    fc.assert(fc.property(levels, budget, limit, schedule, (ls, usd, maxPrice, fees) => {
      const asks = asksOf(ls)
      const fill = walkBuy(asks, maxPrice === undefined ? { usd } : { usd, maxPrice }, fees)
      if (fill._tag !== "Filled") return
      const inside = asks.filter((a) => maxPrice === undefined || a.price <= maxPrice)
      const depth = inside.reduce((n, a) => n + micro(a.size), 0n)
      expect(micro(fill.contracts)).toBeLessThanOrEqual(depth)
      expect(micro(fill.contracts) % micro(CONTRACT_STEP)).toBe(0n)
      for (const taken of fill.levels) {
        const offered = inside.find((a) => a.price === taken.price)
        expect(offered).toBeDefined()
        expect(taken.size).toBeLessThanOrEqual(offered?.size ?? 0)
      }
      const bestAsk = inside[0]?.price ?? 1
      expect(fill.priceBeforeFee).toBeGreaterThanOrEqual(bestAsk)
      expect(grossOf(fill) * 1n).toBeGreaterThanOrEqual(micro(bestAsk) * micro(fill.contracts))
      // cost = Σ price × size + fee, exactly; and within the budget.
      expect(fill.cost).toBe(nearest(grossOf(fill) + twelve(fill.fee)))
      expect(fill.gross).toBe(nearest(grossOf(fill)))
      expect(grossOf(fill) + twelve(fill.fee)).toBeLessThanOrEqual(twelve(usd))
      expect(fill.avgPrice).toBeGreaterThanOrEqual(0)
      expect(fill.avgPrice).toBeLessThanOrEqual(1)
      // Maximal: one more step would pass the budget, or the book inside the limit has no step left.
      const more = walkBuy(asks, maxPrice === undefined ? { usd: 1e9 } : { usd: 1e9, maxPrice }, fees)
      if (more._tag === "Filled" && more.contracts > fill.contracts) {
        expect(fill.unspentUsd).toBeLessThan(usd)
      }
    }), runs)
  })

  it("a sale fills at most what it asks and the bids inside its limit hold, at or below the best bid", () => {
    fc.assert(fc.property(levels, fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 100), limit, schedule, (ls, contracts, minPrice, fees) => {
      const bids = bidsOf(ls)
      const fill = walkSell(bids, minPrice === undefined ? { contracts } : { contracts, minPrice }, fees)
      const inside = bids.filter((b) => minPrice === undefined || b.price >= minPrice)
      if (fill._tag !== "Filled") {
        // No bid inside the limit, or a sale its fee would swallow whole (a fee is at least a cent an order).
        if (inside.length > 0) {
          const [, fee, gross] = /^nothing fills: the taker fee of \$([\d.e-]+) would take all of the \$([\d.e-]+) the bids pay for this sale$/.exec(fill.reason) ?? []
          expect(Number(fee)).toBeGreaterThanOrEqual(Number(gross))
        }
        return
      }
      const depth = inside.reduce((n, b) => n + micro(b.size), 0n)
      expect(micro(fill.contracts)).toBeLessThanOrEqual(depth)
      expect(micro(fill.contracts) + micro(fill.unfilledContracts)).toBe(micro(contracts))
      const bestBid = inside[0]?.price ?? 0
      expect(fill.priceBeforeFee).toBeLessThanOrEqual(bestBid)
      expect(grossOf(fill)).toBeLessThanOrEqual(micro(bestBid) * micro(fill.contracts))
      expect(fill.cost).toBe(nearest(grossOf(fill) - twelve(fill.fee)))
      expect(fill.cost).toBeGreaterThan(0)
    }), runs)
  })

  it("a bigger budget never fills fewer contracts; the fill's own cost as budget fills the same", () => {
    fc.assert(fc.property(levels, budget, budget, schedule, (ls, a, b, fees) => {
      const asks = asksOf(ls)
      const small = walkBuy(asks, { usd: Math.min(a, b) }, fees)
      const big = walkBuy(asks, { usd: Math.max(a, b) }, fees)
      if (small._tag !== "Filled") return
      expect(big._tag).toBe("Filled")
      if (big._tag === "Filled") expect(big.contracts).toBeGreaterThanOrEqual(small.contracts)
      const again = walkBuy(asks, { usd: small.cost }, fees)
      expect(again).toMatchObject({ contracts: small.contracts, cost: small.cost })
    }), runs)
  })
})
