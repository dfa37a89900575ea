// Agreement of a whale trade: the other whale buys on the same market in the 24 hours before it, on
// the same side and on the other side. The window is open at both ends, (t − 24 h, t): a buy exactly
// 24 h earlier has left it, and buys at the same millisecond as the trade are not "before" it.
// Pure: per-market sorted buys with prefix sums; no clock (times come from the trades).
import { defaultIntelConfig, type IntelConfig } from "./config.js"

export interface AgreementTrade {
  /** Stable trade id; a buy recorded twice (re-ingest) counts once. */
  readonly id: string
  /** Market key: a contract ref, or an event ref to agree over the whole event. */
  readonly market: string
  readonly time: number
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly usd: number
}

export interface AgreementSide {
  readonly trades: number
  readonly usd: number
}

export interface Agreement {
  readonly sameSide: AgreementSide
  readonly otherSide: AgreementSide
}

const EMPTY: Agreement = { sameSide: { trades: 0, usd: 0 }, otherSide: { trades: 0, usd: 0 } }

const cents = (usd: number): number => Math.round(usd * 100) / 100

/** Buys of one market (or one side of it), sorted by time, with prefix sums of dollars. */
class Series {
  readonly times: Array<number> = []
  /** prefix[i] = dollars of buys 0..i-1; prefix[0] = 0. */
  readonly prefix: Array<number> = [0]

  insert(time: number, usd: number): void {
    const at = upper(this.times, time)
    const tail: Array<number> = []
    for (let i = at; i < this.times.length; i++) tail.push((this.prefix[i + 1] ?? 0) - (this.prefix[i] ?? 0))
    // In order this is one push; out of order the sums after the insertion point are rebuilt (rare:
    // the feed is nearly in order).
    this.times.splice(at, 0, time)
    this.prefix.length = at + 1
    let running = (this.prefix[at] ?? 0) + usd
    this.prefix.push(running)
    for (const later of tail) {
      running += later
      this.prefix.push(running)
    }
  }

  /** Buys with from < time < to. */
  range(from: number, to: number): AgreementSide {
    const lo = upper(this.times, from)
    const hi = lower(this.times, to)
    if (hi <= lo) return { trades: 0, usd: 0 }
    return { trades: hi - lo, usd: (this.prefix[hi] ?? 0) - (this.prefix[lo] ?? 0) }
  }

  /** Drops buys at or before `before`. */
  prune(before: number): void {
    const cut = upper(this.times, before)
    if (cut === 0) return
    this.times.splice(0, cut)
    this.prefix.splice(0, cut)
  }
}

/** First index whose time is > t. */
const upper = (times: ReadonlyArray<number>, t: number): number => {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((times[mid] ?? 0) <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose time is >= t. */
const lower = (times: ReadonlyArray<number>, t: number): number => {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((times[mid] ?? 0) < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

interface MarketWindow {
  readonly all: Series
  readonly sides: Map<string, Series>
  /** Ids recorded with their time, so pruning can forget them. */
  readonly ids: Map<string, number>
  newest: number
}

/**
 * Whale buys per market. `observe` answers a trade's agreement then records it; `record` and `query`
 * do one half each. Buys older than the newest one by more than window + lateness are pruned, so a
 * trade arriving later than `latenessMs` behind the newest buy of its market may miss old buys.
 */
export class AgreementIndex {
  readonly #windowMs: number
  readonly #latenessMs: number
  readonly #markets = new Map<string, MarketWindow>()

  constructor(config: IntelConfig = defaultIntelConfig) {
    this.#windowMs = config.agreement.windowMs
    this.#latenessMs = config.agreement.latenessMs
  }

  /** The agreement of a trade on `outcome` of `market` at `time` (buys already recorded only). */
  query(market: string, outcome: string, time: number): Agreement {
    const window = this.#markets.get(market)
    if (window === undefined) return EMPTY
    const from = time - this.#windowMs
    const all = window.all.range(from, time)
    const same = window.sides.get(outcome)?.range(from, time) ?? { trades: 0, usd: 0 }
    return {
      sameSide: { trades: same.trades, usd: cents(same.usd) },
      otherSide: { trades: all.trades - same.trades, usd: cents(all.usd - same.usd) },
    }
  }

  /** Records a buy (sells are not agreement); a second record of the same id is ignored. */
  record(trade: AgreementTrade): void {
    if (trade.action !== "buy") return
    const window = this.#markets.get(trade.market) ?? this.#open(trade.market)
    if (window.ids.has(trade.id)) return
    const usd = Number.isFinite(trade.usd) && trade.usd > 0 ? trade.usd : 0
    window.ids.set(trade.id, trade.time)
    window.all.insert(trade.time, usd)
    const side = window.sides.get(trade.outcome) ?? new Series()
    window.sides.set(trade.outcome, side)
    side.insert(trade.time, usd)
    if (trade.time > window.newest) {
      window.newest = trade.time
      this.#prune(window)
    }
  }

  /** `query` for the trade, then `record` it. */
  observe(trade: AgreementTrade): Agreement {
    const agreement = this.query(trade.market, trade.outcome, trade.time)
    this.record(trade)
    return agreement
  }

  #open(market: string): MarketWindow {
    const window: MarketWindow = { all: new Series(), sides: new Map(), ids: new Map(), newest: -Infinity }
    this.#markets.set(market, window)
    return window
  }

  // Pruning is amortised: only once the stale part is at least half of the market's buys.
  #prune(window: MarketWindow): void {
    const before = window.newest - this.#windowMs - this.#latenessMs
    const stale = upper(window.all.times, before)
    if (stale === 0 || stale * 2 < window.all.times.length) return
    window.all.prune(before)
    for (const side of window.sides.values()) side.prune(before)
    for (const [id, time] of window.ids) if (time <= before) window.ids.delete(id)
  }
}

/** Reference: a direct scan over every buy (for tests and small batches). */
export const agreementNaive = (
  trades: ReadonlyArray<AgreementTrade>,
  trade: Pick<AgreementTrade, "market" | "outcome" | "time">,
  config: IntelConfig = defaultIntelConfig,
): Agreement => {
  const from = trade.time - config.agreement.windowMs
  const seen = new Set<string>()
  let sameTrades = 0
  let sameUsd = 0
  let otherTrades = 0
  let otherUsd = 0
  for (const other of trades) {
    if (other.action !== "buy" || other.market !== trade.market) continue
    if (!(other.time > from && other.time < trade.time)) continue
    if (seen.has(other.id)) continue
    seen.add(other.id)
    const usd = Number.isFinite(other.usd) && other.usd > 0 ? other.usd : 0
    if (other.outcome === trade.outcome) {
      sameTrades++
      sameUsd += usd
    } else {
      otherTrades++
      otherUsd += usd
    }
  }
  return {
    sameSide: { trades: sameTrades, usd: cents(sameUsd) },
    otherSide: { trades: otherTrades, usd: cents(otherUsd) },
  }
}
