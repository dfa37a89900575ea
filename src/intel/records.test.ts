import { describe, expect, it } from "vitest"
import type { Category, Kind, TradeResult } from "../domain/enums.js"
import { DAY_MS } from "./config.js"
import {
  bestKind, indexRecords, isWinningRecord, rankByProfit, recordRows, recordStats, summaryFigures, traderRecord,
  type RecordTrade,
} from "./records.js"
import { kindsTraded, similarTraders } from "./similar.js"

const ASOF = 100 * DAY_MS
let seq = 0
const bet = (fields: Partial<RecordTrade> & { result?: TradeResult } = {}): RecordTrade => {
  const price = fields.price ?? 0.5
  const usd = fields.usd ?? 100
  const result = fields.result ?? "open"
  return {
    id: `r${String(++seq).padStart(4, "0")}`, trader: "venue_a:ann", venue: "venue_a", time: ASOF - DAY_MS,
    category: "sports" as Category, kind: "nba" as Kind, action: "buy", price, contracts: usd / price, usd, entry: "open",
    result, settledAt: result === "open" ? null : ASOF - 1, ...fields,
  }
}
const bets = (n: number, fields: Partial<RecordTrade>): Array<RecordTrade> => Array.from({ length: n }, () => bet(fields))

describe("recordStats", () => {
  it("dollar figures and rates are rounded to 6 decimals (sums of many trades carry no float dust)", () => {
    const trades = Array.from({ length: 40 }, (_, i) => bet({ usd: 10.1 + i / 7, price: 0.37 + (i % 5) / 100, result: i % 3 === 0 ? "loss" : "win" }))
    const stats = recordStats(trades, ASOF)
    for (const value of [stats.profit, stats.volume, stats.staked, stats.return, stats.winRate, stats.avgEntry]) {
      expect(value).not.toBeNull()
      expect(Number((value ?? 0).toFixed(6))).toBe(value)
    }
  })

  it("rates are null under 10 settled bets", () => {
    const stats = recordStats([...bets(5, { result: "win" }), ...bets(4, { result: "loss" })], ASOF)
    expect(stats).toMatchObject({ settled: 9, wins: 5, losses: 4, winRate: null, return: null })
    expect(stats.profit).toBeCloseTo(100)
  })

  it("win rate is wins / settled and return is profit / money traded from 10 settled bets", () => {
    const stats = recordStats([...bets(6, { result: "win", price: 0.25 }), ...bets(4, { result: "loss" })], ASOF)
    expect(stats.winRate).toBeCloseTo(0.6)
    expect(stats.profit).toBeCloseTo(6 * 300 - 400)
    expect(stats.return).toBeCloseTo(1400 / 1000)
  })

  it("return's money is every trade's dollars, sales and open buys included, voided buys left out", () => {
    const settled = [...bets(6, { result: "win", price: 0.25 }), ...bets(4, { result: "loss" })]
    const stats = recordStats([
      ...settled, bet({ result: "open", usd: 250 }), bet({ action: "sell", usd: 250 }), bet({ result: "void", usd: 5_000 }),
    ], ASOF)
    expect(stats.volume).toBe(6_500)
    expect(stats.return).toBeCloseTo(1400 / 1500)
  })

  it("voids are trades and volume but not settled bets", () => {
    const stats = recordStats([bet({ result: "void" }), bet({ result: "win" })], ASOF)
    expect(stats).toMatchObject({ trades: 2, settled: 1, voids: 1, volume: 200, staked: 100 })
  })

  it("sells count in trades and volume only; avgEntry is buy dollars over buy contracts", () => {
    const stats = recordStats([bet({ price: 0.2, usd: 20 }), bet({ price: 0.8, usd: 80 }), bet({ action: "sell", price: 0.9, usd: 45, result: "win" })], ASOF)
    expect(stats).toMatchObject({ trades: 3, settled: 0, volume: 145 })
    expect(stats.avgEntry).toBeCloseTo(100 / 200)
  })

  it("a bet settling after asOf is not settled yet", () => {
    expect(recordStats([bet({ result: "win", settledAt: ASOF + 1 })], ASOF).settled).toBe(0)
    expect(recordStats([bet({ result: "win", settledAt: ASOF })], ASOF).settled).toBe(1)
  })
})

describe("recordRows", () => {
  it("today covers (asOf − 24 h, asOf]", () => {
    const trades = [bet({ time: ASOF - DAY_MS }), bet({ time: ASOF - DAY_MS + 1 }), bet({ time: ASOF }), bet({ time: ASOF + 1 })]
    const rows = recordRows(trades, ASOF)
    const whole = (period: string) => rows.find((r) => r.period === period && r.category === null)
    expect(whole("today")?.trades).toBe(2)
    expect(whole("week")?.trades).toBe(3)
    expect(whole("all")?.trades).toBe(3)
  })

  it("orders rows: trader, period, whole record, then each category followed by its kinds", () => {
    const trades = [
      bet({ kind: "nfl" }), bet({ kind: "nba" }), bet({ category: "crypto", kind: "bitcoin" }),
      bet({ category: "politics", kind: null }), bet({ category: null, kind: null }), bet({ trader: "venue_a:abe" }),
    ]
    const rows = recordRows(trades, ASOF).filter((r) => r.trader === "venue_a:ann" && r.period === "all")
    expect(rows.map((r) => `${r.category}/${r.kind}`)).toEqual([
      "null/null", "sports/null", "sports/nfl", "sports/nba", "politics/null", "crypto/null", "crypto/bitcoin",
    ])
    expect(rows[0]?.trades).toBe(5)
    expect(recordRows(trades, ASOF)[0]?.trader).toBe("venue_a:abe")
  })

  it("an idle trader still has a zero whole record in every period", () => {
    const rows = recordRows([bet({ time: 0 })], ASOF)
    expect(rows.find((r) => r.period === "today")).toMatchObject({ trades: 0, settled: 0, profit: 0, lastTradeAt: null, avgEntry: null })
  })
})

describe("trader record, best kind, rank, summary", () => {
  const trades = [
    ...bets(3, { kind: "nba", result: "win" }),
    ...bets(2, { kind: "nfl", result: "win", price: 0.2 }),
    ...bets(12, { category: "crypto", kind: "bitcoin", result: "loss" }),
  ]
  const rows = recordRows(trades, ASOF)

  it("best kind is the kind with the highest profit", () => {
    const record = traderRecord(rows, "venue_a:ann", "all")
    expect(record?.bestKind).toBe("nfl")
    expect(record?.byCategory.map((r) => r.category)).toEqual(["sports", "crypto"])
    expect(record?.byKind.map((r) => r.kind)).toEqual(["nfl", "nba", "bitcoin"])
    expect(record?.record.settled).toBe(17)
    expect(traderRecord(rows, "venue_a:nobody", "all")).toBeNull()
  })

  it("ties in best kind go to more settled bets, then spec order", () => {
    const tied = recordRows([bet({ kind: "nfl", result: "win" }), bet({ kind: "nba", result: "win" })], ASOF).filter((r) => r.period === "all")
    expect(bestKind(tied)).toBe("nfl")
    expect(bestKind([])).toBeNull()
  })

  it("ranks by profit within a venue, ties by ref; traders without settled bets are unranked", () => {
    const ranks = rankByProfit([
      { trader: "venue_a:b", venue: "venue_a", profit: 10, settled: 1 },
      { trader: "venue_a:a", venue: "venue_a", profit: 10, settled: 1 },
      { trader: "venue_a:c", venue: "venue_a", profit: 50, settled: 2 },
      { trader: "venue_a:d", venue: "venue_a", profit: 99, settled: 0 },
      { trader: "venue_b:e", venue: "venue_b", profit: -5, settled: 3 },
    ])
    expect(ranks.get("venue_a:c")).toEqual({ position: 1, outOf: 3 })
    expect(ranks.get("venue_a:a")).toEqual({ position: 2, outOf: 3 })
    expect(ranks.get("venue_a:b")).toEqual({ position: 3, outOf: 3 })
    expect(ranks.get("venue_a:d")).toBeUndefined()
    expect(ranks.get("venue_b:e")).toEqual({ position: 1, outOf: 1 })
  })

  it("the trade row summary uses the kind's record, or the whole record when the kind has none settled", () => {
    const index = indexRecords(rows)
    expect(summaryFigures(index, "venue_a:ann", "crypto", "bitcoin")).toEqual({ winRate: 0, profit: -1200, settled: 12 })
    const nba = summaryFigures(index, "venue_a:ann", "sports", "nba")
    expect(nba).toMatchObject({ winRate: null, settled: 3 })
    expect(nba.profit).toBeCloseTo(300)
    expect(summaryFigures(index, "venue_a:ann", "sports", "mlb").settled).toBe(17)
    expect(summaryFigures(index, "venue_a:ann", null, null).settled).toBe(17)
    expect(summaryFigures(index, "venue_a:nobody", null, null)).toEqual({ winRate: null, profit: null, settled: 0 })
  })
})

describe("winning record", () => {
  it("needs 10 settled bets, a 55 % win rate and a profit", () => {
    expect(isWinningRecord({ settled: 10, wins: 6, profit: 1 })).toBe(true)
    expect(isWinningRecord({ settled: 9, wins: 9, profit: 100 })).toBe(false)
    expect(isWinningRecord({ settled: 20, wins: 10, profit: 100 })).toBe(false)
    expect(isWinningRecord({ settled: 20, wins: 11, profit: 0 })).toBe(false)
  })
})

describe("similar traders", () => {
  it("ranks by Jaccard over kinds traded, ties by ref, leaving out itself and strangers", () => {
    const similar = similarTraders({ ref: "venue_a:me", kinds: ["nba", "nfl"] }, [
      { ref: "venue_a:me", name: null, profit: 0, kinds: ["nba", "nfl"] },
      { ref: "venue_a:z", name: "Zed", profit: 5, kinds: ["nba"] },
      { ref: "venue_a:y", name: null, profit: 7, kinds: ["nfl"] },
      { ref: "venue_b:x", name: null, profit: 1, kinds: ["nba", "nfl"] },
      { ref: "venue_b:w", name: null, profit: 1, kinds: ["bitcoin"] },
    ])
    expect(similar.map((s) => [s.ref, s.similarity])).toEqual([["venue_b:x", 1], ["venue_a:y", 0.5], ["venue_a:z", 0.5]])
  })

  it("kinds traded come in spec order", () => {
    expect(kindsTraded([bet({ kind: "nba" }), bet({ kind: "nfl" }), bet({ kind: null })])).toEqual(["nfl", "nba"])
  })
})
