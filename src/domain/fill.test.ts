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

  it("walks levels best first; each level is a fill at its own price, charged as the venue charges an order", () => {
    const fill = walkBuy(levels([0.5, 10], [0.6, 10]), { usd: 1000 }, { venue: "venue_b_us", feeRate: null })
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill.contracts).toBe(20)
    expect(fill.gross).toBe(11)
    expect(fill.fee).toBe(takerFee("venue_b_us", 10, 0.5) + takerFee("venue_b_us", 10, 0.6)) // 0.17 + 0.17
    expect(fill.cost).toBe(11 + fill.fee)
    expect(fill.levels).toEqual(levels([0.5, 10], [0.6, 10]))
  })

  it("fees of a walk over levels far apart: per fill, not at the average price (which would charge 3.50, 2.50)", () => {
    const wide = levels([0.1, 100], [0.9, 100])
    // Kalshi: 0.07 × 100 × 0.09 = 0.63 a level, the exact sum rounded up to the cent once.
    expect(walkBuy(wide, { usd: 1000 }, KALSHI)).toMatchObject({ contracts: 200, gross: 100, fee: 1.26 })
    // venue_b: each fill floored to 5 decimals, summed: 0.05 × 100 × 0.09 = 0.45 a level.
    expect(walkBuy(wide, { usd: 1000 }, { venue: "venue_b", feeRate: 0.05 })).toMatchObject({ contracts: 200, fee: 0.9 })
    expect(walkSell(levels([0.9, 100], [0.1, 100]), { contracts: 200 }, KALSHI)).toMatchObject({ gross: 100, fee: 1.26, cost: 98.74 })
  })

  it("venue_b_us: each fill half-even to the cent, the order capped at the rounded exact sum", () => {
    // 0.0695 × 0.25 = 0.017375 → 0.02 and 0.0695 × 0.24 = 0.01668 → 0.02; the exact sum 0.034055 → 0.03.
    expect(walkBuy(levels([0.4, 1], [0.5, 1]), { usd: 10 }, { venue: "venue_b_us", feeRate: null })).toMatchObject({ contracts: 2, fee: 0.03 })
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
    // 0.015 would buy it, at 1.5 a contract: more than a contract pays, so nothing fills.
    expect(walkBuy(levels([0.5, 10]), { usd: 0.015 }, KALSHI)).toEqual({
      _tag: "NothingFills",
      reason: "nothing fills: usd 0.015 buys 0.01 contracts at 1.5 each with the fee, more than the $1 a contract pays (a larger usd spreads the fee)",
    })
    // A larger buy spreads the fee: 1.94 contracts for 0.97 plus a 0.04 fee, 0.520619 each.
    expect(walkBuy(levels([0.5, 10]), { usd: 1.01 }, KALSHI)).toMatchObject({ contracts: 1.94, cost: 1.01, avgPrice: 0.520619 })
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

  it("fills nothing that would cost more than $1 a contract with the fee; exactly $1 fills", () => {
    // One contract at 0.995 with a one-cent fee is 1.005.
    expect(walkBuy(levels([0.995, 1]), { usd: 2 }, KALSHI)._tag).toBe("NothingFills")
    // At 0.99 it is 1.00: avgPrice 1, and cost is contracts × avgPrice.
    const fill = walkBuy(levels([0.99, 1]), { usd: 2 }, KALSHI)
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    expect(fill).toMatchObject({ contracts: 1, avgPrice: 1, cost: 1 })
    expect(fill.cost).toBe(fill.gross + fill.fee)
  })

  it("skips empty and out-of-range levels", () => {
    expect(walkBuy(levels([0.5, 0], [0, 5], [0.6, 1]), { usd: 100 }, FREE)).toMatchObject({ contracts: 1, cost: 0.6 })
  })
})

describe("walkSell", () => {
  it("sells nothing when the fee would take all the sale brings (a venue fee is at least a cent an order)", () => {
    expect(walkSell(levels([0.48, 5]), { contracts: 0.01 }, KALSHI)).toEqual({
      _tag: "NothingFills", reason: "nothing fills: the taker fee of $0.01 would take all of the $0.0048 the bids pay for this sale",
    })
    // A sale its fee does not swallow fills, proceeds after the fee.
    expect(walkSell(levels([0.48, 5]), { contracts: 0.05 }, KALSHI)).toMatchObject({ _tag: "Filled", gross: 0.024, fee: 0.01, cost: 0.014 })
  })
  it("says a sale too small for 6 decimals is 0 contracts, not that there are no bids", () => {
    expect(walkSell(levels([0.6, 5]), { contracts: 0.0000001 }, KALSHI)).toEqual({
      _tag: "NothingFills", reason: "nothing fills: contracts 1e-7 is 0 at the 6 decimals a sale is counted in",
    })
  })

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
    return gross + feeOf(asks, Number(contracts) / 1e6, schedule)
  }
  /**
   * The venue's fee of the first `contracts` of `asks` in 1e-12 USD, level by level from the single-fill
   * fee (`takerFee`) and the venue's order rule: venue_b sums the fills' fees; venue_b_us caps that sum
   * at the exact sum's half-even cent; Kalshi rounds the exact sum up to the cent once.
   */
  const feeOf = (asks: ReadonlyArray<{ price: number; size: number }>, contracts: number, schedule: { venue: "venue_a" | "venue_b" | "venue_b_us" | "venue_d"; feeRate: number | null }): bigint => {
    let left = microOf(contracts)
    let fills = 0n // 1e-5 USD
    let exact = 0n // Σ C × p × (1 − p) in 1e-18
    for (const a of asks) {
      const size = microOf(a.size) < left ? microOf(a.size) : left
      if (size <= 0n) break
      left -= size
      const c = Number(size) / 1e6
      fills += BigInt(Math.round((schedule.venue === "venue_b" ? takerFee("venue_b", c, a.price, schedule.feeRate ?? 0) : takerFee(schedule.venue, c, a.price)) * 1e5))
      exact += size * microOf(a.price) * (1_000_000n - microOf(a.price))
    }
    const up = (n: bigint, d: bigint) => (n + d - 1n) / d
    const halfEven = (n: bigint, d: bigint) => {
      const q = n / d
      const twice = (n % d) * 2n
      return twice > d || (twice === d && q % 2n === 1n) ? q + 1n : q
    }
    const cap = halfEven(exact * 695n, 10n ** 20n) * 1000n
    const fee5 = schedule.venue === "venue_b" ? fills
      : schedule.venue === "venue_b_us" ? (fills < cap ? fills : cap)
      : up(exact * 7n, 10n ** 18n) * 1000n
    return fee5 * 10_000_000n
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
          // What fits, unless it would cost more than $1 a contract (then nothing fills).
          const dear = steps > 0 && totalOf(asks, steps, schedule) > BigInt(steps) * 10_000n * 1_000_000n
          const fill = walkBuy(asks, { usd }, schedule)
          expect(fill._tag === "Filled" ? Math.round(fill.contracts * 100) : 0).toBe(dear ? 0 : steps)
          if (fill._tag === "Filled") expect(fill.avgPrice).toBeLessThanOrEqual(1)
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
