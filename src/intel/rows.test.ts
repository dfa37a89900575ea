// Output rows round what float arithmetic leaves: a settled trade's profit is given to 6 decimals.
import { describe, expect, it } from "vitest"
import type { StoredTrade } from "./pipeline.js"
import { whaleEventOf } from "../operations/v1-events.js"
import { tradeRowOf } from "./rows.js"

const stored = (fields: Partial<StoredTrade>): StoredTrade => ({
  id: "t1", seq: 1, tradeId: "x1", txId: null, time: Date.UTC(2026, 0, 15), venue: "venue_a", market: "venue_a:C1", contract: "venue_a:C1",
  event: null, title: "C1", category: "sports", kind: "nba", outcome: "Yes", outcomeLabel: "Yes", action: "buy", entry: null,
  price: 0.3, usd: 20_000, contracts: 20_000 / 0.3, trader: null, traderName: null, whale: true, summary: null, agreement: null,
  result: "open", profit: null, settledAt: null, ...fields,
})

describe("trade row", () => {
  it("gives profit to 6 decimals, and null while open", () => {
    expect(tradeRowOf(stored({})).profit).toBeNull()
    // S(1 − p)/p at p = 0.3 is 46666.666666666664 as a float.
    const won = tradeRowOf(stored({ result: "win", profit: (20_000 * 0.7) / 0.3, settledAt: Date.UTC(2026, 0, 16) }))
    expect(won.profit).toBe(46_666.666667)
    expect(tradeRowOf(stored({ result: "loss", profit: -20_000, settledAt: Date.UTC(2026, 0, 16) })).profit).toBe(-20_000)
  })
})

describe("v1 whale event", () => {
  it("gives pnlUsd as the trade row's profit, rounded the same", () => {
    const won = stored({ result: "win", profit: (20_000 * 0.7) / 0.3, settledAt: Date.UTC(2026, 0, 16) })
    const event = whaleEventOf({ _tag: "ContractSides", info: () => null }, won)
    expect(event.pnlUsd).toBe(46_666.666667)
    expect(event.pnlUsd).toBe(tradeRowOf(won).profit)
  })
})
