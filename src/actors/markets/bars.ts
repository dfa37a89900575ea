// One-minute price bars of one contract: open/high/low/close of the Yes price plus traded volume (usd
// and contracts). Pure and mutable, owned by the market actor like its book; time is the feed's `ts`,
// never the wall clock. Bars exist only for minutes with an observation (sparse) and the oldest are
// dropped past `keep` bars, so an idle market costs nothing and a busy one is bounded. The bars changed
// since the last `takeChanged` are what the store's flush writes (src/store/price-bars.ts), so history
// outlives the actor and a restart.
import { round6 } from "../../numbers.js"

export const MINUTE_MS = 60_000

/** Start of the minute holding `ts` (epoch ms, floor, also for times before 1970). */
export const minuteOf = (ts: number): number => ts - (((ts % MINUTE_MS) + MINUTE_MS) % MINUTE_MS)

export interface Bar {
  /** Start of the minute (epoch ms). */
  readonly start: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  /** Traded notional: Σ price × contracts of the side traded. */
  readonly usd: number
  readonly contracts: number
  readonly trades: number
}

interface MutableBar {
  start: number
  open: number
  high: number
  low: number
  close: number
  usd: number
  contracts: number
  trades: number
}

/** A day of minutes by default. */
export const DEFAULT_BARS_KEPT = 1_440

export class Bars {
  /** Ascending by `start`, no two with the same start. */
  private readonly bars: Array<MutableBar> = []
  /** Start of the oldest bar changed since the last `takeChanged`; null when none. */
  private changedFrom: number | null = null

  constructor(private readonly keep: number = DEFAULT_BARS_KEPT) {}

  /** A Yes price seen at `ts` without volume (a price source other than a trade). */
  observe(ts: number, yesPrice: number): void {
    this.add(ts, yesPrice, 0, 0, 0)
  }

  /** A trade at `ts`: its Yes price, and its notional and size on the side traded. */
  trade(ts: number, yesPrice: number, usd: number, contracts: number): void {
    this.add(ts, yesPrice, usd, contracts, 1)
  }

  private add(ts: number, price: number, usd: number, contracts: number, trades: number): void {
    const start = minuteOf(ts)
    if (this.changedFrom === null || start < this.changedFrom) this.changedFrom = start
    const last = this.bars[this.bars.length - 1]
    if (last === undefined || start > last.start) {
      this.bars.push({ start, open: price, high: price, low: price, close: price, usd, contracts, trades })
      // Amortised trimming: drop a quarter's worth at once rather than shifting every minute.
      if (this.bars.length > this.keep + (this.keep >> 2)) this.bars.splice(0, this.bars.length - this.keep)
      return
    }
    if (start === last.start) {
      update(last, price, usd, contracts, trades, true)
      return
    }
    // A late observation (venue time behind the newest bar): fold it into its own minute without
    // moving that minute's close, which belongs to the latest observation seen in time order.
    const i = this.search(start)
    const found = this.bars[i]
    if (found !== undefined && found.start === start) update(found, price, usd, contracts, trades, false)
    else this.bars.splice(i, 0, { start, open: price, high: price, low: price, close: price, usd, contracts, trades })
  }

  /** First index whose start is ≥ `start`. */
  private search(start: number): number {
    let lo = 0
    let hi = this.bars.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((this.bars[mid]?.start ?? 0) < start) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Bars whose minute starts in [fromMs, toMs), oldest first, as copies. */
  range(fromMs: number, toMs: number): Array<Bar> {
    const result: Array<Bar> = []
    for (let i = this.search(fromMs); i < this.bars.length; i++) {
      const bar = this.bars[i]
      if (bar === undefined || bar.start >= toMs) break
      result.push({ ...bar })
    }
    return result
  }

  /** Copies of the bars changed since the last call (oldest first; every bar from the oldest one changed). */
  takeChanged(): Array<Bar> {
    if (this.changedFrom === null) return []
    const from = this.changedFrom
    this.changedFrom = null
    return this.range(from, Number.POSITIVE_INFINITY)
  }

  last(): Bar | null {
    const bar = this.bars[this.bars.length - 1]
    return bar === undefined ? null : { ...bar }
  }

  get size(): number {
    return this.bars.length
  }
}

const update = (bar: MutableBar, price: number, usd: number, contracts: number, trades: number, latest: boolean): void => {
  if (price > bar.high) bar.high = price
  if (price < bar.low) bar.low = price
  if (latest) bar.close = price
  bar.usd = round6(bar.usd + usd)
  bar.contracts = round6(bar.contracts + contracts)
  bar.trades += trades
}

/** Bars of two sources for one contract, by minute, oldest first; `over`'s bar wins a minute both hold. */
export const mergeBars = (under: ReadonlyArray<Bar>, over: ReadonlyArray<Bar>): Array<Bar> => {
  const byStart = new Map<number, Bar>()
  for (const bar of under) byStart.set(bar.start, bar)
  for (const bar of over) byStart.set(bar.start, bar)
  return [...byStart.values()].sort((a, b) => a.start - b.start)
}

/**
 * Bars (oldest first) folded into bars of `stepMs` (a whole number of minutes), aligned to multiples of it:
 * the first bar's open, the highest high, lowest low, the last bar's close, volumes summed.
 */
export const coarsen = (bars: ReadonlyArray<Bar>, stepMs: number): Array<Bar> => {
  const out: Array<MutableBar> = []
  for (const bar of bars) {
    const start = bar.start - (((bar.start % stepMs) + stepMs) % stepMs)
    const last = out[out.length - 1]
    if (last === undefined || last.start !== start) {
      out.push({ ...bar, start })
      continue
    }
    if (bar.high > last.high) last.high = bar.high
    if (bar.low < last.low) last.low = bar.low
    last.close = bar.close
    last.usd = round6(last.usd + bar.usd)
    last.contracts = round6(last.contracts + bar.contracts)
    last.trades += bar.trades
  }
  return out
}
