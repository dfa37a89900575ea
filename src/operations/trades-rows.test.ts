// One row object per stored trade while its trader's figures hold (the HTTP door writes it once).
import { describe, expect, it } from "vitest"
import { aStoredTrade } from "../../test/stream/builders.js"
import { tradeRowOf } from "../intel/rows.js"
import { tradeRowWith } from "./trades.js"

describe("trade rows", () => {
  it("gives the same row object again while the figures are the same, a new one when they move", () => {
    const t = aStoredTrade({ trader: "venue_a:w1" as never })
    const figures = { winRate: 0.6, profit: 1_200, settled: 12 }
    const first = tradeRowWith(t, figures)
    expect(first).toEqual(tradeRowOf(t, figures))
    expect(tradeRowWith(t, { ...figures })).toBe(first)
    const moved = tradeRowWith(t, { ...figures, settled: 13 })
    expect(moved).not.toBe(first)
    expect(moved).toEqual(tradeRowOf(t, { ...figures, settled: 13 }))
    // No live figures: the ones stored with the trade.
    expect(tradeRowWith(t, null)).toEqual(tradeRowOf(t))
  })

  it("a settled trade (a new stored object) gets its own row with its result", () => {
    const t = aStoredTrade({ trader: null })
    const row = tradeRowWith(t, null)
    expect(tradeRowWith(t, null)).toBe(row)
    const settled = { ...t, result: "win" as const, profit: 10 }
    expect(tradeRowWith(settled, null)).toEqual(tradeRowOf(settled))
    expect(tradeRowWith(settled, null).result).toBe("win")
  })
})
