import { describe, expect, it } from "vitest"
import { Bars, minuteOf } from "./bars.js"

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
})
