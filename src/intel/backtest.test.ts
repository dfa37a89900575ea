// Backtest scoring by hand-computed examples: settlement arithmetic, sizing, voids and open trades,
// the signal's fields, the weekly curve, holdout halves (with their days), breakdown buckets and sweep
// results (with days, sizing and their own curves), a sweep, byCategory.
import { describe, expect, it } from "vitest"
import type { SignalBacktest, TraderBacktest } from "../domain/backtest.js"
import type { Signal } from "../domain/signal.js"
import type { TraderRef } from "../domain/refs.js"
import { BacktestHistory, type HistoryTrade } from "./backtest-store.js"
import { backtestWindow, holdoutSplit, priceBand, scoreSignal, scoreTrader } from "./backtest.js"
import { DAY_MS } from "./config.js"

// Wednesday 2026-03-04 12:00 UTC.
const NOW = Date.UTC(2026, 2, 4, 12)
let seq = 0

const aTrade = (over: Partial<HistoryTrade> = {}): HistoryTrade => {
  seq++
  return {
    id: `t${seq}`, seq, time: NOW - DAY_MS, venue: "venue_a", contract: `venue_a:c${seq}`, outcome: "Yes",
    title: "Will the Lakers win?", category: "sports", kind: null, action: "buy", entry: "open", price: 0.5, usd: 20_000,
    trader: null, whale: true, result: "win", settledAt: NOW - DAY_MS / 2, ...over,
  }
}

const historyOf = (trades: ReadonlyArray<HistoryTrade>): BacktestHistory => {
  const h = new BacktestHistory()
  h.addAll(trades)
  return h
}

const signalRequest = (signal: Partial<Signal> = {}, over: Partial<SignalBacktest> = {}): SignalBacktest => ({
  signal: { entry: "all", ...signal } as Signal, sizing: { usd: 100 }, days: 30, holdout: false, ...over,
})

describe("settlement arithmetic", () => {
  it("scores S(1 − p)/p on a win, −S on a loss; voids and open trades are counted but not scored", () => {
    const h = historyOf([
      aTrade({ price: 0.25, result: "win" }), // +300
      aTrade({ price: 0.8, result: "loss" }), // −100
      aTrade({ price: 0.4, result: "void" }),
      aTrade({ price: 0.5, result: "open", settledAt: null }),
    ])
    const s = scoreSignal(h, signalRequest(), NOW)
    expect(s).toMatchObject({ days: 30, sizing: { usd: 100 }, trades: 4, settled: 3, wins: 1, losses: 1, open: 1, winRate: 0.5, staked: 200, profit: 200, return: 1 })
  })

  it("stakes a percent of the trade, capped at maxUsd", () => {
    const h = historyOf([aTrade({ usd: 10_000, price: 0.5 }), aTrade({ usd: 1_000, price: 0.5, result: "loss" })])
    const s = scoreSignal(h, signalRequest({}, { sizing: { percent: 2, maxUsd: 150 } }), NOW)
    // 2 % of 10,000 = 200 → capped at 150, wins 150; 2 % of 1,000 = 20, loses 20.
    expect(s).toMatchObject({ staked: 170, profit: 130 })
  })

  it("treats a trade settled after now as open, and a trade outside the window as absent", () => {
    const h = historyOf([
      aTrade({ settledAt: NOW + 1 }),
      aTrade({ time: NOW - 31 * DAY_MS }),
      aTrade({ time: NOW + 1 }),
    ])
    expect(scoreSignal(h, signalRequest(), NOW)).toMatchObject({ trades: 1, open: 1, settled: 0, winRate: null, return: null, staked: 0, profit: 0 })
  })
})

describe("signal fields", () => {
  const trades = [
    aTrade({ venue: "venue_b", category: "politics", title: "Who wins the Senate?", price: 0.3, usd: 12_000, entry: "add", trader: "venue_b:ann" }),
    aTrade({ venue: "venue_a", category: "sports", title: "Lakers vs Celtics", price: 0.6, usd: 50_000, entry: "open" }),
    aTrade({ venue: "venue_d", category: null, title: "Rain in Paris", price: 0.9, usd: 30_000, entry: null }),
    aTrade({ venue: "venue_a", action: "sell", price: 0.5 }),
    aTrade({ venue: "venue_b", whale: false, trader: "venue_b:ann", usd: 300, price: 0.5, title: "Small one" }),
  ]
  const h = historyOf(trades)
  const count = (signal: Partial<Signal>) => scoreSignal(h, signalRequest(signal), NOW).trades

  it("scores whale buys only, unless traders are named (then their buys of any size)", () => {
    expect(count({})).toBe(3)
    expect(count({ traders: ["venue_b:ann" as TraderRef] })).toBe(2)
    expect(count({ traders: ["venue_b:nobody" as TraderRef] })).toBe(0)
    expect(count({ traders: ["venue_b:ann" as TraderRef], minUsd: 1_000 })).toBe(1)
  })

  it("filters venue, category, sizes, prices, entry and keywords", () => {
    expect(count({ venue: ["venue_a", "venue_d"] })).toBe(2)
    expect(count({ category: ["politics", "sports"] })).toBe(2)
    expect(count({ minUsd: 12_000, maxUsd: 30_000 })).toBe(2)
    expect(count({ priceMin: 0.3, priceMax: 0.6 })).toBe(2)
    expect(count({ entry: "open" })).toBe(1)
    expect(count({ entry: "add" })).toBe(1)
    expect(count({ keywords: ["lakers", "PARIS"] })).toBe(2)
  })
})

describe("curve, holdout and breakdown", () => {
  it("has one Monday per week of the window, oldest first, its last cumulative the profit", () => {
    const h = historyOf([aTrade({ time: NOW - 20 * DAY_MS }), aTrade({ time: NOW - 2 * DAY_MS, result: "loss" })])
    const s = scoreSignal(h, signalRequest(), NOW)
    expect(s.curve[0]?.week).toBe("2026-02-02") // NOW − 30 days is Monday 2026-02-02
    expect(s.curve).toHaveLength(5)
    expect(s.curve.at(-1)?.week).toBe("2026-03-02")
    expect(s.curve.map((w) => w.settled).reduce((a, b) => a + b, 0)).toBe(2)
    expect(s.curve.at(-1)?.cumulative).toBe(s.profit)
    expect(s.profit).toBe(0)
  })

  it("splits the window at two thirds: train before splitAt, test from it", () => {
    const w = backtestWindow(NOW, 30)
    const split = holdoutSplit(w)
    expect(split).toBe(NOW - 10 * DAY_MS)
    const h = historyOf([aTrade({ time: split - 1 }), aTrade({ time: split, result: "loss" }), aTrade({ time: split + 1 })])
    const s = scoreSignal(h, signalRequest({}, { holdout: true }), NOW)
    expect(s.holdout?.splitAt).toBe(new Date(split).toISOString())
    expect(s.holdout?.train).toMatchObject({ trades: 1, wins: 1, profit: 100 })
    expect(s.holdout?.test).toMatchObject({ trades: 2, wins: 1, losses: 1, profit: 0, return: 0 })
    expect(s.holdout?.holds).toBe(false)
  })

  it("buckets by price band, month and category", () => {
    expect([0, 0.2, 0.39, 0.4, 0.6, 0.8, 1].map(priceBand)).toEqual([0, 1, 1, 2, 3, 4, 4])
    const h = historyOf([
      aTrade({ price: 0.4, time: Date.UTC(2026, 1, 10) }),
      aTrade({ price: 0.59, time: Date.UTC(2026, 2, 1), category: null }),
      aTrade({ price: 0.85, time: Date.UTC(2026, 2, 2), category: "crypto" }),
    ])
    const band = scoreSignal(h, signalRequest({}, { breakdown: "price_band" }), NOW).breakdown
    expect(band?.rows.map((r) => [r.bucket, r.trades])).toEqual([["0.40-0.60", 2], ["0.80-1.00", 1]])
    const month = scoreSignal(h, signalRequest({}, { breakdown: "month" }), NOW).breakdown
    expect(month?.rows.map((r) => [r.bucket, r.trades])).toEqual([["2026-02", 1], ["2026-03", 2]])
    const category = scoreSignal(h, signalRequest({}, { breakdown: "category" }), NOW).breakdown
    expect(category?.rows.map((r) => [r.bucket, r.trades])).toEqual([["sports", 1], ["crypto", 1], ["unclassified", 1]])
  })
})

describe("holdout days, and the days, sizing and curve of breakdown rows and sweep results", () => {
  const weekOf = (week: string, settled: number, profit: number, cumulative: number) => ({ week, settled, profit, cumulative })
  // NOW − 30 days is Monday 2026-02-02 12:00: weeks 02-02, 02-09, 02-16, 02-23, 03-02.
  const h = historyOf([
    aTrade({ time: Date.UTC(2026, 1, 10), price: 0.25, category: "sports" }), // week 02-09, +300
    aTrade({ time: Date.UTC(2026, 1, 11), price: 0.5, result: "loss", category: "crypto" }), // week 02-09, −100
    aTrade({ time: Date.UTC(2026, 2, 2), price: 0.8, result: "loss", category: "sports" }), // week 03-02, −100
    aTrade({ time: Date.UTC(2026, 1, 17), price: 0.4, result: "void", category: null }), // week 02-16, settled, 0
    aTrade({ time: Date.UTC(2026, 2, 3), price: 0.6, result: "open", settledAt: null, category: "crypto" }), // open: no curve point
  ])
  const mainCurve = [
    weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 2, 200, 200), weekOf("2026-02-16", 1, 0, 200),
    weekOf("2026-02-23", 0, 0, 200), weekOf("2026-03-02", 1, -100, 100),
  ]
  /** Week by week sums of curves (settled and profit), with cumulative recomputed. */
  const sumOf = (curves: ReadonlyArray<ReadonlyArray<{ week: string; settled: number; profit: number }>>) => {
    let cumulative = 0
    return (curves[0] ?? []).map((p, w) => {
      const settled = curves.reduce((n, c) => n + (c[w]?.settled ?? 0), 0)
      const profit = curves.reduce((n, c) => n + (c[w]?.profit ?? 0), 0)
      cumulative += profit
      return weekOf(p.week, settled, profit, cumulative)
    })
  }

  it("gives holdout train and test the days they cover: two thirds and one third, to 2 decimals", () => {
    const daysOf = (days: number) => {
      const s = scoreSignal(h, signalRequest({}, { days, holdout: true }), NOW)
      return [s.holdout?.train.days, s.holdout?.test.days]
    }
    expect(daysOf(30)).toEqual([20, 10])
    expect(daysOf(1)).toEqual([0.67, 0.33])
    expect(daysOf(2)).toEqual([1.33, 0.67])
    expect(daysOf(7)).toEqual([4.67, 2.33])
    for (const days of [1, 2, 7, 30, 90, 365]) {
      const [train = NaN, test = NaN] = daysOf(days)
      expect(train + test).toBeCloseTo(days, 9)
    }
    const s = scoreSignal(h, signalRequest({}, { holdout: true }), NOW)
    // Score fields without sizing and curve.
    expect(Object.keys(s.holdout?.train ?? {}).sort()).toEqual(["days", "losses", "open", "profit", "return", "settled", "staked", "trades", "winRate", "wins"])
    // Split at NOW − 10 days (02-22 12:00): train 02-10, 02-11, 02-17; test 03-02 and the open one.
    expect(s.holdout?.train).toEqual({ days: 20, trades: 3, settled: 3, wins: 1, losses: 1, open: 0, winRate: 0.5, staked: 200, profit: 200, return: 1 })
    expect(s.holdout?.test).toEqual({ days: 10, trades: 2, settled: 1, wins: 0, losses: 1, open: 1, winRate: 0, staked: 100, profit: -100, return: -1 })
  })

  it("gives each breakdown row the request's days and sizing and the weekly curve of its bucket's trades", () => {
    const sizing = { percent: 1, maxUsd: 100 } // 1 % of $20,000 capped at 100: the same stakes as { usd: 100 }
    const s = scoreSignal(h, signalRequest({}, { sizing, breakdown: "category" }), NOW)
    expect(s.curve).toEqual(mainCurve)
    expect(s.breakdown?.rows).toEqual([
      {
        bucket: "sports", days: 30, sizing, trades: 2, settled: 2, wins: 1, losses: 1, open: 0, winRate: 0.5, staked: 200, profit: 200, return: 1,
        curve: [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 1, 300, 300), weekOf("2026-02-16", 0, 0, 300), weekOf("2026-02-23", 0, 0, 300), weekOf("2026-03-02", 1, -100, 200)],
      },
      {
        bucket: "crypto", days: 30, sizing, trades: 2, settled: 1, wins: 0, losses: 1, open: 1, winRate: 0, staked: 100, profit: -100, return: -1,
        curve: [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 1, -100, -100), weekOf("2026-02-16", 0, 0, -100), weekOf("2026-02-23", 0, 0, -100), weekOf("2026-03-02", 0, 0, -100)],
      },
      {
        bucket: "unclassified", days: 30, sizing, trades: 1, settled: 1, wins: 0, losses: 0, open: 0, winRate: null, staked: 0, profit: 0, return: null,
        curve: [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 0, 0, 0), weekOf("2026-02-16", 1, 0, 0), weekOf("2026-02-23", 0, 0, 0), weekOf("2026-03-02", 0, 0, 0)],
      },
    ])
    expect(sumOf(s.breakdown?.rows.map((r) => r.curve) ?? [])).toEqual(mainCurve)

    const month = scoreSignal(h, signalRequest({}, { breakdown: "month" }), NOW).breakdown?.rows ?? []
    expect(month.map((r) => [r.bucket, r.days, r.sizing, r.profit])).toEqual([["2026-02", 30, { usd: 100 }, 200], ["2026-03", 30, { usd: 100 }, -100]])
    expect(month.map((r) => r.curve)).toEqual([
      [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 2, 200, 200), weekOf("2026-02-16", 1, 0, 200), weekOf("2026-02-23", 0, 0, 200), weekOf("2026-03-02", 0, 0, 200)],
      [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 0, 0, 0), weekOf("2026-02-16", 0, 0, 0), weekOf("2026-02-23", 0, 0, 0), weekOf("2026-03-02", 1, -100, -100)],
    ])
    expect(sumOf(month.map((r) => r.curve))).toEqual(mainCurve)
  })

  it("gives each sweep result the request's days and sizing and the weekly curve of the trades that value matches", () => {
    const sizing = { percent: 1, maxUsd: 100 }
    const s = scoreSignal(h, signalRequest({}, { sizing, sweep: { field: "priceMin", values: [0.3, 0.1, 0.9] } }), NOW)
    expect(s.curve).toEqual(mainCurve)
    const [at30, at10, at90] = s.sweep?.results ?? []
    // priceMin 0.3: the loss at 0.5 (02-09), the void at 0.4 (02-16), the loss at 0.8 (03-02), the open one at 0.6.
    expect(at30).toEqual({
      value: 0.3, days: 30, sizing, trades: 4, settled: 3, wins: 0, losses: 2, open: 1, winRate: 0, staked: 200, profit: -200, return: -1,
      curve: [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 1, -100, -100), weekOf("2026-02-16", 1, 0, -100), weekOf("2026-02-23", 0, 0, -100), weekOf("2026-03-02", 1, -100, -200)],
    })
    // priceMin 0.1 matches every trade: its curve is the main curve.
    expect(at10).toMatchObject({ value: 0.1, days: 30, sizing, trades: 5, profit: 100, curve: mainCurve })
    // priceMin 0.9 matches none: every week, all zero.
    expect(at90?.curve).toEqual(mainCurve.map((p) => weekOf(p.week, 0, 0, 0)))
    expect(at90).toMatchObject({ value: 0.9, days: 30, sizing, trades: 0, profit: 0 })
    // priceMax sweeps combine the buckets the other way round.
    const max = scoreSignal(h, signalRequest({}, { sweep: { field: "priceMax", values: [0.45, 0.3] } }), NOW).sweep?.results ?? []
    expect(max.map((r) => r.curve)).toEqual([
      [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 1, 300, 300), weekOf("2026-02-16", 1, 0, 300), weekOf("2026-02-23", 0, 0, 300), weekOf("2026-03-02", 0, 0, 300)],
      [weekOf("2026-02-02", 0, 0, 0), weekOf("2026-02-09", 1, 300, 300), weekOf("2026-02-16", 0, 0, 300), weekOf("2026-02-23", 0, 0, 300), weekOf("2026-03-02", 0, 0, 300)],
    ])
  })

  it("leaves the main score as without a sweep or breakdown", () => {
    const plain = scoreSignal(h, signalRequest(), NOW)
    const { sweep: _s, breakdown: _b, ...withBoth } = scoreSignal(h, signalRequest({}, { sweep: { field: "minUsd", values: [1, 2] }, breakdown: "month" }), NOW)
    expect(withBoth).toEqual(plain)
    expect(plain.curve).toEqual(mainCurve)
  })
})

describe("sweep", () => {
  it("gives every value the score of the signal with that field set, in the order sent", () => {
    const h = historyOf([aTrade({ price: 0.2 }), aTrade({ price: 0.5, result: "loss" }), aTrade({ price: 0.8 })])
    const s = scoreSignal(h, signalRequest({ priceMax: 0.9 }, { sweep: { field: "priceMin", values: [0.5, 0.1, 0.9, 0.5] } }), NOW)
    expect(s.trades).toBe(3)
    expect(s.sweep?.results.map((r) => [r.value, r.trades])).toEqual([[0.5, 2], [0.1, 3], [0.9, 0], [0.5, 2]])
    const max = scoreSignal(h, signalRequest({}, { sweep: { field: "priceMax", values: [0.2, 0.6] } }), NOW)
    expect(max.sweep?.results.map((r) => [r.value, r.trades, r.profit])).toEqual([[0.2, 1, 400], [0.6, 2, 300]])
  })
})

describe("trader backtest", () => {
  it("scores every buy of the trader and adds byCategory", () => {
    const ann = "venue_a:ann" as TraderRef
    const h = historyOf([
      aTrade({ trader: ann, category: "politics", price: 0.5 }),
      aTrade({ trader: ann, category: "politics", price: 0.5, result: "loss" }),
      aTrade({ trader: ann, category: "sports", whale: false, usd: 50, price: 0.25 }),
      aTrade({ trader: ann, category: null, result: "open", settledAt: null }),
      aTrade({ trader: "venue_a:bob" }),
    ])
    const request: TraderBacktest = { trader: ann, sizing: { usd: 100 }, days: 30 }
    const s = scoreTrader(h, request, NOW)
    expect(s).toMatchObject({ trades: 4, settled: 3, wins: 2, losses: 1, open: 1, profit: 300 })
    expect(s.byCategory).toEqual([
      { category: "sports", settled: 1, wins: 1, profit: 300, return: 3 },
      { category: "politics", settled: 2, wins: 1, profit: 0, return: 0 },
      { category: null, settled: 0, wins: 0, profit: 0, return: null },
    ])
  })
})
