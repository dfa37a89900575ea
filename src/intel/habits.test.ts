import { describe, expect, it } from "vitest"
import type { TradeEntry, TradeResult } from "../domain/enums.js"
import { DAY_MS, HOUR_MS } from "./config.js"
import { behaviour, byPrice, bySize, curve, habits, hours, priceBandOf, streaks, usdLabel } from "./habits.js"
import type { RecordTrade } from "./records.js"

const T0 = Date.parse("2025-01-06T15:00:00Z") // a Monday, 10:00 in New York
const ASOF = T0 + 400 * DAY_MS
let seq = 0
const trade = (fields: Partial<RecordTrade> & { result?: TradeResult; entry?: TradeEntry | null } = {}): RecordTrade => {
  const price = fields.price ?? 0.5
  const usd = fields.usd ?? 100
  const result = fields.result ?? "open"
  return {
    id: `h${String(++seq).padStart(4, "0")}`, trader: "venue_a:ann", venue: "venue_a", time: T0, category: "sports", kind: "nba",
    action: "buy", price, contracts: usd / price, usd, entry: "open", result, settledAt: result === "open" ? null : T0 + HOUR_MS, ...fields,
  }
}

describe("curve", () => {
  it("runs profit by settlement time, one point per instant, and totals UTC months", () => {
    const trades = [
      trade({ result: "win", price: 0.5, usd: 100, settledAt: T0 + DAY_MS }),
      trade({ result: "loss", usd: 30, settledAt: T0 + DAY_MS }),
      trade({ result: "void", settledAt: T0 + 2 * DAY_MS }),
      trade({ result: "win", price: 0.25, usd: 10, settledAt: T0 + 40 * DAY_MS }),
      trade({ result: "open" }),
    ]
    const { points, months } = curve(trades, ASOF)
    expect(points).toEqual([{ time: T0 + DAY_MS, profit: 70, trades: 2 }, { time: T0 + 40 * DAY_MS, profit: 100, trades: 3 }])
    expect(months).toEqual([{ month: "2025-01", trades: 2, profit: 70 }, { month: "2025-02", trades: 1, profit: 30 }])
  })

  it("gives running and monthly profit to 6 decimals, not float dust", () => {
    // 0.1 + 0.2 of profit is 0.30000000000000004 as floats: each win of 0.1 at 0.5 pays 0.1.
    const trades = [0.1, 0.2, 0.7].map((usd, i) => trade({ result: "win", price: 0.5, usd, settledAt: T0 + (i + 1) * HOUR_MS }))
    const { points, months } = curve(trades, ASOF)
    expect(points.map((p) => p.profit)).toEqual([0.1, 0.3, 1])
    expect(months.map((m) => m.profit)).toEqual([1])
  })
})

describe("bands", () => {
  it("size bands hold equal counts, smallest first, labelled by their range", () => {
    const trades = [500, 900, 1_000, 2_000, 5_000, 9_000, 12_500, 20_000].map((usd) => trade({ usd }))
    expect(bySize(trades, ASOF).map((b) => [b.label, b.trades])).toEqual([
      ["$500–$900", 2], ["$1k–$2k", 2], ["$5k–$9k", 2], ["$12.5k–$20k", 2],
    ])
  })

  it("fewer than four buys leave bands out; sells are not bets", () => {
    expect(bySize([trade({ usd: 1_000 }), trade({ usd: 1_000, action: "sell" })], ASOF).map((b) => b.label)).toEqual(["$1k"])
    expect(bySize([], ASOF)).toEqual([])
  })

  it("labels dollars as $950, $1k, $12.5k, $1.2M", () => {
    expect([950, 999.4, 999.6, 12_500, 1_234_567, 999_999].map(usdLabel)).toEqual(["$950", "$999", "$1k", "$12.5k", "$1.2M", "$1M"])
  })

  it("price bands are [0, 0.2) … [0.8, 1], always five", () => {
    expect([0, 0.19, 0.2, 0.79, 0.8, 1].map(priceBandOf)).toEqual([0, 0, 1, 3, 4, 4])
    const rows = byPrice([trade({ price: 0.1, usd: 10 }), trade({ price: 0.15, usd: 30 })], ASOF)
    expect(rows.map((r) => r.label)).toEqual(["0.00-0.20", "0.20-0.40", "0.40-0.60", "0.60-0.80", "0.80-1.00"])
    expect(rows[0]?.trades).toBe(2)
    expect(rows[0]?.avgEntry).toBeCloseTo(40 / 300)
    expect(rows[1]).toMatchObject({ trades: 0, avgEntry: null, winRate: null })
  })
})

describe("behaviour and hours", () => {
  it("counts every entry, unknown for null", () => {
    const rows = behaviour([trade({ entry: "open" }), trade({ entry: "add" }), trade({ entry: "add" }), trade({ entry: null, action: "sell" })], ASOF)
    expect(rows).toEqual([
      { entry: "open", trades: 1 }, { entry: "add", trades: 2 }, { entry: "flip", trades: 0 },
      { entry: "trim", trades: 0 }, { entry: "close", trades: 0 }, { entry: "unknown", trades: 1 },
    ])
  })

  it("counts trades per US Eastern weekday and hour", () => {
    const cells = hours([trade(), trade(), trade({ time: T0 + 14 * HOUR_MS })], ASOF)
    expect(cells).toEqual([{ weekday: 1, hour: 10, trades: 2 }, { weekday: 2, hour: 0, trades: 1 }])
  })
})

describe("streaks", () => {
  const at = (result: TradeResult, day: number) => trade({ result, settledAt: T0 + day * DAY_MS })

  it("follows settlement order; voids neither extend nor break a run", () => {
    const trades = [at("win", 1), at("win", 2), at("void", 3), at("win", 4), at("loss", 5), at("loss", 6)]
    expect(streaks(trades, ASOF)).toEqual({ current: 2, currentKind: "loss", longestWin: 3, longestLoss: 2 })
  })

  it("is empty without settled bets", () => {
    expect(streaks([at("void", 1), trade()], ASOF)).toEqual({ current: 0, currentKind: null, longestWin: 0, longestLoss: 0 })
  })

  it("habits bundles all five", () => {
    expect(Object.keys(habits([at("win", 1)], ASOF))).toEqual(["bySize", "byPrice", "behaviour", "hours", "streaks"])
  })
})
