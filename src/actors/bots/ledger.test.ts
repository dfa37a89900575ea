import { describe, expect, it } from "vitest"
import { activityOf, addMatched, curveOf, openTrade, recordOf, sellHeld, settleOn, type BotTrade, type Matched } from "./ledger.js"

const market = { ref: "venue_a:C", contract: "venue_a:C", title: "C", venue: "venue_a" as const }
const buy = (seq: number, cost: number, contracts: number, at: number, side: 0 | 1 = 0): BotTrade =>
  openTrade({ botId: "signal:x", seq, market, side, outcome: side === 0 ? "Yes" : "No", fill: { contracts, cost, fee: 0.1 }, at, sourceUsd: 1_000 })

describe("bot ledger", () => {
  it("settles: win pays 1 a contract, loss 0, void refunds; record and curve follow", () => {
    const trades = [buy(1, 50, 100, 1), buy(2, 40, 80, 2, 1)]
    expect(settleOn(trades, "venue_a:C", "Yes", 10)).toBe(true)
    expect(trades[0]).toMatchObject({ status: "closed", result: "win", exitPrice: 1, profit: 50, closedAt: 10 })
    expect(trades[1]).toMatchObject({ result: "loss", exitPrice: 0, profit: -40 })
    const record = recordOf(trades, () => null)
    expect(record).toMatchObject({ trades: 2, settled: 2, wins: 1, losses: 1, open: 0, winRate: 0.5, realized: 10, unrealized: 0, profit: 10, staked: 90 })
    expect(record.return).toBeCloseTo(10 / 90, 6)
    expect(curveOf(trades)).toEqual([{ time: 10, profit: 50 }, { time: 10, profit: 10 }])
    const voided = [buy(1, 50, 100, 1)]
    settleOn(voided, "venue_a:C", null, 5)
    expect(voided[0]).toMatchObject({ result: "void", profit: 0, exitPrice: voided[0]!.entryPrice })
  })

  it("a sale shares proceeds by contracts; unrealized marks open trades at the side's price", () => {
    const trades = [buy(1, 50, 100, 1), buy(2, 30, 50, 2), buy(3, 20, 40, 3, 1)]
    sellHeld(trades, [trades[0]!, trades[1]!], { contracts: 150, cost: 90, fee: 1 }, 9)
    expect(trades[0]).toMatchObject({ status: "closed", profit: 10, result: "win", closedAt: 9 })
    expect(trades[1]).toMatchObject({ status: "closed", profit: 0, result: "loss" })
    expect(recordOf(trades, () => 0.6).unrealized).toBeCloseTo(40 * 0.4 - 20, 6)
  })

  it("activity counts matches in the 30-day window with their median", () => {
    const matched: Array<Matched> = []
    const day = 86_400_000
    for (const [t, usd] of [[0, 10], [20 * day, 30], [40 * day, 20]] as const) addMatched(matched, t, usd)
    expect(activityOf(matched, 40 * day)).toEqual({ trades: 2, windowDays: 30, medianTradeUsd: 25, lastTradeAt: 40 * day })
    expect(activityOf([], 0)).toEqual({ trades: 0, windowDays: 30, medianTradeUsd: null, lastTradeAt: null })
  })
})
