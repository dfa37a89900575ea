import { describe, expect, it } from "vitest"
import { type Bar, Bars, coarsen, mergeBars, minuteOf } from "./bars.js"

const T0 = 1_768_478_400_000 // a minute boundary

describe("Bars", () => {
  it("floors times to the minute, before 1970 too", () => {
    expect(minuteOf(T0 + 59_999)).toBe(T0)
    expect(minuteOf(T0 + 60_000)).toBe(T0 + 60_000)
    expect(minuteOf(-1)).toBe(-60_000)
  })

  it("builds open/high/low/close and volume per minute, a new bar at each boundary", () => {
    const bars = new Bars()
    bars.trade(T0 + 1_000, 0.5, 50, 100)
    bars.trade(T0 + 20_000, 0.6, 6, 10)
    bars.trade(T0 + 40_000, 0.4, 4, 10)
    bars.observe(T0 + 59_999, 0.45)
    bars.trade(T0 + 60_000, 0.47, 0.47, 1)
    expect(bars.range(T0, T0 + 120_000)).toEqual([
      { start: T0, open: 0.5, high: 0.6, low: 0.4, close: 0.45, usd: 60, contracts: 120, trades: 3 },
      { start: T0 + 60_000, open: 0.47, high: 0.47, low: 0.47, close: 0.47, usd: 0.47, contracts: 1, trades: 1 },
    ])
  })

  it("reads [from, to) by minute start and skips empty minutes", () => {
    const bars = new Bars()
    bars.trade(T0, 0.5, 5, 10)
    bars.trade(T0 + 180_000, 0.55, 5.5, 10)
    expect(bars.range(T0 + 1, T0 + 180_000)).toEqual([])
    expect(bars.range(T0, T0 + 180_001).map((b) => b.start)).toEqual([T0, T0 + 180_000])
  })

  it("folds a late observation into its own minute without moving that minute's close", () => {
    const bars = new Bars()
    bars.trade(T0 + 10_000, 0.5, 5, 10)
    bars.trade(T0 + 70_000, 0.6, 6, 10)
    bars.trade(T0 + 5_000, 0.3, 3, 10)
    bars.trade(T0 - 30_000, 0.2, 2, 10)
    const [before, first, second] = bars.range(T0 - 60_000, T0 + 120_000)
    expect(before).toMatchObject({ start: T0 - 60_000, open: 0.2, close: 0.2 })
    expect(first).toMatchObject({ start: T0, open: 0.5, close: 0.5, low: 0.3, usd: 8, trades: 2 })
    expect(second).toMatchObject({ start: T0 + 60_000, close: 0.6 })
  })

  it("keeps at most about `keep` bars, dropping the oldest", () => {
    const bars = new Bars(4)
    for (let i = 0; i < 20; i++) bars.trade(T0 + i * 60_000, 0.5, 1, 1)
    expect(bars.size).toBeLessThanOrEqual(5)
    expect(bars.last()?.start).toBe(T0 + 19 * 60_000)
  })

  it("hands over the bars changed since the last take: the minute a trade touched, and every one after a late one", () => {
    const bars = new Bars()
    expect(bars.takeChanged()).toEqual([])
    bars.trade(T0, 0.5, 5, 10)
    bars.trade(T0 + 60_000, 0.6, 6, 10)
    expect(bars.takeChanged().map((b) => b.start)).toEqual([T0, T0 + 60_000])
    expect(bars.takeChanged()).toEqual([])
    bars.observe(T0 + 61_000, 0.65)
    expect(bars.takeChanged()).toEqual([{ start: T0 + 60_000, open: 0.6, high: 0.65, low: 0.6, close: 0.65, usd: 6, contracts: 10, trades: 1 }])
    bars.trade(T0 + 120_000, 0.7, 7, 10)
    bars.trade(T0 + 30_000, 0.4, 4, 10) // late, into the first minute
    expect(bars.takeChanged().map((b) => b.start)).toEqual([T0, T0 + 60_000, T0 + 120_000])
  })

  const bar = (minute: number, close: number, usd = 1): Bar =>
    ({ start: T0 + minute * 60_000, open: close, high: close, low: close, close, usd, contracts: usd / close, trades: 1 })

  it("merges two sources by minute, the second winning a minute both hold", () => {
    const stored = [bar(0, 0.4), bar(1, 0.45), bar(3, 0.5)]
    const live = [bar(1, 0.46), bar(2, 0.47)]
    expect(mergeBars(stored, live).map((b) => [b.start - T0, b.close])).toEqual([[0, 0.4], [60_000, 0.46], [120_000, 0.47], [180_000, 0.5]])
  })

  it("coarsens minutes into aligned steps: first open, extreme high and low, last close, summed volume", () => {
    const ten = 600_000
    const bars = [bar(0, 0.4, 2), bar(3, 0.6, 3), bar(9, 0.5, 5), bar(10, 0.3, 1), bar(25, 0.35, 1)]
    expect(coarsen(bars, ten)).toEqual([
      { start: T0, open: 0.4, high: 0.6, low: 0.4, close: 0.5, usd: 10, contracts: 2 / 0.4 + 3 / 0.6 + 5 / 0.5, trades: 3 },
      { start: T0 + ten, open: 0.3, high: 0.3, low: 0.3, close: 0.3, usd: 1, contracts: 1 / 0.3, trades: 1 },
      { start: T0 + 2 * ten, open: 0.35, high: 0.35, low: 0.35, close: 0.35, usd: 1, contracts: 1 / 0.35, trades: 1 },
    ])
    expect(coarsen([], ten)).toEqual([])
  })
})
