// GET /v1/universe's figures (tool `describe_universe`): one pass over the backtest history (whale buys
// and named buys, the rows v1 backtests and trader backtests score) at `now`. Pure: the caller passes
// `now`. A buy settled after `now` counts as open, as in a backtest.
import { CATEGORIES, VENUES } from "../domain/enums.js"
import { MAX_V1_SINCE_DAYS } from "../domain/limits.js"
import type { V1Universe } from "../domain/v1.js"
import { RESULT, type BacktestHistory } from "./backtest-store.js"
import { PRICE_BANDS, priceBand, UNCLASSIFIED } from "./backtest.js"
import { DAY_MS } from "./config.js"
import { isoOf } from "./rows.js"

/** Counts of one bucket: whale buys, settled, wins, losses. */
class Tally {
  whaleBuys = 0
  settled = 0
  wins = 0
  losses = 0

  add(result: number): void {
    this.whaleBuys++
    if (result === RESULT.open) return
    this.settled++
    if (result === RESULT.win) this.wins++
    else if (result === RESULT.loss) this.losses++
  }

  get figures() {
    return { whaleBuys: this.whaleBuys, settled: this.settled, winRate: this.wins + this.losses > 0 ? this.wins / (this.wins + this.losses) : null }
  }
}

/** The 0-based index of nearest rank `q` (0..1) among `n` values. */
const rankIndex = (n: number, q: number): number => Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))

/**
 * Puts the k-th smallest of a[lo..hi] at a[k], smaller ones before it and larger after (quickselect,
 * median-of-three pivots): the size quantiles of millions of buys without sorting them all.
 */
const select = (a: Float64Array, k: number, lo: number, hi: number): number => {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1
    const x = a[lo]!, y = a[mid]!, z = a[hi]!
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y)
    let i = lo
    let j = hi
    while (i <= j) {
      while (a[i]! < pivot) i++
      while (a[j]! > pivot) j--
      if (i <= j) {
        const t = a[i]!
        a[i] = a[j]!
        a[j] = t
        i++
        j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else break
  }
  return a[k]!
}

/** Nearest-rank quantiles `qs` (ascending) of a[0..n): each selection narrows the next one's range. */
const quantiles = (a: Float64Array, n: number, qs: ReadonlyArray<number>): Array<number> => {
  let lo = 0
  return qs.map((q) => {
    const k = rankIndex(n, q)
    const value = select(a, k, lo, n - 1)
    lo = k
    return value
  })
}

export const describeUniverse = (history: BacktestHistory, now: number): V1Universe => {
  history.prepare()
  const all = new Tally()
  let voids = 0
  const venues = VENUES.map(() => new Tally())
  const categories = Array.from({ length: CATEGORIES.length + 1 }, () => new Tally())
  const bands = PRICE_BANDS.map(() => new Tally())
  const sizes = new Float64Array(history.size)
  let whales = 0
  // Marks by index: a pass over millions of rows, so no Set.
  const traderSeen = new Uint8Array(history.traders.length)
  const titleSeen = new Uint8Array(history.titles.length)
  let traders = 0
  let titles = 0
  let named = 0
  let smallest = Infinity
  let from = Infinity
  let to = -Infinity
  for (let i = 0; i < history.size; i++) {
    const t = history.time[i]!
    if (t > now) continue
    const title = history.title[i]!
    if (titleSeen[title] === 0) {
      titleSeen[title] = 1
      titles++
    }
    const trader = history.trader[i]!
    if (trader >= 0) {
      named++
      if (traderSeen[trader] === 0) {
        traderSeen[trader] = 1
        traders++
      }
    }
    if (history.whale[i] === 0) continue
    let result = history.result[i]!
    if (result !== RESULT.open && history.settledAt[i]! > now) result = RESULT.open
    if (result === RESULT.void) voids++
    all.add(result)
    venues[history.venue[i]!]?.add(result)
    categories[history.category[i]!]?.add(result)
    bands[priceBand(history.price[i]!)]?.add(result)
    const usd = history.usd[i]!
    sizes[whales++] = usd
    smallest = Math.min(smallest, usd)
    from = Math.min(from, t)
    to = Math.max(to, t)
  }
  const [p25, p50, p75, p90, p99, max] = quantiles(sizes, whales, [0.25, 0.5, 0.75, 0.9, 0.99, 1])
  return {
    generatedAt: isoOf(now),
    coverage: whales === 0
      ? { from: null, to: null, days: 0 }
      : { from: isoOf(from), to: isoOf(to), days: Math.ceil((to - from) / DAY_MS) },
    maxSinceDays: MAX_V1_SINCE_DAYS,
    whaleBuys: { total: all.whaleBuys, settled: all.settled, wins: all.wins, losses: all.losses, voids, open: all.whaleBuys - all.settled },
    namedBuys: named,
    traders,
    markets: titles,
    platforms: VENUES.map((platform, v) => ({ platform, ...venues[v]!.figures })),
    categories: [...CATEGORIES.map((category, c) => ({ category, ...categories[c + 1]!.figures })), { category: UNCLASSIFIED, ...categories[0]!.figures }],
    priceBands: PRICE_BANDS.map((band, b) => ({ band, ...bands[b]!.figures })),
    sizes: whales === 0 ? null : { min: smallest, p25: p25!, p50: p50!, p75: p75!, p90: p90!, p99: p99!, max: max! },
  }
}
