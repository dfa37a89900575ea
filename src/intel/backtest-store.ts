// The backtest history: every scoreable trade (whale buys, and every buy by a named trader) in columns
// of typed arrays, so one backtest is one tight scan and never a query. `BacktestHistory` is pure
// memory (no I/O, no clock); `BacktestHistoryLive` fills it from the store at start and keeps it
// current from the IntelBus (live trades and settlements) and a catch-up read of the store by `seq`
// (history the backfill writes is never published on the bus).
//
// Layout rules:
// - Rows are appended; a row number never changes except in `#resort`, which rebuilds every index.
//   `prefixMax[i]` (the latest time among rows 0..i) is non-decreasing, so the first row that can
//   fall in a window is found by binary search even when a few rows arrived out of time order; when
//   many did (a backfill after live rows), the next scan re-sorts everything once.
// - Sells are never stored: a backtest scores buys only. Their `seq` is still marked as seen, so the
//   catch-up read knows the sequence has no hole there.
// - `ppd` is the profit per staked dollar of the row's result (win (1 − p)/p at the scoring price,
//   loss −1, void and open 0), so a fixed-stake score is a sum of `stake × ppd`.
import { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, PubSub, Queue } from "effect"
import { CATEGORIES, KINDS, VENUES, type Category, type Kind, type TradeEntry, type TradeResult, type Venue } from "../domain/enums.js"
import type { MarketInfo } from "../domain/market-events.js"
import { Markets } from "../actors/markets/market-bus.js"
import { IntelBus } from "./intel-bus.js"
import { Intel } from "./live.js"
import { scoringPrice } from "./settlement.js"

/** What the history needs of a trade; a `StoredTrade` is one. */
export interface HistoryTrade {
  readonly id: string
  readonly seq: number
  readonly time: number
  readonly venue: Venue
  readonly contract: string
  readonly outcome: string
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly action: "buy" | "sell"
  readonly entry: TradeEntry | null
  readonly price: number
  readonly usd: number
  readonly trader: string | null
  readonly whale: boolean
  readonly result: TradeResult
  readonly settledAt: number | null
  /**
   * Side of the contract bought (`sideIndexOf`), when the row that carries the trade knows it (a row read
   * from the store: by the stored market's sides); else the history's `sideOf` resolves it.
   */
  readonly side?: 0 | 1 | undefined
}

export const RESULT = { open: 0, win: 1, loss: 2, void: 3 } as const
export const ENTRY = { none: 0, open: 1, add: 2, flip: 3, trim: 4, close: 5 } as const
/** Venue code = index in VENUES; category code = index in CATEGORIES + 1 (0 = unclassified). */
export const venueCode = (venue: Venue): number => VENUES.indexOf(venue)
export const categoryCode = (category: Category | null): number => (category === null ? 0 : CATEGORIES.indexOf(category) + 1)
export const categoryOfCode = (code: number): Category | null => CATEGORIES[code - 1] ?? null
/** Kind code = index in KINDS + 1 (0 = unclassified). */
export const kindCode = (kind: Kind | null): number => (kind === null ? 0 : KINDS.indexOf(kind) + 1)

/**
 * Which side of its contract an outcome is: 0 for the first (Yes, or venue_b's first outcome), 1 for
 * the second, by the contract's sides when known; a contract no longer known: "No" is second. The v1
 * `direction` (`buy_yes`/`buy_no`) of a trade is its action and this side.
 */
export const sideIndexOf = (info: MarketInfo | null | undefined, outcome: string): 0 | 1 =>
  info === null || info === undefined
    ? sideIndexOfNames(null, null, outcome)
    : sideIndexOfNames(info.sides[0].name, info.sides[1].name, outcome)

/** `sideIndexOf` by the names of the contract's two sides (null when the contract is not known). */
export const sideIndexOfNames = (first: string | null, second: string | null, outcome: string): 0 | 1 =>
  first !== null && second !== null
    ? second === outcome && first !== outcome ? 1 : 0
    : outcome.trim().toLowerCase() === "no" ? 1 : 0

const profitPerDollar = (price: number, result: TradeResult): number =>
  result === "win" ? (1 - scoringPrice(price)) / scoringPrice(price) : result === "loss" ? -1 : 0

/** A growable list of row numbers (ascending as appended). */
export interface RowList {
  rows: Int32Array
  length: number
}

const grownF64 = (a: Float64Array, size: number): Float64Array => {
  const b = new Float64Array(size)
  b.set(a)
  return b
}
const grownU8 = (a: Uint8Array, size: number): Uint8Array => {
  const b = new Uint8Array(size)
  b.set(a)
  return b
}
const grownI32 = (a: Int32Array, size: number): Int32Array => {
  const b = new Int32Array(size)
  b.set(a)
  return b
}

const grownU32 = (a: Uint32Array, size: number): Uint32Array => {
  const b = new Uint32Array(size)
  b.set(a)
  return b
}

const push = (list: RowList, row: number): void => {
  if (list.length === list.rows.length) list.rows = grownI32(list.rows, Math.max(8, list.rows.length * 2))
  list.rows[list.length++] = row
}

const newList = (): RowList => ({ rows: new Int32Array(8), length: 0 })
const emptyLists = (n: number): Array<RowList> => Array.from({ length: n }, newList)
/** Category codes: 0 (unclassified) and one per category; venue × category fits in 32 bits. */
export const GROUP_CATEGORIES = CATEGORIES.length + 1

interface OpenRow {
  row: number
  readonly contract: string
  readonly outcome: string
}

/** Re-sort once this many rows (and this share of all rows) arrived before a later row's time. */
const RESORT_MIN_ROWS = 1_000
const RESORT_SHARE = 0.01

export class BacktestHistory {
  /** The side of an outcome of a contract, when a row is added (the contract's sides are known then). */
  readonly #sideOf: (contract: string, outcome: string) => 0 | 1
  #size = 0
  time: Float64Array = new Float64Array(1024)
  prefixMax: Float64Array = new Float64Array(1024)
  price: Float64Array = new Float64Array(1024)
  usd: Float64Array = new Float64Array(1024)
  ppd: Float64Array = new Float64Array(1024)
  /** Infinity while open. */
  settledAt: Float64Array = new Float64Array(1024)
  result: Uint8Array = new Uint8Array(1024)
  venue: Uint8Array = new Uint8Array(1024)
  category: Uint8Array = new Uint8Array(1024)
  entry: Uint8Array = new Uint8Array(1024)
  whale: Uint8Array = new Uint8Array(1024)
  /** Kind code (`kindCode`). */
  kind: Uint8Array = new Uint8Array(1024)
  /** Side of the contract bought (`sideIndexOf`). */
  side: Uint8Array = new Uint8Array(1024)
  /** Index into `traders`, −1 when unnamed. */
  trader: Int32Array = new Int32Array(1024)
  /** Index into `titles`. */
  title: Int32Array = new Int32Array(1024)

  readonly traders: Array<string> = []
  readonly titles: Array<string> = []
  /** `titles` in lower case, for keyword matching. */
  readonly titlesLower: Array<string> = []
  readonly #traderIndex = new Map<string, number>()
  readonly #titleIndex = new Map<string, number>()
  #traderRows: Array<RowList> = []
  /** Whale rows by venue × category (`venue * GROUP_CATEGORIES + category`), and every row by title. */
  #whaleRows: Array<RowList> = emptyLists(VENUES.length * GROUP_CATEGORIES)
  #titleRows: Array<RowList> = []
  /** Per title, one bit per venue × category its rows have (a keyword search skips titles outside the signal). */
  #titleGroups: Uint32Array = new Uint32Array(1024)
  /** Open rows by trade id, and the ids open on each contract (for settlements read from the store). */
  readonly #open = new Map<string, OpenRow>()
  readonly #openByContract = new Map<string, Set<string>>()
  /** One byte per `seq` seen (trades and settlements): dedupes the bus against the store. */
  #seen: Uint8Array = new Uint8Array(1024)
  #disorder = 0
  #version = 0

  constructor(options: { readonly sideOf?: (contract: string, outcome: string) => 0 | 1 } = {}) {
    this.#sideOf = options.sideOf ?? ((_contract, outcome) => sideIndexOf(null, outcome))
  }

  get size(): number {
    return this.#size
  }

  /** Changes on every add or settlement (a cache of derived data can compare it). */
  get version(): number {
    return this.#version
  }

  /** Rows of a trader (ascending), or undefined when the trader has none. */
  traderRows(ref: string): RowList | undefined {
    const index = this.#traderIndex.get(ref)
    return index === undefined ? undefined : this.#traderRows[index]
  }

  /** Whale rows of one venue and category code (ascending). */
  whaleRows(venue: number, category: number): RowList | undefined {
    return this.#whaleRows[venue * GROUP_CATEGORIES + category]
  }

  /** Bit `venue * GROUP_CATEGORIES + category` is set when some row of the title has that venue and category. */
  titleGroups(title: number): number {
    return this.#titleGroups[title] ?? 0
  }

  /** Rows of one title (ascending). */
  titleRows(title: number): RowList | undefined {
    return this.#titleRows[title]
  }

  traderIndex(ref: string): number | undefined {
    return this.#traderIndex.get(ref)
  }

  hasSeen(seq: number): boolean {
    return seq >= 0 && seq < this.#seen.length && this.#seen[seq] === 1
  }

  markSeen(seq: number): void {
    if (!(Number.isInteger(seq) && seq >= 0)) return
    if (seq >= this.#seen.length) this.#seen = grownU8(this.#seen, Math.max(seq + 1, this.#seen.length * 2))
    this.#seen[seq] = 1
  }

  /**
   * Adds a trade not seen before (by `seq`, and by id while it is open); a sell, or a buy that is
   * neither whale-size nor named, only marks its `seq`. A known open trade takes the trade's result.
   */
  add(trade: HistoryTrade): void {
    const open = this.#open.get(trade.id)
    if (open !== undefined) {
      if (trade.result !== "open") this.settleTrade(trade.id, trade.result, trade.settledAt ?? trade.time, trade.price)
      this.markSeen(trade.seq)
      return
    }
    if (this.hasSeen(trade.seq)) return
    this.markSeen(trade.seq)
    if (trade.action !== "buy" || (!trade.whale && trade.trader === null)) return
    this.#append(trade)
  }

  addAll(trades: Iterable<HistoryTrade>): void {
    for (const trade of trades) this.add(trade)
  }

  /** A trade's result once its market settled (from the bus: the trade itself). */
  settleTrade(id: string, result: TradeResult, settledAt: number, price?: number): void {
    const open = this.#open.get(id)
    if (open === undefined || result === "open") return
    const row = open.row
    this.result[row] = RESULT[result]
    this.settledAt[row] = settledAt
    this.ppd[row] = profitPerDollar(price ?? this.price[row] ?? 0, result)
    this.#open.delete(id)
    const onContract = this.#openByContract.get(open.contract)
    onContract?.delete(id)
    if (onContract?.size === 0) this.#openByContract.delete(open.contract)
    this.#version++
  }

  /** A contract settled (winner named) or voided (winner null): every open row on it takes its result. */
  settleContract(contract: string, winner: string | null, settledAt: number): void {
    const ids = this.#openByContract.get(contract)
    if (ids === undefined) return
    for (const id of [...ids]) {
      const open = this.#open.get(id)
      if (open === undefined) continue
      this.settleTrade(id, winner === null ? "void" : open.outcome === winner ? "win" : "loss", settledAt)
    }
  }

  /** Before a scan: re-sorts by time when too many rows arrived out of order. */
  prepare(): void {
    if (this.#disorder >= RESORT_MIN_ROWS && this.#disorder >= this.#size * RESORT_SHARE) this.#resort()
  }

  /** The first row that can hold a time ≥ `from` (binary search on the running maximum). */
  firstRowFrom(from: number): number {
    let lo = 0
    let hi = this.#size
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.prefixMax[mid] ?? Infinity) < from) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** The first entry of `list` whose row can hold a time ≥ `from`. */
  firstListIndexFrom(list: RowList, from: number): number {
    let lo = 0
    let hi = list.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.prefixMax[list.rows[mid] ?? 0] ?? Infinity) < from) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  #capacity(need: number): void {
    const cap = this.time.length
    if (need <= cap) return
    const size = Math.max(need, cap * 2)
    this.time = grownF64(this.time, size)
    this.prefixMax = grownF64(this.prefixMax, size)
    this.price = grownF64(this.price, size)
    this.usd = grownF64(this.usd, size)
    this.ppd = grownF64(this.ppd, size)
    this.settledAt = grownF64(this.settledAt, size)
    this.result = grownU8(this.result, size)
    this.venue = grownU8(this.venue, size)
    this.category = grownU8(this.category, size)
    this.entry = grownU8(this.entry, size)
    this.whale = grownU8(this.whale, size)
    this.kind = grownU8(this.kind, size)
    this.side = grownU8(this.side, size)
    this.trader = grownI32(this.trader, size)
    this.title = grownI32(this.title, size)
  }

  #titleOf(title: string): number {
    let index = this.#titleIndex.get(title)
    if (index === undefined) {
      index = this.titles.length
      this.titles.push(title)
      this.titlesLower.push(title.toLowerCase())
      this.#titleIndex.set(title, index)
      this.#titleRows.push(newList())
    }
    return index
  }

  #traderOf(ref: string): number {
    let index = this.#traderIndex.get(ref)
    if (index === undefined) {
      index = this.traders.length
      this.traders.push(ref)
      this.#traderIndex.set(ref, index)
      this.#traderRows.push(newList())
    }
    return index
  }

  #append(t: HistoryTrade): void {
    const row = this.#size
    this.#capacity(row + 1)
    const before = row === 0 ? -Infinity : this.prefixMax[row - 1] ?? -Infinity
    if (t.time < before) this.#disorder++
    this.time[row] = t.time
    this.prefixMax[row] = Math.max(before, t.time)
    this.price[row] = t.price
    this.usd[row] = t.usd
    this.result[row] = RESULT[t.result]
    this.ppd[row] = profitPerDollar(t.price, t.result)
    this.settledAt[row] = t.result === "open" ? Infinity : t.settledAt ?? t.time
    this.venue[row] = venueCode(t.venue)
    this.category[row] = categoryCode(t.category)
    this.entry[row] = t.entry === null ? ENTRY.none : ENTRY[t.entry]
    this.whale[row] = t.whale ? 1 : 0
    this.kind[row] = kindCode(t.kind)
    this.side[row] = t.side ?? this.#sideOf(t.contract, t.outcome)
    this.title[row] = this.#titleOf(t.title)
    this.trader[row] = t.trader === null ? -1 : this.#traderOf(t.trader)
    this.#index(row)
    if (t.result === "open") {
      this.#open.set(t.id, { row, contract: t.contract, outcome: t.outcome })
      const ids = this.#openByContract.get(t.contract) ?? new Set<string>()
      ids.add(t.id)
      this.#openByContract.set(t.contract, ids)
    }
    this.#size++
    this.#version++
  }

  /** Puts a row on its trader's, title's and (whale rows) venue × category list. */
  #index(row: number): void {
    const trader = this.trader[row] ?? -1
    const traderList = trader < 0 ? undefined : this.#traderRows[trader]
    if (traderList !== undefined) push(traderList, row)
    const title = this.title[row] ?? 0
    const titleList = this.#titleRows[title]
    if (titleList !== undefined) push(titleList, row)
    const groupIndex = (this.venue[row] ?? 0) * GROUP_CATEGORIES + (this.category[row] ?? 0)
    if (title >= this.#titleGroups.length) this.#titleGroups = grownU32(this.#titleGroups, Math.max(title + 1, this.#titleGroups.length * 2))
    this.#titleGroups[title] = (this.#titleGroups[title] ?? 0) | (1 << groupIndex)
    if (this.whale[row] === 1) {
      const group = this.#whaleRows[groupIndex]
      if (group !== undefined) push(group, row)
    }
  }

  /** Reorders every column by time (stable), then rebuilds the row lists and the open rows. */
  #resort(): void {
    const n = this.#size
    const order = new Int32Array(n)
    for (let i = 0; i < n; i++) order[i] = i
    const time = this.time
    order.sort((a, b) => (time[a] ?? 0) - (time[b] ?? 0) || a - b)
    const where = new Int32Array(n)
    for (let i = 0; i < n; i++) where[order[i] ?? 0] = i
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(a.length)
      for (let i = 0; i < n; i++) b[i] = a[order[i] ?? 0] ?? 0
      return b
    }
    const u8 = (a: Uint8Array) => {
      const b = new Uint8Array(a.length)
      for (let i = 0; i < n; i++) b[i] = a[order[i] ?? 0] ?? 0
      return b
    }
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(a.length)
      for (let i = 0; i < n; i++) b[i] = a[order[i] ?? 0] ?? 0
      return b
    }
    this.time = f64(this.time)
    this.price = f64(this.price)
    this.usd = f64(this.usd)
    this.ppd = f64(this.ppd)
    this.settledAt = f64(this.settledAt)
    this.result = u8(this.result)
    this.venue = u8(this.venue)
    this.category = u8(this.category)
    this.entry = u8(this.entry)
    this.whale = u8(this.whale)
    this.kind = u8(this.kind)
    this.side = u8(this.side)
    this.trader = i32(this.trader)
    this.title = i32(this.title)
    this.prefixMax = new Float64Array(this.time.length)
    let max = -Infinity
    for (let i = 0; i < n; i++) {
      max = Math.max(max, this.time[i] ?? -Infinity)
      this.prefixMax[i] = max
    }
    this.#traderRows = emptyLists(this.traders.length)
    this.#titleRows = emptyLists(this.titles.length)
    this.#whaleRows = emptyLists(VENUES.length * GROUP_CATEGORIES)
    for (let i = 0; i < n; i++) this.#index(i)
    for (const open of this.#open.values()) open.row = where[open.row] ?? open.row
    this.#disorder = 0
    this.#version++
  }
}

// The running service ------------------------------------------------------------------------------

export class BacktestHistoryService extends Context.Tag("whalewatch/BacktestHistory")<BacktestHistoryService, BacktestHistory>() {}

/** A fixed history (tests, benches). */
export const backtestHistoryOf = (history: BacktestHistory): Layer.Layer<BacktestHistoryService> =>
  Layer.succeed(BacktestHistoryService, history)

/**
 * Where the catch-up read has got to. `seq` numbers trades and settlements densely, so a number not
 * seen yet below the newest one read is a row still being committed (two flushes can commit out of
 * order): the next read starts again at the first such hole, and gives up on a hole after `holeMs`.
 */
export class SeqCursor {
  #from = 0
  #holeSince: number | null = null
  constructor(readonly holeMs: number) {}

  get from(): number {
    return this.#from
  }

  /** After a read that reached `maxSeq`: moves past every seq seen (or given up on). */
  advance(history: BacktestHistory, maxSeq: number, now: number): void {
    let next = this.#from
    while (next < maxSeq && history.hasSeen(next + 1)) next++
    if (next < maxSeq) {
      if (this.#holeSince === null || next !== this.#from) this.#holeSince = now
      else if (now - this.#holeSince >= this.holeMs) {
        next = maxSeq
        this.#holeSince = null
      }
    } else this.#holeSince = null
    this.#from = next
  }
}

interface TradeRowDb {
  readonly id: string
  readonly seq: number
  readonly time_ms: number
  readonly venue: Venue
  readonly contract: string
  readonly outcome: string
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly action: "buy" | "sell"
  readonly entry: TradeEntry | null
  readonly price: number
  readonly usd: number
  readonly trader: string | null
  readonly whale: boolean
  readonly result: TradeResult
  readonly settled_at_ms: number | null
  /** Names of the contract's sides as its stored market record has them (null when none is stored). */
  readonly side0: string | null
  readonly side1: string | null
}

const fromRow = (r: TradeRowDb): HistoryTrade => ({
  id: r.id, seq: r.seq, time: r.time_ms, venue: r.venue, contract: r.contract, outcome: r.outcome, title: r.title,
  category: r.category, kind: r.kind, action: r.action, entry: r.entry, price: r.price, usd: r.usd, trader: r.trader,
  whale: r.whale, result: r.result, settledAt: r.settled_at_ms,
  side: r.side0 === null || r.side1 === null ? undefined : sideIndexOfNames(r.side0, r.side1, r.outcome),
})

const PAGE = 50_000

// The store's tables are read here rather than in src/store because nothing else needs these columns
// in this shape; the queries only read (whale_trades, named_trades, intel_markets, intel_settlements).
// A trade's side comes from its contract's stored sides (intel_markets.info), which outlive the market's
// actor: a market that settled during a backfill is never in the live registry.

/** Trades with `seq` > `from`, in pages, into the history; returns the largest seq read. */
export const readTrades = (history: BacktestHistory, from: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let max = from
    for (const table of ["whale", "named"] as const) {
      let after = from
      for (;;) {
        const rows = table === "whale"
          ? yield* sql<TradeRowDb>`
              SELECT w.id, w.seq::float8 AS seq, w.time_ms::float8 AS time_ms, w.venue, w.contract, w.outcome, w.title, w.category,
                w.kind, w.action, w.entry, w.price, w.usd, w.trader, true AS whale, w.result, w.settled_at_ms::float8 AS settled_at_ms,
                m.info->'sides'->0->>'name' AS side0, m.info->'sides'->1->>'name' AS side1
              FROM whale_trades w LEFT JOIN intel_markets m ON m.ref = w.contract
              WHERE w.seq > ${after} ORDER BY w.seq LIMIT ${PAGE}`
          : yield* sql<TradeRowDb>`
              SELECT n.id, n.seq::float8 AS seq, n.time_ms::float8 AS time_ms, n.venue, n.contract, n.outcome,
                COALESCE(m.title, n.contract) AS title, n.category, n.kind, n.action, n.entry, n.price, n.usd, n.trader,
                false AS whale, n.result, n.settled_at_ms::float8 AS settled_at_ms,
                m.info->'sides'->0->>'name' AS side0, m.info->'sides'->1->>'name' AS side1
              FROM named_trades n LEFT JOIN intel_markets m ON m.ref = n.contract
              WHERE n.seq > ${after} AND NOT n.whale ORDER BY n.seq LIMIT ${PAGE}`
        for (const row of rows) history.add(fromRow(row))
        const last = rows[rows.length - 1]
        if (last !== undefined) {
          after = last.seq
          max = Math.max(max, last.seq)
        }
        if (rows.length < PAGE) break
      }
    }
    return max
  })

/** Settlements with `seq` > `from` into the history; returns the largest seq read. */
export const readSettlements = (history: BacktestHistory, from: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ seq: number; contract: string; status: "settled" | "void"; winner: string | null; time_ms: number }>`
      SELECT seq::float8 AS seq, contract, status, winner, time_ms::float8 AS time_ms
      FROM intel_settlements WHERE seq > ${from} ORDER BY seq`
    let max = from
    for (const s of rows) {
      history.markSeen(s.seq)
      history.settleContract(s.contract, s.status === "void" ? null : s.winner, s.time_ms)
      max = Math.max(max, s.seq)
    }
    return max
  })

/** One catch-up read of the store past `cursor`. */
export const catchUp = (history: BacktestHistory, cursor: SeqCursor) =>
  Effect.gen(function* () {
    const trades = yield* readTrades(history, cursor.from)
    const settlements = yield* readSettlements(history, cursor.from)
    cursor.advance(history, Math.max(trades, settlements), yield* Clock.currentTimeMillis)
  })

export interface BacktestHistoryOptions {
  /** How often the store is read for rows the bus did not carry (backfill); default 5 s. */
  readonly catchUpEveryMs?: number
}

/**
 * The history of a running service: loaded from the store before the layer is ready, then kept
 * current from the IntelBus (subscribed first, so nothing live is lost meanwhile) and from a periodic
 * catch-up read of the store. Needs SqlClient and IntelBus.
 */
export const makeBacktestHistoryLayer = (options: BacktestHistoryOptions = {}): Layer.Layer<BacktestHistoryService, never, SqlClient.SqlClient | IntelBus> =>
  Layer.scoped(
    BacktestHistoryService,
    Effect.gen(function* () {
      // Rows read from the store carry their side (by the stored market); a trade from the bus takes it
      // from the intel pipeline's markets (every contract it has stored, restored at start, never retired),
      // then the market registry (whose actors retire once settled), when the service has them (main does).
      const intel = yield* Effect.serviceOption(Intel)
      const markets = yield* Effect.serviceOption(Markets)
      const history = new BacktestHistory(intel._tag === "Some" || markets._tag === "Some"
        ? {
          sideOf: (contract, outcome) => sideIndexOf(
            (intel._tag === "Some" ? intel.value.pipeline.info(contract) : undefined) ??
              (markets._tag === "Some" ? markets.value.info(contract) : null),
            outcome,
          ),
        }
        : {})
      const events = yield* PubSub.subscribe(yield* IntelBus)
      const cursor = new SeqCursor(60_000)
      const started = yield* Clock.currentTimeMillis
      yield* Effect.orDie(catchUp(history, cursor))
      history.prepare()
      yield* Effect.logInfo(`backtest history: ${history.size} trades loaded in ${(yield* Clock.currentTimeMillis) - started} ms`)
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) =>
        Effect.sync(() => {
          for (const event of chunk) {
            if (event._tag === "TradeRecorded") history.add(event.trade)
            else if (event._tag === "TradeSettled") {
              history.settleTrade(event.trade.id, event.trade.result, event.trade.settledAt ?? event.trade.time)
            }
          }
        }))))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
        Effect.sleep(Duration.millis(options.catchUpEveryMs ?? 5_000)),
        catchUp(history, cursor).pipe(Effect.catchAllCause(Effect.logError)),
      )))
      return history
    }),
  )

export const BacktestHistoryLive = makeBacktestHistoryLayer()
