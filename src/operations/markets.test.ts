import { describe, expect, it } from "vitest"
import type { MarketInfo } from "../domain/market-events.js"
import { listingTime } from "./markets.js"

const info = (listedAt: number, opensAt: number | null): MarketInfo => ({
  ref: "venue_a:C1", venue: "venue_a", contract: "C1", event: null, eventTitle: null, title: "C1", category: null, kind: null,
  sides: [{ id: "yes", name: "Yes", label: "Yes" }, { id: "no", name: "No", label: "No" }],
  rule: null, series: null, opensAt, closesAt: null, feeRate: null, listedAt,
})

describe("listingTime (sort=newest)", () => {
  it("is the listing's own time; a listing with none (a Kalshi history row, listed at 0) counts from its open time, up to now", () => {
    expect(listingTime(info(5_000, 1_000), 10_000)).toBe(5_000)
    expect(listingTime(info(0, 7_000), 10_000)).toBe(7_000)
    expect(listingTime(info(0, 12_000), 10_000)).toBe(10_000) // opens later: not newer than now
    expect(listingTime(info(0, null), 10_000)).toBe(0)
  })
})
