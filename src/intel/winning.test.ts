// The market call from position rows: counts, wording on venues without named traders, the maxPrice edge.
import { describe, expect, it } from "vitest"
import type { Holder } from "../domain/position.js"
import { callOf, type PositionRowData } from "./winning.js"

const holder = (ref: string, usd: number): Holder => ({ ref, name: null, winRate: 0.7, profit: 1_000, settled: 20, usd, entryPrice: 0.5 })

const row = (fields: Partial<PositionRowData> & { holders?: ReadonlyArray<string> }): PositionRowData => {
  const holders = (fields.holders ?? []).map((ref) => holder(ref, 1_000))
  return {
    contract: "venue_a:C1", market: "venue_a:event:E", outcome: "Yes", outcomeLabel: null, entryPrice: 0.5, price: 0.5, priceAt: null,
    usd: 10_000, openedAt: 0, lastBoughtAt: 0, lead: holders[0] ?? null, others: holders.slice(1),
    split: { sameSideUsd: 0, otherSideUsd: 0, otherSideTraders: 0 }, activity: null,
    record: { settled: 30, winRate: 0.7, maxPrice: 0.7 }, ...fields,
  }
}

describe("callOf", () => {
  it("counts each winning trader on the other sides once, and none who also holds the leading side", () => {
    const call = callOf([
      row({ usd: 50_000, holders: ["a", "b"] }),
      row({ contract: "venue_a:C2", usd: 5_000, holders: ["c", "d", "a"] }),
      row({ contract: "venue_a:C3", usd: 4_000, holders: ["c", "d", "e"] }),
    ])
    expect(call?.reasons).toContain("Other sides: $9,000 from 3 winning traders") // c, d, e (a leads too)
  })

  it("says whale buys, not winning traders, on a venue that names none", () => {
    const call = callOf([row({ contract: "venue_d:X", market: "venue_d:X", outcome: "No", usd: 57_317, entryPrice: 0.88, price: 0.6 })])
    expect(call).toMatchObject({ outcome: "No", action: "buy", detail: "Whale buyers back No and similar bets at 0.60 have paid." })
    expect(call?.reasons[0]).toBe("Whale buys of $57,317 on No in the last 24 hours at an average 0.88 (the venue names no traders)")
    expect(call?.reasons).toContain("No whale money on the other side")
    expect(call?.reasons.join(" ")).not.toMatch(/0 winning traders/)
  })

  it("buys below maxPrice only: a price on it is in the band after the profitable run", () => {
    expect(callOf([row({ holders: ["a"], price: 0.69 })])?.action).toBe("buy")
    const edge = callOf([row({ holders: ["a"], price: 0.7 })])
    expect(edge).toMatchObject({ action: "watch", detail: "Winning traders lean Yes, but the price is above what the record supports." })
  })
})
