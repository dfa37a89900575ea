// Invariants of backtests (src/intel/backtest.ts), on generated histories and requests:
// 1. A signal's score equals a straightforward reference: filter the trades, sum settlementProfit.
// 2. A trader's score equals the same reference over that trader's buys; byCategory adds up to it.
// 3. The curve has consecutive Mondays, its settled counts add up to `settled`, its last cumulative
//    is `profit`.
// 4. wins + losses ≤ settled; settled + open = trades.
// 5. Holdout: train and test cover the window with no overlap (each equals the reference over its part);
//    their days are the part of the window each covers and add up to `days`.
// 6. Each sweep result equals a separate backtest with the swept field set to that value (days, sizing
//    and curve included).
// 7. Breakdown rows add up to the score; they carry the request's days and sizing, and their curves
//    (category, month and price band each partition the trades) add up week by week to the main curve.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { BacktestWeek, ScoreFields, SignalBacktest, SweepField, TraderBacktest } from "../../src/domain/backtest.js"
import { sweepConflict } from "../../src/domain/backtest.js"
import { round6 } from "../../src/numbers.js"
import { CATEGORIES, VENUES, type Category, type TradeEntry, type TradeResult, type Venue } from "../../src/domain/enums.js"
import type { TraderRef } from "../../src/domain/refs.js"
import type { Signal, Sizing } from "../../src/domain/signal.js"
import { BacktestHistory, type HistoryTrade } from "../../src/intel/backtest-store.js"
import { backtestWindow, holdoutSplit, scoreSignal, scoreTrader } from "../../src/intel/backtest.js"
import { DAY_MS } from "../../src/intel/config.js"
import { settlementProfit } from "../../src/intel/settlement.js"

const runs = { numRuns: 150 }
const BASE_NOW = Date.UTC(2026, 5, 10, 9, 30)
const TRADERS = ["venue_a:ann", "venue_a:bob", "venue_b:cat", "venue_b:dan"] as const
const TITLES = ["Lakers beat the Celtics?", "Fed cuts rates in June", "Bitcoin above 100k", "Who wins the Senate", "Rain in Paris"]

// ---- generators ------------------------------------------------------------------------------

const rawTrade = fc.record({
  daysAgo: fc.double({ min: -2, max: 380, noNaN: true }),
  venue: fc.constantFrom<Venue>(...VENUES),
  category: fc.constantFrom<Category | null>(...CATEGORIES, null),
  title: fc.constantFrom(...TITLES),
  action: fc.constantFrom<"buy" | "sell">("buy", "buy", "buy", "sell"),
  entry: fc.constantFrom<TradeEntry | null>(null, "open", "add", "flip"),
  price: fc.oneof(fc.integer({ min: 1, max: 99 }).map((c) => c / 100), fc.constantFrom(0.001, 1)),
  usd: fc.oneof(fc.integer({ min: 1, max: 200_000 }), fc.double({ min: 0.5, max: 5_000, noNaN: true })),
  trader: fc.constantFrom<string | null>(null, null, ...TRADERS),
  whale: fc.boolean(),
  result: fc.constantFrom<TradeResult>("open", "win", "win", "loss", "loss", "void"),
  settleDays: fc.double({ min: 0, max: 30, noNaN: true }),
})
type RawTrade = typeof rawTrade extends fc.Arbitrary<infer T> ? T : never

const toTrades = (raw: ReadonlyArray<RawTrade>, now: number): Array<HistoryTrade> =>
  raw.map((r, i) => {
    const time = Math.round(now - r.daysAgo * DAY_MS)
    return {
      id: `t${i}`, seq: i + 1, time, venue: r.venue, contract: `c${i % 7}`, outcome: "Yes", title: r.title,
      category: r.category, kind: null, action: r.action, entry: r.entry, price: r.price, usd: r.usd, trader: r.trader,
      whale: r.whale, result: r.result, settledAt: r.result === "open" ? null : Math.round(time + r.settleDays * DAY_MS),
    }
  })

/** Mostly absent, so that a generated signal still matches some trades. */
const sometimes = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 })

const bounds = (lo: fc.Arbitrary<number>) =>
  fc.tuple(sometimes(lo), sometimes(lo)).map(([a, b]) =>
    a !== undefined && b !== undefined && b < a ? [b, a] as const : [a, b] as const)

const signalArb: fc.Arbitrary<Signal> = fc.record({
  venue: sometimes(fc.subarray([...VENUES], { minLength: 1 })),
  category: sometimes(fc.subarray([...CATEGORIES], { minLength: 1 })),
  usd: bounds(fc.oneof(fc.integer({ min: 0, max: 150_000 }), fc.constant(5_000))),
  prices: bounds(fc.integer({ min: 0, max: 100 }).map((c) => c / 100)),
  entry: fc.constantFrom<"open" | "add" | "all">("all", "all", "open", "add"),
  traders: sometimes(fc.subarray([...TRADERS], { minLength: 1 })),
  keywords: sometimes(fc.subarray(["lakers", "FED", "bitcoin", "senate", "zzz"], { minLength: 1 })),
}).map((g) => {
  const s: Record<string, unknown> = { entry: g.entry }
  if (g.venue !== undefined) s["venue"] = g.venue
  if (g.category !== undefined) s["category"] = g.category
  if (g.usd[0] !== undefined) s["minUsd"] = g.usd[0]
  if (g.usd[1] !== undefined) s["maxUsd"] = g.usd[1]
  if (g.prices[0] !== undefined) s["priceMin"] = g.prices[0]
  if (g.prices[1] !== undefined) s["priceMax"] = g.prices[1]
  if (g.traders !== undefined) s["traders"] = g.traders
  if (g.keywords !== undefined) s["keywords"] = g.keywords
  return s as Signal
})

const sizingArb: fc.Arbitrary<Sizing> = fc.oneof(
  fc.integer({ min: 1, max: 10_000 }).map((usd) => ({ usd })),
  fc.record({ percent: fc.double({ min: 0.01, max: 200, noNaN: true }), maxUsd: fc.integer({ min: 1, max: 50_000 }) }),
)

const sweepArb = fc.record({
  field: fc.constantFrom<SweepField>("priceMin", "priceMax", "minUsd", "maxUsd"),
  values: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 20 }),
})

const requestArb: fc.Arbitrary<SignalBacktest> = fc.record({
  signal: signalArb,
  sizing: sizingArb,
  days: fc.integer({ min: 1, max: 365 }),
  holdout: fc.boolean(),
  sweep: fc.option(sweepArb, { nil: undefined }),
  breakdown: fc.option(fc.constantFrom("category" as const, "month" as const, "price_band" as const), { nil: undefined }),
}).map((r) => {
  const base: SignalBacktest = { signal: r.signal, sizing: r.sizing, days: r.days, holdout: r.holdout }
  const withBreakdown = r.breakdown === undefined ? base : { ...base, breakdown: r.breakdown }
  if (r.sweep === undefined) return withBreakdown
  const price = r.sweep.field.startsWith("price")
  const sweep = { field: r.sweep.field, values: r.sweep.values.map((v) => (price ? v / 100 : v * 1_500)) }
  // Values that would cross the signal's opposite bound are refused by the request Schema; drop the sweep then.
  return sweepConflict(r.signal, sweep) === undefined ? { ...withBreakdown, sweep } : withBreakdown
})

const world = fc.record({
  raw: fc.array(rawTrade, { minLength: 20, maxLength: 250 }),
  nowOffset: fc.integer({ min: 0, max: 14 * DAY_MS }),
})

// ---- reference -------------------------------------------------------------------------------

interface Ref {
  trades: number; settled: number; wins: number; losses: number; open: number; staked: number; profit: number
}

const empty = (): Ref => ({ trades: 0, settled: 0, wins: 0, losses: 0, open: 0, staked: 0, profit: 0 })

const matchesSignal = (t: HistoryTrade, s: Signal): boolean => {
  if (t.action !== "buy") return false
  if (s.traders === undefined ? !t.whale : t.trader === null || !s.traders.includes(t.trader as TraderRef)) return false
  if (s.venue !== undefined && s.venue.length > 0 && !s.venue.includes(t.venue)) return false
  if (s.category !== undefined && s.category.length > 0 && (t.category === null || !s.category.includes(t.category))) return false
  if (s.minUsd !== undefined && t.usd < s.minUsd) return false
  if (s.maxUsd !== undefined && t.usd > s.maxUsd) return false
  if (s.priceMin !== undefined && t.price < s.priceMin) return false
  if (s.priceMax !== undefined && t.price > s.priceMax) return false
  if (s.entry !== "all" && t.entry !== s.entry) return false
  if (s.keywords !== undefined && !s.keywords.some((k) => t.title.toLowerCase().includes(k.toLowerCase()))) return false
  return true
}

const inWindow = (t: HistoryTrade, now: number, days: number): boolean => t.time >= now - days * DAY_MS && t.time <= now

const reference = (trades: ReadonlyArray<HistoryTrade>, sizing: Sizing, now: number): Ref => {
  const out = empty()
  for (const t of trades) {
    const stake = "usd" in sizing ? sizing.usd : Math.min(sizing.maxUsd, (t.usd * sizing.percent) / 100)
    const result = t.result !== "open" && (t.settledAt ?? t.time) <= now ? t.result : "open"
    out.trades++
    if (result === "open") {
      out.open++
      continue
    }
    out.settled++
    if (result === "void") continue
    if (result === "win") out.wins++
    else out.losses++
    out.staked += stake
    out.profit += settlementProfit(stake, t.price, result)
  }
  return out
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 0.011 + 1e-9 * Math.abs(b)

const expectScore = (got: ScoreFields, want: Ref): void => {
  expect({ trades: got.trades, settled: got.settled, wins: got.wins, losses: got.losses, open: got.open })
    .toEqual({ trades: want.trades, settled: want.settled, wins: want.wins, losses: want.losses, open: want.open })
  expect(close(got.staked, want.staked), `staked ${got.staked} vs ${want.staked}`).toBe(true)
  expect(close(got.profit, want.profit), `profit ${got.profit} vs ${want.profit}`).toBe(true)
  expect(got.winRate).toEqual(want.wins + want.losses > 0 ? round6(want.wins / (want.wins + want.losses)) : null)
  // `return` is profit / staked before rounding to the cent, to 6 decimals.
  if (want.staked > 0) expect(Math.abs((got.return ?? NaN) - want.profit / want.staked)).toBeLessThan(5e-7 + 1e-9 * Math.abs(want.profit / want.staked))
  else expect(got.return).toBeNull()
}

/** Two curves over the same weeks with the same settled counts, and money equal to within `slack` dollars per point. */
const expectCurvesClose = (got: ReadonlyArray<BacktestWeek>, want: ReadonlyArray<BacktestWeek>, slack = 0.011): void => {
  expect(got.map((p) => [p.week, p.settled])).toEqual(want.map((p) => [p.week, p.settled]))
  got.forEach((p, i) => {
    const q = want[i]!
    expect(Math.abs(p.profit - q.profit) <= slack && Math.abs(p.cumulative - q.cumulative) <= slack, `week ${p.week}: ${JSON.stringify(p)} vs ${JSON.stringify(q)}`).toBe(true)
  })
}

const setup = (w: { raw: ReadonlyArray<RawTrade>; nowOffset: number }) => {
  const now = BASE_NOW + w.nowOffset
  const trades = toTrades(w.raw, now)
  const history = new BacktestHistory()
  history.addAll(trades)
  return { now, trades, history }
}

// ---- properties ------------------------------------------------------------------------------

describe("signal backtests", () => {
  it("equal the reference over the same matched trades; curve, counts, holdout and breakdown agree", () => {
    fc.assert(fc.property(world, requestArb, (w, request) => {
      const { now, trades, history } = setup(w)
      const matched = trades.filter((t) => inWindow(t, now, request.days) && matchesSignal(t, request.signal))
      const score = scoreSignal(history, request, now)
      expectScore(score, reference(matched, request.sizing, now))

      expect(score.wins + score.losses).toBeLessThanOrEqual(score.settled)
      expect(score.settled + score.open).toBe(score.trades)
      const last = score.curve[score.curve.length - 1]
      expect(last?.cumulative).toBe(score.profit)
      expect(score.curve.reduce((n, p) => n + p.settled, 0)).toBe(score.settled)
      for (let i = 0; i < score.curve.length; i++) {
        const day = Date.parse(`${score.curve[i]?.week}T00:00:00Z`)
        expect(new Date(day).getUTCDay()).toBe(1)
        if (i > 0) expect(day - Date.parse(`${score.curve[i - 1]?.week}T00:00:00Z`)).toBe(7 * DAY_MS)
      }

      if (request.holdout) {
        const split = holdoutSplit(backtestWindow(now, request.days))
        expect(score.holdout?.splitAt).toBe(new Date(split).toISOString())
        expectScore(score.holdout!.train, reference(matched.filter((t) => t.time < split), request.sizing, now))
        expectScore(score.holdout!.test, reference(matched.filter((t) => t.time >= split), request.sizing, now))
        expect(score.holdout!.train.trades + score.holdout!.test.trades).toBe(score.trades)
        expect(score.holdout!.holds).toBe(score.holdout!.test.return !== null && score.holdout!.test.return > 0)
        const { from, to } = backtestWindow(now, request.days)
        expect(score.holdout!.train.days).toBe(Math.round(((split - from) / DAY_MS) * 100) / 100)
        expect(score.holdout!.test.days).toBe(Math.round(((to - split) / DAY_MS) * 100) / 100)
        expect(Math.abs(score.holdout!.train.days + score.holdout!.test.days - request.days)).toBeLessThan(1e-9)
      } else expect(score.holdout).toBeUndefined()

      if (request.breakdown !== undefined) {
        const rows = score.breakdown?.rows ?? []
        expect(rows.reduce((n, r) => n + r.trades, 0)).toBe(score.trades)
        expect(rows.reduce((n, r) => n + r.settled, 0)).toBe(score.settled)
        expect(new Set(rows.map((r) => r.bucket)).size).toBe(rows.length)
        for (const r of rows) {
          expect(r.days).toBe(request.days)
          expect(r.sizing).toEqual(request.sizing)
          expect(r.curve.at(-1)?.cumulative).toBe(r.profit)
          expect(r.curve.reduce((n, p) => n + p.settled, 0)).toBe(r.settled)
        }
        // The buckets partition the trades: their curves add up to the main curve, week by week.
        let cumulative = 0
        const summed = score.curve.map((p, i) => {
          const profit = rows.reduce((n, r) => n + (r.curve[i]?.profit ?? NaN), 0)
          cumulative += profit
          return { week: p.week, settled: rows.reduce((n, r) => n + (r.curve[i]?.settled ?? NaN), 0), profit, cumulative }
        })
        for (const r of rows) expect(r.curve.map((p) => p.week)).toEqual(score.curve.map((p) => p.week))
        expectCurvesClose(summed, score.curve, 0.005 * (rows.length + 1) + 1e-9)
      } else expect(score.breakdown).toBeUndefined()
    }), runs)
  })

  it("give each sweep value the score of a separate backtest with that value set", () => {
    const withSweep = requestArb.filter((r) => r.sweep !== undefined)
    fc.assert(fc.property(world, withSweep, (w, request) => {
      const { now, history } = setup(w)
      const score = scoreSignal(history, request, now)
      const sweep = request.sweep!
      expect(score.sweep?.field).toBe(sweep.field)
      expect(score.sweep?.results.map((r) => r.value)).toEqual(sweep.values)
      sweep.values.forEach((value, i) => {
        const { sweep: _, ...rest } = request
        const alone = scoreSignal(history, { ...rest, signal: { ...request.signal, [sweep.field]: value } }, now)
        const got = score.sweep!.results[i]!
        const { value: _v, staked: _s, profit: _p, return: _r, curve, ...counts } = got
        expect(counts)
          .toEqual({ days: request.days, sizing: request.sizing, trades: alone.trades, settled: alone.settled, wins: alone.wins, losses: alone.losses, open: alone.open, winRate: alone.winRate })
        expect(close(got.staked, alone.staked) && close(got.profit, alone.profit)).toBe(true)
        // Both ratios to 6 decimals: the sweep's other summation order does not show.
        expect(got.return).toBe(alone.return)
        expectCurvesClose(curve, alone.curve)
        expect(curve.at(-1)?.cumulative).toBe(got.profit)
      })
      // The main score is still the signal as sent.
      const { sweep: _, ...plain } = request
      expect(scoreSignal(history, plain, now).trades).toBe(score.trades)
    }), runs)
  })
})

describe("trader backtests", () => {
  it("equal the reference over the trader's buys of any size; byCategory adds up", () => {
    fc.assert(fc.property(world, fc.constantFrom(...TRADERS), sizingArb, fc.integer({ min: 1, max: 365 }), (w, trader, sizing, days) => {
      const { now, trades, history } = setup(w)
      const request: TraderBacktest = { trader: trader as TraderRef, sizing, days }
      const score = scoreTrader(history, request, now)
      const matched = trades.filter((t) => inWindow(t, now, days) && t.action === "buy" && t.trader === trader)
      expectScore(score, reference(matched, sizing, now))
      const rows = score.byCategory ?? []
      expect(rows.reduce((n, r) => n + r.settled, 0)).toBe(score.settled)
      expect(rows.reduce((n, r) => n + r.wins, 0)).toBe(score.wins)
      expect(Math.abs(rows.reduce((n, r) => n + r.profit, 0) - score.profit)).toBeLessThan(0.01 * (rows.length + 1))
    }), runs)
  })
})
