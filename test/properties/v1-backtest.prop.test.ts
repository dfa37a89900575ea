// POST /v1/backtest's score (src/intel/backtest.ts, `scoreV1`) on generated histories and v1 criteria:
// 1. It equals a straightforward reference: filter the whale buys by every criterion, stake the flat
//    amount on each, sum settlementProfit; winRate 0 and returnPct 0 when nothing was won, lost or staked.
// 2. With holdout, train and test are the reference over the first two thirds and the last third.
// 3. A sweep's result for each value is the score with that bound set to the value; a comparison's rows
//    are each rule's score; a breakdown's rows are the score restricted to each bucket, and add up to it.
// 4. Criteria that can only match nothing (platforms not followed, sell directions, trims and closes,
//    leagues naming no kind) give an all-zero score.
import { round6 } from "../../src/numbers.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CATEGORIES, KINDS_BY_CATEGORY, VENUES, type Category, type Kind, type TradeEntry, type TradeResult, type Venue } from "../../src/domain/enums.js"
import { type Direction, kindsOfLeagues, type PositionDelta, type V1BacktestRequest, type V1EventCriteria } from "../../src/domain/v1.js"
import { BacktestHistory, type HistoryTrade } from "../../src/intel/backtest-store.js"
import { backtestWindow, breakdownV1, compareV1, holdoutSplit, scoreV1, sweepV1 } from "../../src/intel/backtest.js"
import { CATEGORIES as ALL_CATEGORIES } from "../../src/domain/enums.js"
import { DAY_MS } from "../../src/intel/config.js"
import { settlementProfit } from "../../src/intel/settlement.js"

const NOW = Date.UTC(2026, 6, 1, 15, 0)
const TITLES = ["Lakers beat the Celtics?", "Fed cuts rates in June", "Chiefs win the Super Bowl", "Rain in Paris"]
const KINDS: ReadonlyArray<Kind | null> = ["nba", "nfl", "soccer", KINDS_BY_CATEGORY.politics[0] as Kind, null]

const tradeArb = fc.record({
  daysAgo: fc.double({ min: -1, max: 200, noNaN: true }),
  venue: fc.constantFrom<Venue>(...VENUES),
  category: fc.constantFrom<Category | null>(...CATEGORIES, null),
  kind: fc.constantFrom(...KINDS),
  title: fc.constantFrom(...TITLES),
  outcome: fc.constantFrom("Yes", "No"),
  action: fc.constantFrom<"buy" | "sell">("buy", "buy", "sell"),
  entry: fc.constantFrom<TradeEntry | null>(null, "open", "add", "flip"),
  price: fc.integer({ min: 1, max: 99 }).map((c) => c / 100),
  usd: fc.integer({ min: 1_000, max: 200_000 }),
  whale: fc.boolean(),
  result: fc.constantFrom<TradeResult>("open", "win", "loss", "void"),
  settleDays: fc.double({ min: 0, max: 20, noNaN: true }),
})

const sometimes = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: arb, weight: 1 })

const ordered = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b < a ? [b, a] : [a, b])

const criteriaArb: fc.Arbitrary<V1EventCriteria> = fc.record({
  platforms: sometimes(fc.subarray(["venue_a", "venue_b", "venue_b_us", "venue_d", "venue_e"] as const, { minLength: 1 })),
  categories: sometimes(fc.subarray([...CATEGORIES], { minLength: 1 })),
  sportsLeagues: sometimes(fc.subarray(["NBA", "nfl", "EPL", "curling"], { minLength: 1 })),
  usd: fc.tuple(sometimes(fc.integer({ min: 0, max: 150_000 })), sometimes(fc.integer({ min: 0, max: 150_000 }))),
  prices: fc.tuple(sometimes(fc.integer({ min: 0, max: 100 })), sometimes(fc.integer({ min: 0, max: 100 }))),
  eventTypes: sometimes(fc.subarray<PositionDelta>(["open", "add", "flip", "trim", "close", "unknown"], { minLength: 1 })),
  directions: sometimes(fc.subarray<Direction>(["buy_yes", "buy_no", "sell_yes", "sell_no"], { minLength: 1 })),
  keywords: sometimes(fc.subarray(["lakers", "FED", "bowl", "zzz"], { minLength: 1 })),
  sinceDays: fc.integer({ min: 1, max: 365 }),
}).map((g) => {
  const [minAmountUsd, maxAmountUsd] = ordered(g.usd[0], g.usd[1])
  const [priceMin, priceMax] = ordered(g.prices[0], g.prices[1])
  const c: Record<string, unknown> = { sinceDays: g.sinceDays }
  for (const [key, value] of Object.entries({
    platforms: g.platforms, categories: g.categories, sportsLeagues: g.sportsLeagues, eventTypes: g.eventTypes,
    directions: g.directions, keywords: g.keywords, minAmountUsd, maxAmountUsd,
    priceMin: priceMin === undefined ? undefined : priceMin / 100, priceMax: priceMax === undefined ? undefined : priceMax / 100,
  })) if (value !== undefined) c[key] = value
  return c as V1EventCriteria
})

const toTrades = (raw: ReadonlyArray<typeof tradeArb extends fc.Arbitrary<infer T> ? T : never>): Array<HistoryTrade> =>
  raw.map((r, i) => {
    const time = Math.round(NOW - r.daysAgo * DAY_MS)
    return {
      id: `v${i}`, seq: i + 1, time, venue: r.venue, contract: `${r.venue}:c${i % 9}`, outcome: r.outcome, title: r.title,
      category: r.category, kind: r.kind, action: r.action, entry: r.entry, price: r.price, usd: r.usd, trader: null,
      whale: r.whale, result: r.result, settledAt: r.result === "open" ? null : Math.round(time + r.settleDays * DAY_MS),
    }
  })

const matches = (t: HistoryTrade, c: V1EventCriteria): boolean => {
  if (t.action !== "buy" || !t.whale) return false
  if (c.platforms !== undefined && !c.platforms.includes(t.venue)) return false
  if (c.categories !== undefined && (t.category === null || !c.categories.includes(t.category))) return false
  if (c.sportsLeagues !== undefined && (t.kind === null || !kindsOfLeagues(c.sportsLeagues).includes(t.kind))) return false
  if (c.minAmountUsd !== undefined && t.usd < c.minAmountUsd) return false
  if (c.maxAmountUsd !== undefined && t.usd > c.maxAmountUsd) return false
  if (c.priceMin !== undefined && t.price < c.priceMin) return false
  if (c.priceMax !== undefined && t.price > c.priceMax) return false
  if (c.eventTypes !== undefined && !c.eventTypes.includes(t.entry ?? "unknown")) return false
  if (c.directions !== undefined && !c.directions.includes(t.outcome === "No" ? "buy_no" : "buy_yes")) return false
  if (c.keywords !== undefined && !c.keywords.some((k) => t.title.toLowerCase().includes(k.toLowerCase()))) return false
  return true
}

/** The v1 fields over `trades` (already matched), each staked `stake`, settled by `now`. */
const reference = (trades: ReadonlyArray<HistoryTrade>, stake: number, now: number) => {
  let settled = 0, wins = 0, losses = 0, open = 0, staked = 0, profit = 0
  for (const t of trades) {
    const result = t.result !== "open" && (t.settledAt ?? t.time) <= now ? t.result : "open"
    if (result === "open") open++
    else settled++
    if (result !== "win" && result !== "loss") continue
    if (result === "win") wins++
    else losses++
    staked += stake
    profit += settlementProfit(stake, t.price, result)
  }
  return {
    matched: trades.length, settled, wins, losses, open, winRate: wins + losses > 0 ? wins / (wins + losses) : 0,
    stakedUsd: staked, pnlUsd: profit, returnPct: staked > 0 ? (profit / staked) * 100 : 0,
  }
}

type Fields = ReturnType<typeof reference>

const expectFields = (got: Fields, want: Fields): void => {
  const counts = (f: Fields) => ({ matched: f.matched, settled: f.settled, wins: f.wins, losses: f.losses, open: f.open })
  expect(counts(got)).toEqual(counts(want))
  // Ratios are given to 6 decimals (returnPct is the return × 100).
  expect(got.winRate).toBe(round6(want.winRate))
  expect(Math.abs(got.stakedUsd - want.stakedUsd)).toBeLessThanOrEqual(0.011)
  expect(Math.abs(got.pnlUsd - want.pnlUsd)).toBeLessThanOrEqual(0.011 + 1e-9 * Math.abs(want.pnlUsd))
  expect(Math.abs(got.returnPct - want.returnPct)).toBeLessThanOrEqual(5e-5 + 1e-9 * Math.abs(want.returnPct))
}

describe("v1 backtests", () => {
  it("equal the reference over the matched whale buys, and holdout halves over their parts", () => {
    let scored = 0
    fc.assert(fc.property(
      fc.array(tradeArb, { minLength: 10, maxLength: 200 }), criteriaArb, fc.integer({ min: 1, max: 5_000 }), fc.boolean(),
      (raw, criteria, stake, holdout) => {
        const trades = toTrades(raw)
        const history = new BacktestHistory()
        history.addAll(trades)
        const request: V1BacktestRequest = holdout ? { criteria, stake, holdout } : { criteria, stake }
        const score = scoreV1(history, request, NOW)
        const window = backtestWindow(NOW, criteria.sinceDays)
        const matched = trades.filter((t) => t.time >= window.from && t.time <= window.to && matches(t, criteria))
        expectFields(score, reference(matched, stake, NOW))
        if (score.wins + score.losses > 0) scored++
        expect(score.stakeUsd).toBe(stake)
        expect(score.window).toEqual({ sinceDays: criteria.sinceDays, stake })
        if (!holdout) {
          expect(score.holdout).toBeUndefined()
          return
        }
        const split = holdoutSplit(window)
        expect(score.holdout?.splitAt).toBe(new Date(split).toISOString())
        expectFields(score.holdout!.train, reference(matched.filter((t) => t.time < split), stake, NOW))
        const test = reference(matched.filter((t) => t.time >= split), stake, NOW)
        expectFields(score.holdout!.test, test)
        expect(score.holdout?.holds).toBe(test.stakedUsd > 0 && test.pnlUsd > 0)
      },
    ), { numRuns: 200, seed: 11 })
    // Not vacuous: many generated criteria still score some trades.
    expect(scored).toBeGreaterThan(40)
  })

  it("score nothing on criteria that can only match nothing", () => {
    const trades = toTrades(fc.sample(tradeArb, { numRuns: 300, seed: 3 }))
    const history = new BacktestHistory()
    history.addAll(trades)
    const nothing: ReadonlyArray<Partial<V1EventCriteria>> = [
      { platforms: ["venue_e", "venue_g"] }, { directions: ["sell_yes", "sell_no"] }, { eventTypes: ["trim", "close"] },
      { sportsLeagues: ["curling"] },
    ]
    const all = scoreV1(history, { criteria: { sinceDays: 365 }, stake: 100 }, NOW)
    expect(all.matched).toBeGreaterThan(0)
    for (const c of nothing) {
      const score = scoreV1(history, { criteria: { sinceDays: 365, ...c }, stake: 100 }, NOW)
      expect(score).toEqual({
        matched: 0, settled: 0, wins: 0, losses: 0, open: 0, winRate: 0, stakedUsd: 0, pnlUsd: 0, returnPct: 0,
        stakeUsd: 100, window: { sinceDays: 365, stake: 100 },
      })
    }
  })
})

const historyOf = (raw: ReadonlyArray<typeof tradeArb extends fc.Arbitrary<infer T> ? T : never>) => {
  const history = new BacktestHistory()
  history.addAll(toTrades(raw))
  return history
}

const scoreFields = (s: ReturnType<typeof scoreV1>) => {
  const { stakeUsd: _s, window: _w, holdout: _h, ...fields } = s
  return fields
}

describe("v1 backtest variants", () => {
  it("a sweep value scores as the criteria with that bound; compare rows are each rule's score", () => {
    fc.assert(fc.property(
      fc.array(tradeArb, { minLength: 10, maxLength: 150 }), criteriaArb,
      fc.constantFrom("priceMin", "priceMax", "minAmountUsd", "maxAmountUsd" as const),
      fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 20 }),
      (raw, criteria, field, ints) => {
        const history = historyOf(raw)
        const price = field === "priceMin" || field === "priceMax"
        const values = ints.map((v) => (price ? v / 100 : v * 1_500))
        // Drop the opposite bound when values would cross it (the request Schema refuses those).
        const opposite = { priceMin: "priceMax", priceMax: "priceMin", minAmountUsd: "maxAmountUsd", maxAmountUsd: "minAmountUsd" }[field] as keyof V1EventCriteria
        const { [opposite]: _dropped, ...rest } = criteria
        const c = rest as V1EventCriteria
        const sweep = sweepV1(history, { criteria: c, stake: 25, field, values }, NOW)
        expect(sweep.results.map((r) => r.value)).toEqual(values)
        sweep.results.forEach((r) => {
          const { value: _v, ...fields } = r
          // Sums in another order: equal to the cent and the ratio to 1e-6.
          expectFields(fields, scoreFields(scoreV1(history, { criteria: { ...c, [field]: r.value }, stake: 25 }, NOW)))
        })
        const rules = [{ label: "a", criteria: c }, { label: "b", criteria: { ...c, [field]: values[0] } }, { label: "all", criteria: { sinceDays: 365 } }]
        const compared = compareV1(history, { rules, stake: 25 }, NOW)
        expect(compared.stake).toBe(25)
        compared.results.forEach((r, i) => {
          const { label, sinceDays, ...fields } = r
          expect(label).toBe(rules[i]!.label)
          expect(sinceDays).toBe(rules[i]!.criteria.sinceDays)
          expect(fields).toEqual(scoreFields(scoreV1(history, { criteria: rules[i]!.criteria, stake: 25 }, NOW)))
        })
      },
    ), { numRuns: 120, seed: 21 })
  })

  it("breakdown rows are the score restricted to each bucket and add up to it", () => {
    fc.assert(fc.property(
      fc.array(tradeArb, { minLength: 10, maxLength: 150 }), criteriaArb, fc.constantFrom("category", "platform", "month", "price_band" as const),
      (raw, criteria, by) => {
        const history = historyOf(raw)
        const total = scoreV1(history, { criteria, stake: 40 }, NOW)
        const breakdown = breakdownV1(history, { criteria, stake: 40, by }, NOW)
        expect(breakdown.by).toBe(by)
        expect(breakdown.window).toEqual({ sinceDays: criteria.sinceDays, stake: 40 })
        const sum = (k: "matched" | "settled" | "wins" | "losses" | "open") => breakdown.rows.reduce((n, r) => n + r[k], 0)
        for (const k of ["matched", "settled", "wins", "losses", "open"] as const) expect(sum(k)).toBe(total[k])
        expect(Math.abs(breakdown.rows.reduce((n, r) => n + r.pnlUsd, 0) - total.pnlUsd)).toBeLessThan(0.01 * (breakdown.rows.length + 1))
        expect(breakdown.rows.every((r) => r.matched > 0)).toBe(true)
        if (by === "platform") {
          for (const r of breakdown.rows) {
            const only = scoreV1(history, { criteria: { ...criteria, platforms: [r.bucket as never] }, stake: 40 }, NOW)
            const { bucket: _b, ...fields } = r
            if (criteria.platforms === undefined || criteria.platforms.includes(r.bucket as never)) expectFields(fields, scoreFields(only))
          }
        }
        if (by === "category") {
          const names = breakdown.rows.map((r) => r.bucket)
          const order = [...ALL_CATEGORIES, "unclassified"]
          expect([...names].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(names)
        }
      },
    ), { numRuns: 120, seed: 22 })
  })
})
