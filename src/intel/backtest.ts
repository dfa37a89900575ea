// Backtest scoring (spec: Backtest, Backtest score (v2)): one scan of the backtest history over the
// window [now − days, now] gives the score, its weekly curve, the holdout halves, the breakdown
// buckets, a trader's byCategory and every value of a sweep. Pure: the caller passes `now`.
//
// Rules (README "Backtests"):
// - A signal without `traders` scores whale buys; with `traders`, those traders' buys of any size.
//   A trader backtest scores every buy of that trader. `minUsd`/`maxUsd` still apply when sent.
// - entry `open` = rows whose entry is `open`, `add` = rows whose entry is `add` (unnamed trades have
//   no entry and match only `all`). Keywords: the market title contains any, case-insensitive.
// - Stake S: `usd`, or min(maxUsd, trade usd × percent / 100). Win S(1 − p)/p, loss −S, at the printed
//   price, no fees. A trade settled after `now` is still open. A void counts in `trades` and `settled`
//   but in neither wins nor losses, adds nothing to `staked` (the stake is refunded) or `profit`.
// - The curve has one point per week of the window (UTC, Monday dates, oldest first), settled trades
//   by the week they were placed; `profit` is the curve's last cumulative value. Sweep results and
//   breakdown rows carry their own curve (same weeks) over the trades they cover; those weekly sums are
//   kept per group only when a sweep or breakdown is asked.
// - A sweep result for value v is the score of the signal with that field set to v: rows matching all
//   but the swept field fall in one bucket per row (values sorted), prefix sums give every value.
import { round6 } from "../numbers.js"
import type {
  BacktestBreakdown, BacktestHoldout, BacktestScore, BacktestSweep, BacktestWeek, BreakdownBy, BreakdownRow, CategoryScore,
  ScoreFields, SignalBacktest, SweepField, SweepResult, TraderBacktest,
} from "../domain/backtest.js"
import type { Signal, Sizing } from "../domain/signal.js"
import { isUsdSizing } from "../domain/signal.js"
import { CATEGORIES, KINDS, VENUES } from "../domain/enums.js"
import {
  followedVenues, kindsOfLeagues, type V1BacktestRequest, type V1BacktestScore, type V1Breakdown, type V1BreakdownRequest, type V1CompareRequest,
  type V1CompareTradersRequest, type V1Comparison, type V1Holdout, type V1Sweep, type V1SweepRequest, type V1TraderComparison,
} from "../domain/v1.js"
import { ENTRY, GROUP_CATEGORIES, RESULT, categoryOfCode, type BacktestHistory, type RowList } from "./backtest-store.js"
import { civilFromDays, daysFromCivil } from "./calendar.js"
import { DAY_MS } from "./config.js"
import { isoOf } from "./rows.js"

// Accumulator layout: one block of FIELDS numbers per group.
const FIELDS = 7
const TRADES = 0
const SETTLED = 1
const WINS = 2
const LOSSES = 3
const OPEN = 4
const STAKED = 5
const PROFIT = 6
const MAIN = 0
const TRAIN = 1
const TEST = 2
const FIRST_BUCKET = 3

export const PRICE_BANDS = ["0.00-0.20", "0.20-0.40", "0.40-0.60", "0.60-0.80", "0.80-1.00"] as const
/** Breakdown bucket of a market without a category. */
export const UNCLASSIFIED = "unclassified"

/** The band of a price: 0.40 opens `0.40-0.60`; 1 belongs to `0.80-1.00`. */
export const priceBand = (price: number): number => Math.max(0, Math.min(4, Math.floor(price * 5 + 1e-9)))

export interface BacktestWindow {
  readonly from: number
  readonly to: number
}

export const backtestWindow = (now: number, days: number): BacktestWindow => ({ from: now - days * DAY_MS, to: now })

/** Train is [from, splitAt), test [splitAt, to]: the first two thirds and the last third. */
export const holdoutSplit = (w: BacktestWindow): number => w.from + Math.floor(((w.to - w.from) * 2) / 3)

/** Week number (weeks start on Monday, UTC) of a day count since 1970-01-01, a Thursday. */
const weekOfDay = (day: number): number => Math.floor((day + 3) / 7)
const weekOf = (time: number): number => weekOfDay(Math.floor(time / DAY_MS))
const mondayOf = (week: number): string => {
  const { year, month, day } = civilFromDays(week * 7 - 3)
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
}

/** Start times of the UTC months the window touches, and their `YYYY-MM` names. */
const monthsOf = (w: BacktestWindow): { starts: Float64Array; names: Array<string> } => {
  const first = civilFromDays(Math.floor(w.from / DAY_MS))
  const starts: Array<number> = []
  const names: Array<string> = []
  let { year, month } = first
  for (;;) {
    const start = daysFromCivil(year, month, 1) * DAY_MS
    if (starts.length > 0 && start > w.to) break
    starts.push(start)
    names.push(`${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`)
    month++
    if (month === 13) {
      month = 1
      year++
    }
  }
  return { starts: Float64Array.from(starts), names }
}

interface SweepPlan {
  readonly field: SweepField
  /** Values sorted ascending, and each request value's place among them. */
  readonly sorted: Float64Array
  readonly order: Array<number>
  /** priceMin/minUsd: a value v matches x ≥ v; priceMax/maxUsd: x ≤ v. */
  readonly lower: boolean
  readonly onUsd: boolean
}

interface Plan {
  readonly window: BacktestWindow
  readonly fixedStake: number
  readonly percent: number
  readonly cap: number
  readonly whaleOnly: boolean
  readonly venues: Uint8Array | null
  readonly categories: Uint8Array | null
  /** The one entry code a row must have (v2 `entry`); ENTRY.none = any. */
  readonly entry: number
  /** v1 criteria: entry codes (ENTRY) a row may have; null = any. */
  readonly entries: Uint8Array | null
  /** Kind codes (`kindCode`) a row may have; null = any. */
  readonly kinds: Uint8Array | null
  /** Sides (0 first, 1 second) a row may have bought; null = either. */
  readonly sides: Uint8Array | null
  readonly keywords: ReadonlyArray<string> | null
  /** Bounds every row must meet (the swept field's own bound is left out, see mainLo/mainHi). */
  readonly usdMin: number
  readonly usdMax: number
  readonly priceMin: number
  readonly priceMax: number
  readonly sweep: SweepPlan | null
  /** The swept field's own bound in the signal (the main score still honours it). */
  readonly mainBound: number
  readonly split: number
  readonly buckets: "category" | "month" | "price_band" | "venue" | null
  readonly months: { starts: Float64Array; names: Array<string> }
  readonly firstWeek: number
  readonly weeks: number
  /** Keep weekly sums per group too (for the sweep results' and breakdown rows' curves), not only for MAIN. */
  readonly groupCurves: boolean
  /** Rows to visit: the trader lists, or null for every row of the window. */
  readonly lists: ReadonlyArray<RowList> | null
}

const bucketCount = (plan: Plan): number =>
  plan.buckets === "category" ? CATEGORIES.length + 1 : plan.buckets === "month" ? plan.months.starts.length
    : plan.buckets === "price_band" ? PRICE_BANDS.length : plan.buckets === "venue" ? VENUES.length : 0

interface Sums {
  readonly acc: Float64Array
  /** MAIN's weekly sums (plan.weeks each). */
  readonly weekSettled: Float64Array
  readonly weekProfit: Float64Array
  /** Every group's weekly sums, group × plan.weeks + week; null unless plan.groupCurves. */
  readonly groupSettled: Float64Array | null
  readonly groupProfit: Float64Array | null
  readonly sweepBase: number
}

const mask = <A extends string>(all: ReadonlyArray<A>, chosen: ReadonlyArray<A> | undefined, offset: number): Uint8Array | null => {
  if (chosen === undefined || chosen.length === 0) return null
  const out = new Uint8Array(all.length + offset)
  for (const value of chosen) out[all.indexOf(value) + offset] = 1
  return out
}

/** A mask of small codes (entry, side). */
const codes = (...chosen: ReadonlyArray<number>): Uint8Array => {
  const out = new Uint8Array(8)
  for (const c of chosen) out[c] = 1
  return out
}

const stakeOf = (sizing: Sizing) =>
  isUsdSizing(sizing) ? { fixedStake: sizing.usd, percent: 0, cap: 0 } : { fixedStake: 0, percent: sizing.percent / 100, cap: sizing.maxUsd }

const basePlan = (window: BacktestWindow, sizing: Sizing) => {
  const firstWeek = weekOf(window.from)
  return {
    window, ...stakeOf(sizing), months: monthsOf(window), firstWeek, weeks: weekOf(window.to) - firstWeek + 1,
    venues: null, categories: null, entry: ENTRY.none, entries: null, kinds: null, sides: null, keywords: null, usdMin: -Infinity, usdMax: Infinity,
    priceMin: -Infinity, priceMax: Infinity, sweep: null, mainBound: NaN, split: NaN, buckets: null,
    whaleOnly: false, groupCurves: false, lists: null as ReadonlyArray<RowList> | null,
  }
}

const traderLists = (history: BacktestHistory, refs: ReadonlyArray<string>): Array<RowList> => {
  const out: Array<RowList> = []
  for (const ref of new Set(refs)) {
    const list = history.traderRows(ref)
    if (list !== undefined) out.push(list)
  }
  return out
}

const sweepPlan = (signal: Signal, sweep: SignalBacktest["sweep"]): { sweep: SweepPlan | null; mainBound: number } => {
  if (sweep === undefined) return { sweep: null, mainBound: NaN }
  const sorted = Float64Array.from(sweep.values).sort()
  const order = sweep.values.map((v) => sorted.indexOf(v))
  const lower = sweep.field === "priceMin" || sweep.field === "minUsd"
  const own = signal[sweep.field]
  return {
    sweep: { field: sweep.field, sorted, order, lower, onUsd: sweep.field === "minUsd" || sweep.field === "maxUsd" },
    mainBound: own ?? (lower ? -Infinity : Infinity),
  }
}

const LIST_PENALTY = 3
const listsLength = (lists: ReadonlyArray<RowList>): number => lists.reduce((n, l) => n + l.length, 0)

/**
 * The rows a signal without traders must visit: the whole window, or (when smaller) the whale rows
 * of the venues × categories it names, or the rows of the titles its keywords match. Each is a
 * superset of the matches without repeats; every condition is still checked per row.
 */
const whaleCandidates = (history: BacktestHistory, window: BacktestWindow, venues: Uint8Array | null, categories: Uint8Array | null, keywords: ReadonlyArray<string> | null): ReadonlyArray<RowList> | null => {
  let best: ReadonlyArray<RowList> | null = null
  // Lists are read out of order (slower per row than the window's sequential scan): only when much shorter.
  let bestLength = (history.size - history.firstRowFrom(window.from)) / LIST_PENALTY
  let groups = 0
  for (let v = 0; v < VENUES.length; v++) {
    if (venues !== null && venues[v] === 0) continue
    for (let c = 0; c <= CATEGORIES.length; c++) {
      if (categories === null || categories[c] === 1) groups |= 1 << (v * GROUP_CATEGORIES + c)
    }
  }
  if (venues !== null || categories !== null) {
    const lists: Array<RowList> = []
    for (let v = 0; v < VENUES.length; v++) {
      for (let c = 0; c <= CATEGORIES.length; c++) {
        if ((groups & (1 << (v * GROUP_CATEGORIES + c))) === 0) continue
        const list = history.whaleRows(v, c)
        if (list !== undefined && list.length > 0) lists.push(list)
      }
    }
    const length = listsLength(lists)
    if (length < bestLength) {
      best = lists
      bestLength = length
    }
  }
  if (keywords !== null) {
    const lists: Array<RowList> = []
    const titles = history.titlesLower
    for (let t = 0; t < titles.length; t++) {
      if ((history.titleGroups(t) & groups) === 0) continue
      const text = titles[t] ?? ""
      if (!keywords.some((k) => text.includes(k))) continue
      const list = history.titleRows(t)
      if (list !== undefined && list.length > 0) lists.push(list)
    }
    if (listsLength(lists) < bestLength) best = lists
  }
  return best
}

const signalPlan = (history: BacktestHistory, request: SignalBacktest, window: BacktestWindow): Plan => {
  const s = request.signal
  const { sweep, mainBound } = sweepPlan(s, request.sweep)
  const swept = sweep?.field
  const venues = mask(VENUES, s.venue, 0)
  const categories = mask(CATEGORIES, s.category, 1)
  const keywords = s.keywords === undefined ? null : s.keywords.map((k) => k.toLowerCase())
  return {
    ...basePlan(window, request.sizing),
    whaleOnly: s.traders === undefined,
    lists: s.traders === undefined ? whaleCandidates(history, window, venues, categories, keywords) : traderLists(history, s.traders),
    venues,
    categories,
    entry: s.entry === "open" ? ENTRY.open : s.entry === "add" ? ENTRY.add : ENTRY.none,
    keywords,
    usdMin: swept === "minUsd" ? -Infinity : s.minUsd ?? -Infinity,
    usdMax: swept === "maxUsd" ? Infinity : s.maxUsd ?? Infinity,
    priceMin: swept === "priceMin" ? -Infinity : s.priceMin ?? -Infinity,
    priceMax: swept === "priceMax" ? Infinity : s.priceMax ?? Infinity,
    sweep, mainBound,
    split: request.holdout ? holdoutSplit(window) : NaN,
    buckets: request.breakdown ?? null,
    groupCurves: sweep !== null || request.breakdown !== undefined,
  }
}

const traderPlan = (history: BacktestHistory, request: TraderBacktest, window: BacktestWindow): Plan => ({
  ...basePlan(window, request.sizing),
  lists: traderLists(history, [request.trader]),
  buckets: "category",
})

/** Adds one trade to a group: counted always, scored once settled. */
const add = (acc: Float64Array, group: number, res: number, stake: number, profit: number): void => {
  const b = group * FIELDS
  acc[b + TRADES]! += 1
  if (res === RESULT.open) {
    acc[b + OPEN]! += 1
    return
  }
  acc[b + SETTLED]! += 1
  if (res === RESULT.win) acc[b + WINS]! += 1
  else if (res === RESULT.loss) acc[b + LOSSES]! += 1
  else return
  acc[b + STAKED]! += stake
  acc[b + PROFIT]! += profit
}

/** How many sorted values are below x (strictly, or at most x). */
const countBelow = (sorted: Float64Array, x: number, inclusive: boolean): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const v = sorted[mid] ?? 0
    if (inclusive ? v <= x : v < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The one scan. */
const scan = (history: BacktestHistory, plan: Plan): Sums => {
  const buckets = bucketCount(plan)
  const sweepBase = FIRST_BUCKET + buckets
  const groups = sweepBase + (plan.sweep === null ? 0 : plan.sweep.sorted.length + 1)
  const acc = new Float64Array(groups * FIELDS)
  const weekSettled = new Float64Array(plan.weeks)
  const weekProfit = new Float64Array(plan.weeks)
  const weeks = plan.weeks
  // Per-group weekly sums only when a sweep or breakdown asks for them (empty otherwise).
  const curves = plan.groupCurves
  const groupSettled = new Float64Array(curves ? groups * weeks : 0)
  const groupProfit = new Float64Array(curves ? groups * weeks : 0)
  const { time, price, usd, ppd, settledAt, result, venue, category, entry, whale, title, kind, side } = history
  const { from, to } = plan.window
  const { fixedStake, percent, cap, whaleOnly, venues, categories, usdMin, usdMax, priceMin, priceMax, sweep, mainBound, split, firstWeek } = plan
  const wantEntry = plan.entry
  // The v1 masks are checked apart, so the v2 scan's per-row work stays as small as it was.
  const { entries, kinds, sides } = plan
  const masked = entries !== null || kinds !== null || sides !== null
  const passesMasks = (i: number): boolean =>
    (entries === null || entries[entry[i]!] === 1) && (kinds === null || kinds[kind[i]!] === 1) && (sides === null || sides[side[i]!] === 1)
  const keywords = plan.keywords
  const titleMatch = keywords === null ? null : new Uint8Array(history.titles.length)
  const titles = history.titlesLower
  const holdout = !Number.isNaN(split)
  const byCategory = plan.buckets === "category"
  const byMonth = plan.buckets === "month"
  const byBand = plan.buckets === "price_band"
  const byVenue = plan.buckets === "venue"
  const monthStarts = plan.months.starts

  const visit = (i: number): void => {
    const t = time[i]!
    if (t < from || t > to) return
    if (whaleOnly && whale[i] === 0) return
    if (venues !== null && venues[venue[i]!] === 0) return
    if (categories !== null && categories[category[i]!] === 0) return
    if (wantEntry !== ENTRY.none && entry[i] !== wantEntry) return
    if (masked && !passesMasks(i)) return
    const u = usd[i]!
    if (u < usdMin || u > usdMax) return
    const p = price[i]!
    if (p < priceMin || p > priceMax) return
    if (titleMatch !== null && keywords !== null) {
      const ti = title[i]!
      let m = titleMatch[ti]!
      if (m === 0) {
        const text = titles[ti] ?? ""
        m = keywords.some((k) => text.includes(k)) ? 1 : 2
        titleMatch[ti] = m
      }
      if (m === 2) return
    }
    const stake = fixedStake > 0 ? fixedStake : Math.min(cap, u * percent)
    let res = result[i]!
    if (res !== RESULT.open && settledAt[i]! > to) res = RESULT.open
    const profit = res === RESULT.win ? stake * ppd[i]! : res === RESULT.loss ? -stake : 0
    // The week (index in the window) of a settled trade, computed once when a curve needs it.
    let w = -1
    if (sweep !== null) {
      const x = sweep.onUsd ? u : p
      const g = sweepBase + countBelow(sweep.sorted, x, sweep.lower)
      add(acc, g, res, stake, profit)
      if (curves && res !== RESULT.open) {
        w = weekOf(t) - firstWeek
        groupSettled[g * weeks + w]! += 1
        groupProfit[g * weeks + w]! += profit
      }
      if (sweep.lower ? x < mainBound : x > mainBound) return
    }
    add(acc, MAIN, res, stake, profit)
    if (res !== RESULT.open) {
      if (w < 0) w = weekOf(t) - firstWeek
      weekSettled[w]! += 1
      weekProfit[w]! += profit
    }
    if (holdout) add(acc, t < split ? TRAIN : TEST, res, stake, profit)
    let g = -1
    if (byCategory) g = FIRST_BUCKET + category[i]!
    else if (byBand) g = FIRST_BUCKET + priceBand(p)
    else if (byVenue) g = FIRST_BUCKET + venue[i]!
    else if (byMonth) {
      let m = 0
      while (m + 1 < monthStarts.length && t >= monthStarts[m + 1]!) m++
      g = FIRST_BUCKET + m
    }
    if (g >= 0) {
      add(acc, g, res, stake, profit)
      if (curves && w >= 0) {
        groupSettled[g * weeks + w]! += 1
        groupProfit[g * weeks + w]! += profit
      }
    }
  }

  if (plan.lists === null) {
    const n = history.size
    for (let i = history.firstRowFrom(from); i < n; i++) visit(i)
  } else if (plan.lists.length === 1) {
    const list = plan.lists[0]!
    for (let j = history.firstListIndexFrom(list, from); j < list.length; j++) visit(list.rows[j]!)
  } else {
    // Several lists (titles, traders, venue × category groups) interleave across the whole history:
    // read list by list, every row is a jump through each column (measured ~7× slower than the same
    // rows in order). So their rows of the window are gathered and visited in row order. The lists
    // are disjoint, so no row is visited twice.
    const starts = plan.lists.map((list) => history.firstListIndexFrom(list, from))
    const rows = new Int32Array(plan.lists.reduce((n, list, l) => n + list.length - starts[l]!, 0))
    let k = 0
    plan.lists.forEach((list, l) => {
      rows.set(list.rows.subarray(starts[l]!, list.length), k)
      k += list.length - starts[l]!
    })
    rows.sort()
    for (let j = 0; j < rows.length; j++) visit(rows[j]!)
  }
  return { acc, weekSettled, weekProfit, groupSettled: curves ? groupSettled : null, groupProfit: curves ? groupProfit : null, sweepBase }
}

/** Money as reported: cents. */
const cents = (usd: number): number => {
  const r = Math.round(usd * 100) / 100
  return r === 0 ? 0 : r
}

const fieldsOf = (acc: Float64Array, group: number, profitOverride?: number): ScoreFields => {
  const b = group * FIELDS
  const wins = acc[b + WINS] ?? 0
  const losses = acc[b + LOSSES] ?? 0
  // Money to the cent; `return` is profit / staked before that rounding (a stake of a fraction of a cent
  // is still a stake), and both ratios are given to 6 decimals, so a sweep's result equals the same
  // backtest run alone (its sums are added in another order, which moved the last float digits).
  const staked = acc[b + STAKED] ?? 0
  const profit = profitOverride ?? acc[b + PROFIT] ?? 0
  return {
    trades: acc[b + TRADES] ?? 0,
    settled: acc[b + SETTLED] ?? 0,
    wins,
    losses,
    open: acc[b + OPEN] ?? 0,
    winRate: wins + losses > 0 ? round6(wins / (wins + losses)) : null,
    staked: cents(staked),
    profit: cents(profit),
    return: staked > 0 ? round6(profit / staked) : null,
  }
}

/** Days to two decimals (a holdout part's days). */
const hundredths = (days: number): number => Math.round(days * 100) / 100

/** The weekly curve of plan.weeks sums starting at `offset` in `settled` and `profit`, and its unrounded total. */
const curveOf = (plan: Plan, settled: Float64Array, profits: Float64Array, offset: number): { curve: Array<BacktestWeek>; total: number } => {
  const curve: Array<BacktestWeek> = []
  let total = 0
  for (let w = 0; w < plan.weeks; w++) {
    const profit = profits[offset + w] ?? 0
    total += profit
    curve.push({ week: mondayOf(plan.firstWeek + w), settled: settled[offset + w] ?? 0, profit: cents(profit), cumulative: cents(total) })
  }
  return { curve, total }
}

type Scored = Pick<BacktestScore, "days" | "sizing" | keyof ScoreFields | "curve">

/** A group's score fields with its curve; profit is the curve's last cumulative value, as in the main score. */
const scoredOf = (
  plan: Plan, acc: Float64Array, group: number, settled: Float64Array, profits: Float64Array, offset: number, days: number, sizing: Sizing,
): Scored => {
  const { curve, total } = curveOf(plan, settled, profits, offset)
  return { days, sizing, ...fieldsOf(acc, group, total), curve }
}

const bucketName = (plan: Plan, bucket: number): string => {
  if (plan.buckets === "category") return categoryOfCode(bucket) ?? UNCLASSIFIED
  if (plan.buckets === "month") return plan.months.names[bucket] ?? ""
  if (plan.buckets === "venue") return VENUES[bucket] ?? ""
  return PRICE_BANDS[bucket] ?? ""
}

/** The buckets with a matched trade: categories in the spec's order with unclassified last; the rest ascending. */
const filledBuckets = (plan: Plan, sums: Sums): Array<number> => {
  const order = plan.buckets === "category" ? [...CATEGORIES.map((_, i) => i + 1), 0] : Array.from({ length: bucketCount(plan) }, (_, i) => i)
  return order.filter((bucket) => (sums.acc[(FIRST_BUCKET + bucket) * FIELDS + TRADES] ?? 0) > 0)
}

/** The counts and money of each filled bucket (v1). */
const bucketRows = (plan: Plan, sums: Sums): Array<ScoreFields & { readonly bucket: string }> =>
  filledBuckets(plan, sums).map((bucket) => ({ ...fieldsOf(sums.acc, FIRST_BUCKET + bucket), bucket: bucketName(plan, bucket) }))

/** v2: each filled bucket's score fields with its own weekly curve. */
const breakdownOf = (plan: Plan, sums: Sums, by: BreakdownBy, request: SignalBacktest): BacktestBreakdown => {
  const settled = sums.groupSettled ?? new Float64Array(0)
  const profits = sums.groupProfit ?? new Float64Array(0)
  const rows = filledBuckets(plan, sums).map((bucket): BreakdownRow => {
    const group = FIRST_BUCKET + bucket
    return { ...scoredOf(plan, sums.acc, group, settled, profits, group * plan.weeks, request.days, request.sizing), bucket: bucketName(plan, bucket) }
  })
  return { by, rows }
}

const byCategoryOf = (sums: Sums): Array<CategoryScore> => {
  const out: Array<CategoryScore> = []
  for (const code of [...CATEGORIES.map((_, i) => i + 1), 0]) {
    const f = fieldsOf(sums.acc, FIRST_BUCKET + code)
    if (f.trades > 0) out.push({ category: categoryOfCode(code), settled: f.settled, wins: f.wins, profit: f.profit, return: f.return })
  }
  return out
}

/**
 * Combines the sweep buckets per sorted value: bucket k holds rows for which exactly the first k sorted
 * values are below (lower) / the rest match (upper). Sums `width` numbers per group from `sums`
 * (FIELDS of acc, or the weeks of the weekly sums) into one block per sorted value.
 */
const sweepCombine = (sums: Float64Array, sweepBase: number, sweep: SweepPlan, width: number): Float64Array => {
  const n = sweep.sorted.length
  const out = new Float64Array(n * width)
  for (let j = 0; j < n; j++) {
    for (let k = 0; k <= n; k++) {
      const matches = sweep.lower ? k > j : k <= j
      if (!matches) continue
      const b = (sweepBase + k) * width
      for (let f = 0; f < width; f++) out[j * width + f]! += sums[b + f] ?? 0
    }
  }
  return out
}

/** The counts and money of each swept value, in the order sent (v1). */
const sweepFieldsOf = (sums: Sums, sweep: SweepPlan): { field: SweepField; results: Array<ScoreFields & { readonly value: number }> } => {
  const totals = sweepCombine(sums.acc, sums.sweepBase, sweep, FIELDS)
  const results = sweep.order.map((place) => ({ ...fieldsOf(totals, place), value: sweep.sorted[place] ?? 0 }))
  return { field: sweep.field, results }
}

/** v2: each swept value's score fields with the weekly curve of the trades it matches, in the order sent. */
const sweepOf = (plan: Plan, sums: Sums, sweep: SweepPlan, request: SignalBacktest): BacktestSweep => {
  const totals = sweepCombine(sums.acc, sums.sweepBase, sweep, FIELDS)
  const settled = sweepCombine(sums.groupSettled ?? new Float64Array(0), sums.sweepBase, sweep, plan.weeks)
  const profits = sweepCombine(sums.groupProfit ?? new Float64Array(0), sums.sweepBase, sweep, plan.weeks)
  const results = sweep.order.map((place): SweepResult => ({
    ...scoredOf(plan, totals, place, settled, profits, place * plan.weeks, request.days, request.sizing),
    value: sweep.sorted[place] ?? 0,
  }))
  return { field: sweep.field, results }
}

const scoreOf = (plan: Plan, sums: Sums, days: number, sizing: Sizing): BacktestScore =>
  scoredOf(plan, sums.acc, MAIN, sums.weekSettled, sums.weekProfit, 0, days, sizing)

/** The score of a signal backtest (with its holdout, sweep and breakdown when asked) at `now`. */
export const scoreSignal = (history: BacktestHistory, request: SignalBacktest, now: number): BacktestScore => {
  history.prepare()
  const plan = signalPlan(history, request, backtestWindow(now, request.days))
  const sums = scan(history, plan)
  const score: { -readonly [K in keyof BacktestScore]: BacktestScore[K] } = scoreOf(plan, sums, request.days, request.sizing)
  if (request.holdout) {
    const test = fieldsOf(sums.acc, TEST)
    const { from, to } = plan.window
    const holdout: BacktestHoldout = {
      splitAt: isoOf(plan.split),
      train: { days: hundredths((plan.split - from) / DAY_MS), ...fieldsOf(sums.acc, TRAIN) },
      test: { days: hundredths((to - plan.split) / DAY_MS), ...test },
      holds: test.return !== null && test.return > 0,
    }
    score.holdout = holdout
  }
  if (plan.sweep !== null) score.sweep = sweepOf(plan, sums, plan.sweep, request)
  if (request.breakdown !== undefined) score.breakdown = breakdownOf(plan, sums, request.breakdown, request)
  return score
}

/** The score of a trader backtest (every buy of the trader) with byCategory, at `now`. */
export const scoreTrader = (history: BacktestHistory, request: TraderBacktest, now: number): BacktestScore => {
  history.prepare()
  const plan = traderPlan(history, request, backtestWindow(now, request.days))
  const sums = scan(history, plan)
  return { ...scoreOf(plan, sums, request.days, request.sizing), byCategory: byCategoryOf(sums) }
}

// v1 (POST /v1/backtest) ----------------------------------------------------------------------------

/**
 * The plan of v1 criteria, or null when they can match nothing: only platforms no feed follows, only
 * leagues naming no sports kind, only sell directions, or only trims and closes (a backtest scores buys).
 * Whale buys only; a flat `stake` per trade.
 */
const v1Plan = (history: BacktestHistory, request: Pick<V1BacktestRequest, "criteria" | "stake" | "holdout">, window: BacktestWindow): Plan | null => {
  const c = request.criteria
  const given = <A>(values: ReadonlyArray<A> | undefined): values is ReadonlyArray<A> => values !== undefined && values.length > 0
  const followed = given(c.platforms) ? followedVenues(c.platforms) : undefined
  const kinds = given(c.sportsLeagues) ? kindsOfLeagues(c.sportsLeagues) : undefined
  const entries = given(c.eventTypes)
    ? c.eventTypes.flatMap((t) => (t === "open" ? [ENTRY.open] : t === "add" ? [ENTRY.add] : t === "flip" ? [ENTRY.flip] : t === "unknown" ? [ENTRY.none] : []))
    : undefined
  const sides = given(c.directions) ? c.directions.flatMap((d) => (d === "buy_yes" ? [0] : d === "buy_no" ? [1] : [])) : undefined
  if (followed?.length === 0 || kinds?.length === 0 || entries?.length === 0 || sides?.length === 0) return null
  const venues = mask(VENUES, followed, 0)
  const categories = mask(CATEGORIES, c.categories, 1)
  const keywords = given(c.keywords) ? c.keywords.map((k) => k.toLowerCase()) : null
  return {
    ...basePlan(window, { usd: request.stake }),
    whaleOnly: true,
    lists: whaleCandidates(history, window, venues, categories, keywords),
    venues,
    categories,
    entries: entries === undefined ? null : codes(...entries),
    kinds: mask(KINDS, kinds, 1),
    sides: sides === undefined ? null : codes(...sides),
    keywords,
    usdMin: c.minAmountUsd ?? -Infinity,
    usdMax: c.maxAmountUsd ?? Infinity,
    priceMin: c.priceMin ?? -Infinity,
    priceMax: c.priceMax ?? Infinity,
    split: request.holdout === true ? holdoutSplit(window) : NaN,
  }
}

const v1FieldsOf = (f: ScoreFields) => ({
  matched: f.trades, settled: f.settled, wins: f.wins, losses: f.losses, open: f.open, winRate: f.winRate ?? 0,
  stakedUsd: f.staked, pnlUsd: f.profit, returnPct: f.return === null ? 0 : f.return * 100,
})

/** The sums of whale buys matching v1 criteria in `window` (all zero when the criteria match nothing). */
const v1Sums = (history: BacktestHistory, request: Pick<V1BacktestRequest, "criteria" | "stake" | "holdout">, window: BacktestWindow) => {
  history.prepare()
  const plan = v1Plan(history, request, window)
  return plan === null ? new Float64Array(FIRST_BUCKET * FIELDS) : scan(history, plan).acc
}

/**
 * The v1 counts and money of whale buys matching v1 criteria made in [from, to] (their `sinceDays` is not
 * used): a saved strategy's record since it was saved.
 */
export const scoreV1Between = (
  history: BacktestHistory,
  request: Pick<V1BacktestRequest, "criteria" | "stake">,
  from: number,
  to: number,
) => v1FieldsOf(fieldsOf(v1Sums(history, request, { from, to }), MAIN))

/** The v1 score of whale buys matching v1 criteria over the last `sinceDays`, at `now` (holdout when asked). */
export const scoreV1 = (history: BacktestHistory, request: V1BacktestRequest, now: number): V1BacktestScore => {
  const window = backtestWindow(now, request.criteria.sinceDays)
  const acc = v1Sums(history, request, window)
  const score: { -readonly [K in keyof V1BacktestScore]: V1BacktestScore[K] } = {
    ...v1FieldsOf(fieldsOf(acc, MAIN)),
    stakeUsd: request.stake,
    window: { sinceDays: request.criteria.sinceDays, stake: request.stake },
  }
  if (request.holdout === true) {
    const test = fieldsOf(acc, TEST)
    const holdout: V1Holdout = {
      splitAt: isoOf(holdoutSplit(window)), train: v1FieldsOf(fieldsOf(acc, TRAIN)), test: v1FieldsOf(test),
      holds: test.return !== null && test.return > 0,
    }
    score.holdout = holdout
  }
  return score
}

/** Two to ten traders side by side: each one's buys (any size) over the same window at the same flat stake. */
export const compareTradersV1 = (history: BacktestHistory, request: V1CompareTradersRequest, now: number): V1TraderComparison => {
  history.prepare()
  const window = backtestWindow(now, request.sinceDays)
  return {
    traders: request.traders.map((trader) => {
      const sums = scan(history, traderPlan(history, { trader, sizing: { usd: request.stake }, days: request.sinceDays }, window))
      return { trader, ...v1FieldsOf(fieldsOf(sums.acc, MAIN)) }
    }),
    window: { sinceDays: request.sinceDays, stake: request.stake },
  }
}

const V1_SWEPT: Readonly<Record<V1SweepRequest["field"], SweepField>> = {
  priceMin: "priceMin", priceMax: "priceMax", minAmountUsd: "minUsd", maxAmountUsd: "maxUsd",
}

/** The v1 criteria scored once per value of one bound (prefix sums over one scan, as a v2 sweep). */
export const sweepV1 = (history: BacktestHistory, request: V1SweepRequest, now: number): V1Sweep => {
  history.prepare()
  const window = backtestWindow(now, request.criteria.sinceDays)
  const base = v1Plan(history, request, window)
  const sweepWindow = { sinceDays: request.criteria.sinceDays, stake: request.stake }
  const none = () => ({ field: request.field, results: request.values.map((value) => ({ value, ...v1FieldsOf(fieldsOf(new Float64Array(FIELDS), 0)) })), window: sweepWindow })
  if (base === null) return none()
  const field = V1_SWEPT[request.field]
  const sorted = Float64Array.from(request.values).sort()
  const lower = field === "priceMin" || field === "minUsd"
  const plan: Plan = {
    ...base,
    usdMin: field === "minUsd" ? -Infinity : base.usdMin,
    usdMax: field === "maxUsd" ? Infinity : base.usdMax,
    priceMin: field === "priceMin" ? -Infinity : base.priceMin,
    priceMax: field === "priceMax" ? Infinity : base.priceMax,
    sweep: { field, sorted, order: request.values.map((v) => sorted.indexOf(v)), lower, onUsd: field === "minUsd" || field === "maxUsd" },
    mainBound: request.criteria[request.field] ?? (lower ? -Infinity : Infinity),
  }
  const sums = scan(history, plan)
  const swept = sweepFieldsOf(sums, plan.sweep!)
  return {
    field: request.field,
    results: swept.results.map(({ value, ...fields }) => ({ value, ...v1FieldsOf(fields) })),
    window: sweepWindow,
  }
}

/** Several labelled v1 rules side by side, each over its own window, at one stake. */
export const compareV1 = (history: BacktestHistory, request: V1CompareRequest, now: number): V1Comparison => ({
  results: request.rules.map((rule) => {
    const { stakeUsd: _stake, window: _window, holdout: _holdout, ...fields } = scoreV1(history, { criteria: rule.criteria, stake: request.stake }, now)
    return { label: rule.label, sinceDays: rule.criteria.sinceDays, ...fields }
  }),
  stake: request.stake,
})

/** The v1 criteria's score split by category, platform, month or price band. */
export const breakdownV1 = (history: BacktestHistory, request: V1BreakdownRequest, now: number): V1Breakdown => {
  history.prepare()
  const window = backtestWindow(now, request.criteria.sinceDays)
  const base = v1Plan(history, request, window)
  const buckets = request.by === "platform" ? "venue" : request.by
  const rows = base === null ? [] : (() => {
    const plan: Plan = { ...base, buckets }
    return bucketRows(plan, scan(history, plan))
  })()
  return {
    by: request.by,
    rows: rows.map(({ bucket, ...fields }) => ({ bucket, ...v1FieldsOf(fields) })),
    window: { sinceDays: request.criteria.sinceDays, stake: request.stake },
  }
}
