// The book walk, one rule per case: budgets include the fee, limits stop the walk, the fee is charged
// once on the whole fill, sales never owe money, and what the book cannot fill is reported, not rested.
import { describe, expect, it } from "vitest"
import { walk, walkBuy, walkSell } from "./fill.js"
import { takerFee } from "./fees.js"

const levels = (...pairs: ReadonlyArray<readonly [number, number]>) => pairs.map(([price, size]) => ({ price, size }))
const KALSHI = { venue: "venue_a", feeRate: null } as const
const FREE = { venue: "venue_b", feeRate: null } as const

describe("walkBuy", () => {
  it("spends at most usd, fee included, in hundredths of a contract", () => {
    const fill = walkBuy(levels([0.4, 100]), { usd: 10 }, KALSHI)
    expect(fill).toMatchObject({ _tag: "Filled", contracts: 23.97, fee: 0.41, gross: 9.588, cost: 9.998, unfilledContracts: 0 })
    if (fill._tag !== "Filled") return
    expect(fill.cost).toBeLessThanOrEqual(10)
    expect(fill.avgPrice).toBe(Number((9.998 / 23.97).toFixed(6)))
    expect(fill.unspentUsd).toBeCloseTo(0.002, 12)
  })

  it("walks levels best first and charges the fee once, at the fill's average price", () => {
    const fill = walkBuy(levels([0.5, 10], [0.6, 10]), { usd: 1000 }, { venue: "venue_b_us", feeRate: null })
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill.contracts).toBe(20)
    expect(fill.gross).toBe(11)
    expect(fill.fee).toBe(takerFee("venue_b_us", 20, 0.55))
    expect(fill.cost).toBe(11 + fill.fee)
    expect(fill.levels).toEqual(levels([0.5, 10], [0.6, 10]))
  })

  it("stops at maxPrice and reports what the rest of the budget would have bought there", () => {
    const fill = walkBuy(levels([0.5, 10], [0.6, 10], [0.7, 10]), { usd: 100, maxPrice: 0.6 }, FREE)
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill.contracts).toBe(20)
    expect(fill.cost).toBe(11)
    expect(fill.unspentUsd).toBe(89)
    expect(fill.unfilledContracts).toBe(148.33) // 89 / 0.6, down to the step
  })

  it("without a limit, prices what the book could not fill at the worst price filled", () => {
    const fill = walkBuy(levels([0.25, 4]), { usd: 2 }, FREE)
    expect(fill).toMatchObject({ contracts: 4, cost: 1, unfilledContracts: 4 })
  })

  it("nothing fills when no ask is inside maxPrice, or the budget does not reach one step", () => {
    expect(walkBuy(levels([0.7, 10]), { usd: 100, maxPrice: 0.6 }, FREE)._tag).toBe("NothingFills")
    expect(walkBuy([], { usd: 100 }, FREE)._tag).toBe("NothingFills")
    expect(walkBuy(levels([0.5, 10]), { usd: 0.004 }, FREE)._tag).toBe("NothingFills")
    // One step at 0.5 is 0.005 plus a one-cent Kalshi fee.
    expect(walkBuy(levels([0.5, 10]), { usd: 0.01 }, KALSHI)._tag).toBe("NothingFills")
    expect(walkBuy(levels([0.5, 10]), { usd: 0.015 }, KALSHI)).toMatchObject({ contracts: 0.01, cost: 0.015 })
  })

  it("venue_b uses the market's own fee rate; none is fee-free", () => {
    const withRate = walkBuy(levels([0.5, 1000]), { usd: 100 }, { venue: "venue_b", feeRate: 0.02 })
    const free = walkBuy(levels([0.5, 1000]), { usd: 100 }, FREE)
    expect(free).toMatchObject({ contracts: 200, fee: 0, cost: 100 })
    if (withRate._tag !== "Filled") throw new Error("expected a fill")
    expect(withRate.fee).toBeGreaterThan(0)
    expect(withRate.fee).toBe(takerFee("venue_b", withRate.contracts, withRate.priceBeforeFee, 0.02))
    expect(withRate.cost).toBeLessThanOrEqual(100)
  })

  it("keeps avgPrice within 0..1 when a tiny fee-rounded buy would pass 1", () => {
    const fill = walkBuy(levels([0.995, 1]), { usd: 2 }, KALSHI)
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill.avgPrice).toBeLessThanOrEqual(1)
    expect(fill.cost).toBe(fill.gross + fill.fee)
  })

  it("skips empty and out-of-range levels", () => {
    expect(walkBuy(levels([0.5, 0], [0, 5], [0.6, 1]), { usd: 100 }, FREE)).toMatchObject({ contracts: 1, cost: 0.6 })
  })
})

describe("walkSell", () => {
  it("sells into bids best first, proceeds net of the fee", () => {
    const fill = walkSell(levels([0.6, 5], [0.55, 10]), { contracts: 8 }, KALSHI)
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill.contracts).toBe(8)
    expect(fill.gross).toBe(4.65)
    expect(fill.fee).toBe(takerFee("venue_a", 8, 0.58125))
    expect(fill.cost).toBe(Number((4.65 - fill.fee).toFixed(12)))
    expect(fill.unfilledContracts).toBe(0)
  })

  it("stops at minPrice; the rest is unfilled", () => {
    const fill = walkSell(levels([0.6, 5], [0.55, 10]), { contracts: 8, minPrice: 0.58 }, FREE)
    expect(fill).toMatchObject({ contracts: 5, cost: 3, unfilledContracts: 3 })
    expect(walkSell(levels([0.5, 5]), { contracts: 8, minPrice: 0.58 }, FREE)._tag).toBe("NothingFills")
  })

  it("sells fractional holdings to 6 decimals", () => {
    expect(walkSell(levels([0.5, 100]), { contracts: 1.234567 }, FREE)).toMatchObject({ contracts: 1.234567 })
  })

  it("never owes money: the fee is capped at the proceeds", () => {
    const fill = walkSell(levels([0.02, 1]), { contracts: 0.01 }, KALSHI)
    expect(fill).toMatchObject({ _tag: "Filled", gross: 0.0002, fee: 0.0002, cost: 0 })
  })
})

describe("walkBuy search", () => {
  // The fill is the largest step count whose Σ price × size + fee fits the budget: checked against a
  // step-by-step count on small books (every step's total formed independently, in micro units).
  const microOf = (x: number): bigint => BigInt(Math.round(x * 1e6))
  const totalOf = (asks: ReadonlyArray<{ price: number; size: number }>, steps: number, schedule: { venue: "venue_a" | "venue_b" | "venue_b_us" | "venue_d"; feeRate: number | null }): bigint => {
    let left = BigInt(steps) * 10_000n
    const contracts = left
    let gross = 0n
    for (const a of asks) {
      const take = microOf(a.size) < left ? microOf(a.size) : left
      gross += microOf(a.price) * take
      left -= take
    }
    const vwap = Number((gross * 2n + contracts) / (contracts * 2n)) / 1e6
    const fee = schedule.venue === "venue_b" ? takerFee("venue_b", Number(contracts) / 1e6, vwap, schedule.feeRate ?? 0) : takerFee(schedule.venue, Number(contracts) / 1e6, vwap)
    return gross + BigInt(Math.round(fee * 1e5)) * 10_000_000n
  }
  it("fills the most steps that fit, as counting step by step does", () => {
    const books = [levels([0.01, 3], [0.02, 5]), levels([0.49, 2.5], [0.5, 7.333333], [0.97, 4]), levels([0.995, 9])]
    const schedules = [KALSHI, FREE, { venue: "venue_b", feeRate: 0.05 }, { venue: "venue_b_us", feeRate: null }] as const
    for (const asks of books) {
      for (const schedule of schedules) {
        for (const usd of [0.013, 0.05, 0.37, 1, 2.5, 7.77, 12, 100]) {
          const depthSteps = Math.floor(asks.reduce((n, a) => n + a.size, 0) * 100 + 1e-9)
          let steps = 0
          while (steps < depthSteps && totalOf(asks, steps + 1, schedule) <= microOf(usd) * 1_000_000n) steps++
          const fill = walkBuy(asks, { usd }, schedule)
          expect(fill._tag === "Filled" ? Math.round(fill.contracts * 100) : 0).toBe(steps)
        }
      }
    }
  })
})

describe("walk", () => {
  it("picks asks for a buy and bids for a sale", () => {
    const side = { bids: levels([0.4, 10]), asks: levels([0.6, 10]) }
    expect(walk(side, { action: "buy", usd: 6 }, FREE)).toMatchObject({ contracts: 10, priceBeforeFee: 0.6 })
    expect(walk(side, { action: "sell", contracts: 10 }, FREE)).toMatchObject({ contracts: 10, priceBeforeFee: 0.4 })
  })
})
