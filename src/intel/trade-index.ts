// The whale trades of the listing window in memory: what GET /v2/trades, the stream's gap filling and
// Get Market `trades` read, so a page is a scan of an array instead of a database round trip. It holds
// exactly what has been persisted (Intel adds each flushed batch after its write, and loads the window
// from the store at start), keyed by the trade's stable id, so a settled trade replaces its open row.
//
// Order is the listing's: newest first (`time` desc, then `id` asc) or biggest first (`usd` desc, then
// `id` asc). Rows are appended unsorted and merged into order on the next read, since batches arrive
// every flush while reads are many. Trades older than the window (plus a day) are dropped once per hour
// of feed time. Per-trader and per-market lists make the selective filters cheap.
import type { SharedFilterValues } from "../domain/shared-filters.js"
import { DAY_MS, HOUR_MS } from "./config.js"
import type { StoredTrade } from "./pipeline.js"

export interface TradeQuery extends SharedFilterValues {
  readonly action: "buy" | "sell" | "all"
  /** Applies to buys. */
  readonly entry: "open" | "add" | "all"
  readonly minUsd?: number | undefined
  readonly maxUsd?: number | undefined
  readonly priceMin?: number | undefined
  readonly priceMax?: number | undefined
  readonly named: boolean
  readonly result?: "open" | "win" | "loss" | undefined
  /** Lower-cased words; each in the title, outcome name or label. */
  readonly words: ReadonlyArray<string>
  /** Inclusive epoch-ms bounds. */
  readonly from: number
  readonly to: number
  readonly sort: "newest" | "size"
  /** A further test (the record filters of List Trades); called only on rows every other filter passed. */
  readonly accept?: ((trade: StoredTrade) => boolean) | undefined
}

/** Newest: `[time, id]`; size: `[usd, id]`. */
export type TradeKey = readonly [number, string]

const byNewest = (a: StoredTrade, b: StoredTrade): number => b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
const bySize = (a: StoredTrade, b: StoredTrade): number => b.usd - a.usd || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Strictly after the key in the order (value desc, id asc). */
const after = (value: number, id: string, key: TradeKey): boolean => value < key[0] || (value === key[0] && id > key[1])

/** Trades kept in listing order, with appends merged in on the next read. */
class Ordered {
  #rows: Array<StoredTrade> = []
  #pending: Array<StoredTrade> = []
  /** Ids replaced since the last read: their old objects are swapped for the current ones then. */
  #replaced = false

  add(trade: StoredTrade): void {
    this.#pending.push(trade)
  }

  markReplaced(): void {
    this.#replaced = true
  }

  rows(current: ReadonlyMap<string, StoredTrade>): ReadonlyArray<StoredTrade> {
    if (this.#pending.length > 0) {
      const pending = this.#pending.sort(byNewest)
      this.#pending = []
      this.#rows = this.#rows.length === 0 ? pending : merge(this.#rows, pending)
    }
    if (this.#replaced) {
      this.#rows = this.#rows.map((t) => current.get(t.id) ?? t)
      this.#replaced = false
    }
    return this.#rows
  }

  /** Drops rows the map no longer holds. */
  prune(current: ReadonlyMap<string, StoredTrade>): number {
    this.rows(current)
    this.#rows = this.#rows.filter((t) => current.get(t.id) !== undefined)
    return this.#rows.length
  }
}

const merge = (a: ReadonlyArray<StoredTrade>, b: ReadonlyArray<StoredTrade>): Array<StoredTrade> => {
  const out = new Array<StoredTrade>(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) out[k++] = byNewest(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!
  while (i < a.length) out[k++] = a[i++]!
  while (j < b.length) out[k++] = b[j++]!
  return out
}

/** The first index whose row passes `test`, in rows where every row passing it comes after every other. */
const firstPassing = (rows: ReadonlyArray<StoredTrade>, test: (t: StoredTrade) => boolean): number => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (test(rows[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** The first row (newest order) at or before `to`. */
const firstAtOrBefore = (rows: ReadonlyArray<StoredTrade>, to: number): number => firstPassing(rows, (t) => t.time <= to)

/** The first row (newest order) strictly after the key. */
const firstAfter = (rows: ReadonlyArray<StoredTrade>, key: TradeKey): number => firstPassing(rows, (t) => after(t.time, t.id, key))

const lower = (s: string) => s.toLowerCase()

/** The row test of a query (window, cursor and order aside). */
const matcher = (q: TradeQuery): ((t: StoredTrade) => boolean) => {
  const venue = q.venue !== undefined && q.venue.length > 0 ? new Set<string>(q.venue) : null
  const category = q.category !== undefined && q.category.length > 0 ? new Set<string>(q.category) : null
  const kind = q.kind !== undefined && q.kind.length > 0 ? new Set<string>(q.kind) : null
  const trader = q.trader !== undefined && q.trader.length > 0 ? new Set(q.trader) : null
  const market = q.market !== undefined && q.market.length > 0 ? new Set(q.market) : null
  const outcome = q.outcome === undefined ? null : lower(q.outcome)
  const { action, entry, minUsd, maxUsd, priceMin, priceMax, named, result, words, accept } = q
  return (t) => {
    if (venue !== null && !venue.has(t.venue)) return false
    if (category !== null && (t.category === null || !category.has(t.category))) return false
    if (kind !== null && (t.kind === null || !kind.has(t.kind))) return false
    if (trader !== null && (t.trader === null || !trader.has(t.trader))) return false
    if (market !== null && !market.has(t.market) && !market.has(t.contract)) return false
    if (outcome !== null && lower(t.outcome) !== outcome && lower(t.outcomeLabel) !== outcome) return false
    if (action !== "all" && t.action !== action) return false
    if (entry !== "all" && t.action === "buy" && t.entry !== entry) return false
    if (minUsd !== undefined && !(t.usd >= minUsd)) return false
    if (maxUsd !== undefined && !(t.usd <= maxUsd)) return false
    if (priceMin !== undefined && !(t.price >= priceMin)) return false
    if (priceMax !== undefined && !(t.price <= priceMax)) return false
    if (named && t.trader === null) return false
    if (result !== undefined && t.result !== result) return false
    if (words.length > 0) {
      const haystack = lower(`${t.title} ${t.outcome} ${t.outcomeLabel}`)
      for (const w of words) if (!haystack.includes(w)) return false
    }
    return accept === undefined || accept(t)
  }
}

export class TradeIndex {
  readonly #byId = new Map<string, StoredTrade>()
  readonly #all = new Ordered()
  readonly #byTrader = new Map<string, Ordered>()
  readonly #byMarket = new Map<string, Ordered>()
  /** Days of trades a listing reads; rows older than this plus a day are dropped. */
  readonly #windowMs: number
  #newest = -Infinity
  #prunedAt = -Infinity

  constructor(windowDays: number) {
    this.#windowMs = windowDays * DAY_MS
  }

  get size(): number {
    return this.#byId.size
  }

  /** Adds or replaces whale trades (others are ignored), by id. */
  upsert(trades: Iterable<StoredTrade>): void {
    for (const t of trades) {
      if (!t.whale) continue
      const known = this.#byId.get(t.id)
      this.#byId.set(t.id, t)
      if (t.time > this.#newest) this.#newest = t.time
      if (known !== undefined) {
        this.#all.markReplaced()
        if (t.trader !== null) this.#list(this.#byTrader, t.trader).markReplaced()
        this.#list(this.#byMarket, t.market).markReplaced()
        if (t.contract !== t.market) this.#list(this.#byMarket, t.contract).markReplaced()
        continue
      }
      this.#all.add(t)
      if (t.trader !== null) this.#list(this.#byTrader, t.trader).add(t)
      this.#list(this.#byMarket, t.market).add(t)
      if (t.contract !== t.market) this.#list(this.#byMarket, t.contract).add(t)
    }
    if (this.#newest - this.#prunedAt >= HOUR_MS) this.#prune()
  }

  /** Up to `take` trades strictly after `key` in the query's order. */
  page(q: TradeQuery, key: TradeKey | undefined, take: number): Array<StoredTrade> {
    const test = matcher(q)
    const out: Array<StoredTrade> = []
    if (q.sort === "size") {
      for (const rows of this.#sources(q)) {
        for (let i = firstAtOrBefore(rows, q.to); i < rows.length && rows[i]!.time >= q.from; i++) {
          const t = rows[i]!
          if ((key === undefined || after(t.usd, t.id, key)) && test(t)) out.push(t)
        }
      }
      return dedupe(out.sort(bySize)).slice(0, take)
    }
    const sources = this.#sources(q)
    for (const rows of sources) {
      const start = key === undefined ? firstAtOrBefore(rows, q.to) : Math.max(firstAtOrBefore(rows, q.to), firstAfter(rows, key))
      let found = 0
      for (let i = start; i < rows.length && found < take; i++) {
        const t = rows[i]!
        if (t.time < q.from) break
        if (test(t)) {
          out.push(t)
          found++
        }
      }
    }
    return sources.length === 1 ? out : dedupe(out.sort(byNewest)).slice(0, take)
  }

  /** The lists a query needs to read: a trader's or a market's when those filters are set. */
  #sources(q: TradeQuery): Array<ReadonlyArray<StoredTrade>> {
    const lists = (index: Map<string, Ordered>, keys: ReadonlyArray<string>) =>
      keys.flatMap((k) => {
        const list = index.get(k)
        return list === undefined ? [] : [list.rows(this.#byId)]
      })
    if (q.trader !== undefined && q.trader.length > 0) return lists(this.#byTrader, q.trader)
    if (q.market !== undefined && q.market.length > 0) return lists(this.#byMarket, q.market)
    return [this.#all.rows(this.#byId)]
  }

  #list(index: Map<string, Ordered>, key: string): Ordered {
    let list = index.get(key)
    if (list === undefined) {
      list = new Ordered()
      index.set(key, list)
    }
    return list
  }

  #prune(): void {
    this.#prunedAt = this.#newest
    const cutoff = this.#newest - this.#windowMs - DAY_MS
    let dropped = 0
    for (const [id, t] of this.#byId) {
      if (t.time < cutoff) {
        this.#byId.delete(id)
        dropped++
      }
    }
    if (dropped === 0) return
    this.#all.prune(this.#byId)
    for (const index of [this.#byTrader, this.#byMarket]) {
      for (const [k, list] of index) if (list.prune(this.#byId) === 0) index.delete(k)
    }
  }
}

/** Drops repeats of a row (a trade listed under both its market and its contract), keeping order. */
const dedupe = (rows: Array<StoredTrade>): Array<StoredTrade> => {
  if (rows.length < 2) return rows
  const out: Array<StoredTrade> = []
  let last: StoredTrade | undefined
  for (const t of rows) {
    if (t !== last) out.push(t)
    last = t
  }
  return out
}
