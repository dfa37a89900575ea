// The intelligence pipeline: fed MarketEvents in order, it classifies every trade (trader position and
// entry, whale detection, 24-hour agreement, trader summary), settles whale trades, trader positions
// and records, detects moves and keeps live market figures. It does no I/O: what changed waits in a
// buffer the store layer takes (`takeChanges`) and persists in batches; reads answer from memory.
//
// Rules (README "Whale intelligence"):
// - Whale: a trade whose dollars reach `whale.minUsd` (config.ts), buys and sells alike.
// - Every trade by a named trader counts for positions and records, whale-size or not.
// - Agreement is keyed by the market a trade row names: the event ref when the contract belongs to a
//   multi-contract event, else the contract ref. `sameSide` = whale buys of the same outcome of the
//   same contract; `otherSide` = every other whale buy of that market (the other outcome, and any
//   outcome of the event's other contracts).
// - A trade is processed once: named and whale trades are remembered by stable id (re-ingest, or a
//   backfill overlapping the live feed, adds nothing). Trades on a settled or voided contract are ignored.
// - Feed time only: `now` is the newest event time seen; move holds are confirmed as feed time passes.
import { VENUES, type Category, type Kind, type TradeEntry, type TradeResult, type Venue } from "../domain/enums.js"
import { insertByListing, type MarketEvent, type MarketInfo, type MarketLifecycle, type MarketSide } from "../domain/market-events.js"
import { AgreementIndex, type Agreement } from "./agreement.js"
import { defaultIntelConfig, isWhaleTrade, MINUTE_MS, type IntelConfig } from "./config.js"
import { ContractFigures } from "./figures.js"
import { stableHash, whaleTradeId } from "./ids.js"
import { MoveDetector, type DetectedMove } from "./moves.js"
import { CONTRACT_EPSILON, PositionBook, type TraderPosition } from "./positions.js"
import { betProfit, recordKey, StatsAccumulator, summaryFigures, type RecordRow, type RecordTrade, type SummaryFigures } from "./records.js"
import { resultOf, settlementProfit, type Settlement } from "./settlement.js"
import type { IntelEvent } from "./intel-bus.js"
import { BandRecords } from "./winning.js"

/** A trade the pipeline keeps (every named trade, every whale trade); `seq` is the processing order. */
export interface StoredTrade {
  readonly id: string
  readonly seq: number
  readonly tradeId: string
  readonly txId: string | null
  readonly time: number
  readonly venue: Venue
  /** The market a row names: event ref on a multi-contract market, else the contract ref. */
  readonly market: string
  readonly contract: string
  readonly event: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly outcome: string
  readonly outcomeLabel: string
  readonly action: "buy" | "sell"
  readonly entry: TradeEntry | null
  readonly price: number
  readonly usd: number
  readonly contracts: number
  readonly trader: string | null
  readonly traderName: string | null
  readonly whale: boolean
  /** Trader summary at detection (null on unnamed trades). */
  readonly summary: SummaryFigures | null
  readonly agreement: Agreement | null
  readonly result: TradeResult
  readonly profit: number | null
  readonly settledAt: number | null
}

export interface StoredMove extends DetectedMove {
  readonly venue: Venue
  /** Market ref of the row (event or contract) and the contract ref the move was seen on (`market` of DetectedMove). */
  readonly ref: string
  readonly event: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
}

export interface StoredSettlement {
  readonly seq: number
  readonly contract: string
  readonly status: "settled" | "void"
  /** Winning outcome name; null on a void. */
  readonly winner: string | null
  readonly time: number
}

export interface StoredMarket {
  readonly info: MarketInfo
  readonly status: MarketLifecycle
  readonly result: string | null
  readonly settledAt: number | null
}

export interface StoredPosition extends TraderPosition {
  /** Stable: hash(trader, contract, outcome, openedAt). */
  readonly id: string
  readonly lastBoughtAt: number
}

/** What changed since the last `takeChanges`, in processing order; upserts by stable id. */
export interface IntelChanges {
  readonly markets: Array<StoredMarket>
  /** Named and whale trades, new or settled (a later entry of the same id supersedes an earlier one). */
  readonly trades: Array<StoredTrade>
  readonly moves: Array<StoredMove>
  readonly settlements: Array<StoredSettlement>
  /** Traders whose records changed. */
  readonly traders: Set<string>
}

const emptyChanges = (): IntelChanges => ({ markets: [], trades: [], moves: [], settlements: [], traders: new Set() })

interface ContractState {
  info: MarketInfo
  marketKey: string
  readonly figures: ContractFigures
  detector: MoveDetector | null
  status: MarketLifecycle
  result: string | null
  settledAt: number | null
  /** Kept trades while the contract is open (settled with it). */
  open: Array<StoredTrade>
  /** Venue trade ids counted lately (→ time), so a trade that comes twice counts once (`#repeat`). */
  recent: Map<string, number> | null
}

/** How long a trade id is remembered against a second delivery: the history backfill and the live feed overlap by seconds. */
const RECENT_TRADE_MS = 10 * MINUTE_MS
/** Ids a contract remembers before the ones older than RECENT_TRADE_MS are let go. */
const RECENT_TRADES = 256

const VENUE_SET: ReadonlySet<string> = new Set(VENUES)

const sideKeyOf = (trader: string, contract: string, outcome: string): string => `${trader}\u0000${contract}\u0000${outcome}`

export const positionIdOf = (p: Pick<TraderPosition, "trader" | "contract" | "outcome" | "openedAt">): string =>
  `tp_${stableHash([p.trader, p.contract, p.outcome, p.openedAt])}`

/** How far behind feed time the pipeline moves the other markets' move detectors: the trade join's window and some. */
export const DETECTOR_LAG_MS = 15_000

export class IntelPipeline {
  readonly config: IntelConfig
  readonly #contracts = new Map<string, ContractState>()
  readonly #events = new Map<string, Array<string>>()
  readonly #seen = new Set<string>()
  readonly #book: PositionBook
  readonly #agreement: AgreementIndex
  readonly #bands: BandRecords
  readonly #stats = new Map<string, { acc: StatsAccumulator; row: RecordRow | null; venue: Venue; category: Category | null; kind: Kind | null; trader: string }>()
  readonly #records = new Map<string, RecordRow>()
  readonly #names = new Map<string, string | null>()
  // Position rows are read from the book by creation index (see `takePositionChanges`).
  readonly #held = new Map<string, number>()
  readonly #heldByContract = new Map<string, Set<string>>()
  readonly #lastBuy: Array<number> = []
  #positions = 0
  readonly #dirty = new Set<number>()
  #seq = 0
  #now = -Infinity
  #minute = -Infinity
  #changes = emptyChanges()
  /** Told of every trade recorded or settled and every move, as it happens (the live IntelBus). */
  observe: ((event: IntelEvent) => void) | null = null

  constructor(config: IntelConfig = defaultIntelConfig) {
    this.config = config
    this.#book = new PositionBook(config)
    this.#agreement = new AgreementIndex(config)
    this.#bands = new BandRecords(config)
  }

  /** Newest feed time seen (epoch ms); -Infinity before the first event. */
  get now(): number {
    return this.#now
  }

  /** Processing order counter (persisted with trades and settlements; a restore continues it). */
  get seq(): number {
    return this.#seq
  }

  apply(event: MarketEvent): void {
    this.#clock(event.ts)
    switch (event._tag) {
      case "MarketOpened": return this.#opened(event.market)
      case "PriceChanged": return this.#price(event.ref, event.ts, event.yesPrice)
      case "TradePrinted": return this.#trade(event)
      case "MarketClosed": return this.#closed(event.ref)
      case "MarketSettled": return this.#settle(event.ref, { status: "settled", time: event.ts, winner: event.winner.name })
      case "MarketVoided": return this.#settle(event.ref, { status: "void", time: event.ts })
      case "BookChanged": return
    }
  }

  applyAll(events: Iterable<MarketEvent>): void {
    for (const event of events) this.apply(event)
  }

  /** Everything changed since the last call (positions excluded: `takePositionChanges`). */
  takeChanges(): IntelChanges {
    const out = this.#changes
    this.#changes = emptyChanges()
    return out
  }

  /** Rows of the trader positions touched since the last call (one pass over the book: call it per batch, not per event). */
  takePositionChanges(): Array<StoredPosition> {
    if (this.#dirty.size === 0) return []
    const rows = this.#book.rows()
    const out: Array<StoredPosition> = []
    for (const index of [...this.#dirty].sort((a, b) => a - b)) {
      const row = rows[index]
      if (row !== undefined) out.push({ ...row, id: positionIdOf(row), lastBoughtAt: this.#lastBuy[index] ?? row.openedAt })
    }
    this.#dirty.clear()
    return out
  }

  /** After a restore: continue numbering after what is stored. */
  continueSeq(seq: number): void {
    if (seq > this.#seq) this.#seq = seq
  }

  // ---- reads ------------------------------------------------------------------------------------

  info(contract: string): MarketInfo | undefined {
    return this.#contracts.get(contract)?.info
  }

  contractState(contract: string): Readonly<Omit<ContractState, "open" | "detector">> | undefined {
    return this.#contracts.get(contract)
  }

  /** Contract refs of a market ref (an event's contracts in listing order, or the contract itself). */
  contractsOf(ref: string): ReadonlyArray<string> {
    const event = this.#events.get(ref)
    if (event !== undefined) return event
    return this.#contracts.has(ref) ? [ref] : []
  }

  /** Every market ref (events once, single contracts), in listing order. */
  marketRefs(): Array<string> {
    const out: Array<string> = []
    for (const [ref, state] of this.#contracts) {
      if (state.info.event === null) out.push(ref)
      else if ((this.#events.get(state.info.event) ?? [])[0] === ref) out.push(state.info.event)
    }
    return out
  }

  /** The all-time record row of a trader in a scope (whole record with category and kind null). */
  recordRow(trader: string, category: Category | null, kind: Kind | null): RecordRow | undefined {
    return this.#refresh(recordKey(trader, "all", category, kind))
  }

  /** Trader summary figures for a row of `kind` (records.summaryFigures over the live records). */
  summary(trader: string, category: Category | null, kind: Kind | null): SummaryFigures {
    this.#refresh(recordKey(trader, "all", null, null))
    if (category !== null && kind !== null) this.#refresh(recordKey(trader, "all", category, kind))
    return summaryFigures(this.#records, trader, category, kind)
  }

  traderName(trader: string): string | null {
    return this.#names.get(trader) ?? null
  }

  /** Every trader position row (book order). */
  positionRows(): Array<StoredPosition> {
    return this.#book.rows().map((row, index) => ({ ...row, id: positionIdOf(row), lastBoughtAt: this.#lastBuy[index] ?? row.openedAt }))
  }

  /** Positions still held (open or reduced, on contracts not ended), by creation order. */
  heldPositions(): Array<StoredPosition> {
    const indexes = [...this.#held.values()].sort((a, b) => a - b)
    if (indexes.length === 0) return []
    const rows = this.#book.rows()
    const out: Array<StoredPosition> = []
    for (const index of indexes) {
      const row = rows[index]
      if (row !== undefined && row.heldContracts > CONTRACT_EPSILON) out.push({ ...row, id: positionIdOf(row), lastBoughtAt: this.#lastBuy[index] ?? row.openedAt })
    }
    return out
  }

  get bands(): BandRecords {
    return this.#bands
  }

  // ---- events -----------------------------------------------------------------------------------

  #clock(ts: number): void {
    if (!(ts > this.#now)) return
    this.#now = ts
    const minute = Math.floor(ts / MINUTE_MS)
    if (minute === this.#minute) return
    this.#minute = minute
    // Once per feed minute, let every live detector confirm the holds that have passed, DETECTOR_LAG_MS
    // behind: a venue_b trade reaches the pipeline after its join window (up to 10 s of feed time), with
    // its own earlier time, and a detector takes no point older than its clock.
    for (const state of this.#contracts.values()) {
      if (state.detector !== null) this.#moves(state, state.detector.advance(ts - DETECTOR_LAG_MS))
    }
  }

  #opened(info: MarketInfo): void {
    const known = this.#contracts.get(info.ref)
    if (known !== undefined) {
      if (sameInfo(known.info, info)) return
      known.info = info
      known.marketKey = info.event ?? info.ref
      this.#indexEvent(info)
      this.#marketChanged(known)
      return
    }
    const state: ContractState = {
      info, marketKey: info.event ?? info.ref, figures: new ContractFigures(), detector: null,
      status: "open", result: null, settledAt: null, open: [], recent: null,
    }
    this.#contracts.set(info.ref, state)
    this.#indexEvent(info)
    this.#marketChanged(state)
  }

  #indexEvent(info: MarketInfo): void {
    if (info.event === null) return
    const list = this.#events.get(info.event) ?? []
    insertByListing(list, info.ref, (ref) => (ref === info.ref ? info.listedAt : this.#contracts.get(ref)?.info.listedAt ?? 0))
    this.#events.set(info.event, list)
  }

  /** A contract seen before its listing: a placeholder info (unclassified, titled by its ref). */
  #ensure(ref: string, ts: number, side: MarketSide | null): ContractState {
    const known = this.#contracts.get(ref)
    if (known !== undefined) return known
    const at = ref.indexOf(":")
    const venue = (VENUE_SET.has(ref.slice(0, at)) ? ref.slice(0, at) : "venue_a") as Venue
    const yes = side ?? { id: "yes", name: "Yes", label: "Yes" }
    this.#opened({
      ref, venue, contract: ref.slice(at + 1), event: null, eventTitle: null, title: ref, category: null, kind: null,
      sides: [yes, { id: `${yes.id}:other`, name: yes.name === "Yes" ? "No" : "Other", label: yes.name === "Yes" ? "No" : "Other" }],
      rule: null, series: null, opensAt: null, closesAt: null, feeRate: null, listedAt: ts,
    })
    return this.#contracts.get(ref) as ContractState
  }

  #detector(state: ContractState): MoveDetector {
    if (state.detector === null) {
      state.detector = new MoveDetector(state.info.ref, { yes: state.info.sides[0].name, no: state.info.sides[1].name }, this.config)
    }
    return state.detector
  }

  #price(ref: string, ts: number, yesPrice: number): void {
    const state = this.#ensure(ref, ts, null)
    state.figures.price(ts, yesPrice)
    if (state.status === "settled" || state.status === "void") return
    this.#moves(state, this.#detector(state).price({ time: ts, price: yesPrice }))
  }

  /**
   * True for a trade this contract counted already: at the hand-over from the history backfill to the live
   * feed, the trades of the overlapping seconds come from both (each with the venue's trade id).
   */
  #repeat(state: ContractState, tradeId: string, ts: number): boolean {
    const recent = (state.recent ??= new Map())
    if (recent.has(tradeId)) return true
    recent.set(tradeId, ts)
    if (recent.size > RECENT_TRADES) {
      for (const [id, at] of recent) {
        if (at >= ts - RECENT_TRADE_MS) break
        recent.delete(id)
      }
    }
    return false
  }

  #trade(e: Extract<MarketEvent, { _tag: "TradePrinted" }>): void {
    const state = this.#ensure(e.ref, e.ts, e.side)
    if (this.#repeat(state, e.tradeId, e.ts)) return
    state.figures.trade(e.ts, e.usd)
    if (state.status === "settled" || state.status === "void") return
    const info = state.info
    const whale = isWhaleTrade(this.config, info.venue, e.usd)
    if (e.trader === null && !whale) return
    const id = whaleTradeId({ venue: info.venue, contract: e.ref, tradeId: e.tradeId, txId: e.txId })
    if (id === null || this.#seen.has(id)) return
    this.#seen.add(id)
    state.figures.keptUsd += Number.isFinite(e.usd) && e.usd > 0 ? e.usd : 0
    const trader = e.trader === null ? null : `${info.venue}:${e.trader.id}`
    let entry: TradeEntry | null = null
    if (trader !== null && e.trader !== null) {
      this.#names.set(trader, e.trader.name)
      entry = this.#position(trader, e, id)
      this.#recordTrade(trader, info, e)
    }
    let agreement: Agreement | null = null
    let summary: SummaryFigures | null = null
    if (whale) {
      agreement = this.#agreement.observe({
        id, market: state.marketKey, time: e.ts, outcome: `${e.ref}\u0000${e.side.name}`, action: e.action, usd: e.usd,
      })
      if (trader !== null) summary = this.summary(trader, info.category, info.kind)
      if (e.action === "buy") {
        state.figures.whaleBuy(e.ts, e.side.id === info.sides[1].id ? 1 : 0, e.usd, e.contracts)
        this.#moves(state, this.#detector(state).buy({ id, time: e.ts, outcome: e.side.name, usd: e.usd, whale: trader ?? id }))
      }
    }
    const stored: StoredTrade = {
      id, seq: ++this.#seq, tradeId: e.tradeId, txId: e.txId, time: e.ts, venue: info.venue, market: state.marketKey,
      contract: e.ref, event: info.event, title: info.title, category: info.category, kind: info.kind,
      outcome: e.side.name, outcomeLabel: e.side.label, action: e.action, entry, price: e.price, usd: e.usd,
      contracts: e.contracts, trader, traderName: e.trader?.name ?? null, whale, summary, agreement,
      result: "open", profit: null, settledAt: null,
    }
    state.open.push(stored)
    this.#changes.trades.push(stored)
    this.observe?.(e.book === undefined ? { _tag: "TradeRecorded", trade: stored } : { _tag: "TradeRecorded", trade: stored, book: e.book })
  }

  /** Applies a named trade to its position; tracks which book row it touched. */
  #position(trader: string, e: Extract<MarketEvent, { _tag: "TradePrinted" }>, id: string): TradeEntry | null {
    const entry = this.#book.apply({
      id, trader, time: e.ts, contract: e.ref, outcome: e.side.name, action: e.action, price: e.price,
      contracts: e.contracts, usd: e.usd,
    })
    if (!(e.contracts > 0) || !Number.isFinite(e.contracts) || entry === null) return entry
    const key = sideKeyOf(trader, e.ref, e.side.name)
    if (e.action === "buy") {
      let index = this.#held.get(key)
      if (entry === "open" || entry === "flip" || index === undefined) {
        index = this.#positions++
        this.#held.set(key, index)
        const onContract = this.#heldByContract.get(e.ref) ?? new Set<string>()
        onContract.add(key)
        this.#heldByContract.set(e.ref, onContract)
      }
      this.#lastBuy[index] = Math.max(this.#lastBuy[index] ?? e.ts, e.ts)
      this.#dirty.add(index)
      return entry
    }
    const index = this.#held.get(key)
    if (index === undefined) return entry
    this.#dirty.add(index)
    if (entry === "close") {
      this.#held.delete(key)
      this.#heldByContract.get(e.ref)?.delete(key)
    }
    return entry
  }

  #stat(trader: string, venue: Venue, category: Category | null, kind: Kind | null): StatsAccumulator {
    const key = recordKey(trader, "all", category, kind)
    let entry = this.#stats.get(key)
    if (entry === undefined) {
      entry = { acc: new StatsAccumulator(), row: null, venue, category, kind, trader }
      this.#stats.set(key, entry)
    }
    entry.row = null // stale until refreshed
    return entry.acc
  }

  #scopes(trader: string, venue: Venue, category: Category | null, kind: Kind | null): Array<StatsAccumulator> {
    const out = [this.#stat(trader, venue, null, null)]
    if (category !== null) out.push(this.#stat(trader, venue, category, null))
    if (category !== null && kind !== null) out.push(this.#stat(trader, venue, category, kind))
    return out
  }

  #recordTrade(trader: string, info: MarketInfo, e: Extract<MarketEvent, { _tag: "TradePrinted" }>): void {
    const open: RecordTrade = {
      id: "", trader, venue: info.venue, time: e.ts, category: info.category, kind: info.kind, action: e.action,
      price: e.price, contracts: e.contracts, usd: e.usd, entry: null, result: "open", settledAt: null,
    }
    for (const acc of this.#scopes(trader, info.venue, info.category, info.kind)) acc.add(open, e.ts)
    this.#changes.traders.add(trader)
  }

  #refresh(key: string): RecordRow | undefined {
    const entry = this.#stats.get(key)
    if (entry === undefined) return undefined
    if (entry.row === null) {
      entry.row = { trader: entry.trader, venue: entry.venue, period: "all", category: entry.category, kind: entry.kind, ...entry.acc.stats(this.config) }
      this.#records.set(key, entry.row)
    }
    return entry.row
  }

  #closed(ref: string): void {
    const state = this.#contracts.get(ref)
    if (state === undefined || state.status !== "open") return
    state.status = "closed"
    this.#marketChanged(state)
  }

  #settle(ref: string, settlement: Settlement): void {
    const state = this.#ensure(ref, settlement.time, null)
    if (state.status === "settled" || state.status === "void") return
    const winner = settlement.status === "settled" ? settlement.winner : null
    state.status = settlement.status === "settled" ? "settled" : "void"
    state.result = winner
    state.settledAt = settlement.time
    this.#book.settle(ref, settlement)
    for (const key of this.#heldByContract.get(ref) ?? []) {
      const index = this.#held.get(key)
      if (index !== undefined) this.#dirty.add(index)
      this.#held.delete(key)
    }
    this.#heldByContract.delete(ref)
    const info = state.info
    for (const trade of state.open) {
      const result = resultOf(trade.outcome, settlement)
      const profit = result === "open" ? null : trade.action === "buy"
        ? settlementProfit(trade.usd, trade.price, result)
        : -settlementProfit(trade.usd, trade.price, result) // a sale gives up (or escapes) what holding would have made
      const settled: StoredTrade = { ...trade, result, profit: profit === 0 ? 0 : profit, settledAt: settlement.time }
      this.#changes.trades.push(settled)
      this.observe?.({ _tag: "TradeSettled", trade: settled })
      if (trade.trader !== null && trade.action === "buy") this.#recordSettled(trade.trader, info, settled)
      if (trade.whale && trade.action === "buy" && (result === "win" || result === "loss")) this.#bands.add(info.kind, trade.price, trade.usd, result)
    }
    state.open = []
    state.detector = null
    this.#changes.settlements.push({ seq: ++this.#seq, contract: ref, status: settlement.status, winner, time: settlement.time })
    this.#marketChanged(state)
  }

  #recordSettled(trader: string, info: MarketInfo, trade: StoredTrade): void {
    const bet: RecordTrade = {
      id: trade.id, trader, venue: info.venue, time: trade.time, category: trade.category, kind: trade.kind, action: "buy",
      price: trade.price, contracts: trade.contracts, usd: trade.usd, entry: trade.entry, result: trade.result, settledAt: trade.settledAt,
    }
    const usd = Number.isFinite(trade.usd) && trade.usd > 0 ? trade.usd : 0
    for (const acc of this.#scopes(trader, info.venue, trade.category, trade.kind)) {
      if (trade.result === "void") {
        acc.voids++
        acc.traded -= usd // out of the return's money (added when it was traded)
        continue
      }
      acc.settled++
      if (trade.result === "win") acc.wins++
      else acc.losses++
      acc.staked += usd
      acc.profit += betProfit(bet, Infinity)
    }
    this.#changes.traders.add(trader)
  }

  #moves(state: ContractState, moves: ReadonlyArray<DetectedMove>): void {
    const info = state.info
    for (const move of moves) {
      const stored: StoredMove = {
        ...move, venue: info.venue, ref: state.marketKey, event: info.event, title: info.title,
        category: info.category, kind: info.kind,
      }
      this.#changes.moves.push(stored)
      this.observe?.({ _tag: "MoveRecorded", move: stored })
    }
  }

  #marketChanged(state: ContractState): void {
    this.#changes.markets.push({ info: state.info, status: state.status, result: state.result, settledAt: state.settledAt })
  }
}

const sameInfo = (a: MarketInfo, b: MarketInfo): boolean =>
  a.title === b.title && a.event === b.event && a.eventTitle === b.eventTitle && a.category === b.category &&
  a.kind === b.kind && a.sides[0].id === b.sides[0].id && a.sides[1].id === b.sides[1].id &&
  a.sides[0].name === b.sides[0].name && a.sides[1].name === b.sides[1].name && a.rule === b.rule &&
  a.series === b.series && a.closesAt === b.closesAt && a.opensAt === b.opensAt && a.feeRate === b.feeRate
