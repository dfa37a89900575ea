import { describe, expect, it } from "vitest"
import { payoutPerContract, PRICE_FLOOR, profitOf, resultOf, scoringPrice, settlementProfit } from "./settlement.js"

describe("settlementProfit", () => {
  it("pays S(1 − p)/p on a win, −S on a loss, 0 on a void", () => {
    expect(settlementProfit(100, 0.25, "win")).toBeCloseTo(300)
    expect(settlementProfit(100, 0.25, "loss")).toBe(-100)
    expect(settlementProfit(100, 0.25, "void")).toBe(0)
  })

  it("a win at price 1 makes nothing: the contract cost its payout", () => {
    expect(settlementProfit(500, 1, "win")).toBe(0)
    expect(settlementProfit(500, 1, "loss")).toBe(-500)
  })

  it("a price of 0, below 0 or not a number is floored at a tenth of a cent", () => {
    expect(scoringPrice(0)).toBe(PRICE_FLOOR)
    expect(scoringPrice(-1)).toBe(PRICE_FLOOR)
    expect(scoringPrice(Number.NaN)).toBe(PRICE_FLOOR)
    expect(scoringPrice(1.5)).toBe(1)
    expect(settlementProfit(1, 0, "win")).toBeCloseTo(999)
  })

  it("a stake that is not a positive number risks nothing", () => {
    expect(settlementProfit(0, 0.5, "loss")).toBe(0)
    expect(Object.is(settlementProfit(0, 0.5, "loss"), -0)).toBe(false)
    expect(settlementProfit(-5, 0.5, "win")).toBe(0)
    expect(settlementProfit(Number.POSITIVE_INFINITY, 0.5, "win")).toBe(0)
  })
})

describe("results", () => {
  it("are open without a settlement, void on a void, else win or loss by the winner", () => {
    expect(resultOf("Yes", undefined)).toBe("open")
    expect(resultOf("Yes", { status: "void", time: 1 })).toBe("void")
    expect(resultOf("Yes", { status: "settled", time: 1, winner: "Yes" })).toBe("win")
    expect(resultOf("No", { status: "settled", time: 1, winner: "Yes" })).toBe("loss")
  })

  it("profit is null while open", () => {
    expect(profitOf(100, 0.5, "open")).toBeNull()
    expect(profitOf(100, 0.5, "win")).toBeCloseTo(100)
  })

  it("a contract pays 1 or 0; a void refunds at cost (null payout)", () => {
    expect(payoutPerContract("Yes", { status: "settled", time: 1, winner: "Yes" })).toBe(1)
    expect(payoutPerContract("No", { status: "settled", time: 1, winner: "Yes" })).toBe(0)
    expect(payoutPerContract("No", { status: "void", time: 1 })).toBeNull()
  })
})
