// The market registry: one MarketActor per contract, keyed by ref `<venue>:<contract>`. It spawns an
// actor on MarketListed (an upsert when the contract is known), routes each delivered batch of feed
// events by contract as ONE delivery per contract per batch (applied straight to the actor's plain
// MarketLive; only a delivery holding a listing or lifecycle input is a statechart `send`), runs venue_b prints through the
// attribution join, retires settled and void actors a grace period of FEED time after the fact, and
// answers reads from current snapshots without waiting. Emitted MarketEvents go to the `sink` given
// (the MarketBus in ./market-bus.ts), in the order the actors emit them; while a follower watches books
// (`watchBooks`), at the end of each delivery, the trades, price changes and book changes it wants then
// carrying a copy of their book (and any book it asked for, `requestBook`, follows them).
//
// Feed time is the largest `receivedAt` delivered (or the time given to `advance`); it never goes back,
// and the join window and the grace period are measured in it, so a replay gives the same output.
// Events for a contract not listed yet are held (bounded: `unknownPerContract` events per contract,
// `unknownContracts` contracts, the oldest dropped and counted) and replayed right after its listing.
// Events for a retired contract are dropped and counted. The registry never touches the database:
// `drainChanges` hands the changed records, and `drainBars` the changed price bars, to the store's flush
// (./market-bus.ts).
import { type Actor, createActor } from "xstate"
import { clear } from "../../arrays.js"
import type { FeedBatch } from "../bus.js"
import type { FeedEvent, MarketListed, MarketRescheduled, TickSizeChanged, TradeAttributed } from "../../domain/feed-events.js"
import { type BookSideView, type BookView, insertByListing, marketRefOf, type MarketEvent, type MarketInfo, type MarketLifecycle, type MarketRecord, type MarketSide } from "../../domain/market-events.js"
import type { Bar } from "./bars.js"
import type { Book } from "./book.js"
import { DEFAULT_JOIN, type JoinCounters, type JoinOptions, needsAttribution, TradeJoin } from "./join.js"
import { infoOf, type MarketInput, sideOf } from "./market-live.js"
import { round6 } from "../../numbers.js"
import { Unlisted, type UnlistedCounters } from "./unlisted.js"
import { applyDataDirect, lifecycleOf, listedStart, type MarketEmitted, marketMachine, type MarketStart, recordOf } from "./market.machine.js"

export type { BookSideView, BookView }

/** The events a follower may fill paper orders on, and the book changes of a contract it keeps the book of. */
export type BookedEvent = Extract<MarketEvent, { readonly _tag: "TradePrinted" | "PriceChanged" | "BookChanged" }>

/**
 * A follower's interest (bots, exit rules): true for the trades and price changes it will fill paper
 * orders on, and the book changes of contracts whose book it keeps. Those carry the book as it stood at
 * the end of their feed batch, so the fills do not depend on how far the market actors ran ahead of the
 * follower's fiber.
 */
export type BookWanted = (event: BookedEvent) => boolean

export interface RegistryOptions {
  /** Feed time a settled or void actor lives on before it is retired to a record (default 1 h). */
  readonly graceMs?: number
  readonly join?: JoinOptions
  readonly unknownPerContract?: number
  readonly unknownContracts?: number
  /** One-minute bars kept per contract (default a day). */
  readonly barsKept?: number
}

export interface RegistryCounters {
  spawned: number
  restored: number
  retired: number
  /** Deliveries to actors: at most one per contract per batch. */
  sends: number
  /** Those that needed the statechart (a listing or lifecycle input): xstate `send`s. */
  machineSends: number
  events: number
  emitted: number
  /** Events for a retired contract. */
  afterRetired: number
  unknownWinner: number
  unknownOutcome: number
}

export interface RegistryStats extends RegistryCounters {
  readonly unlisted: UnlistedCounters
  readonly join: JoinCounters
}

type Routable = Exclude<FeedEvent, TradeAttributed | TickSizeChanged>
type MarketActor = Actor<typeof marketMachine>

interface LiveEntry {
  readonly actor: MarketActor
  info: MarketInfo
  /** This batch's inputs for the actor, in order (reused; empty between batches). */
  readonly inputs: Array<MarketInput>
  /** The book's copy for followers in the release under way (`release`); null otherwise. */
  copy: BookView | null
}

const sameInfo = (a: MarketInfo, b: MarketInfo): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A contract's one-minute bar, as the store keeps it (src/store/price-bars.ts). */
export interface ContractBar {
  readonly ref: string
  readonly bar: Bar
}

/** One side's levels, best first, at most `depth` a side (the best level whatever the depth), copied. */
const sideView = (book: Book | undefined, side: MarketSide, depth: number): BookSideView => {
  if (book === undefined) return { side, bids: [], asks: [], bestBid: null, bestAsk: null }
  const bids = book.levels(side.id, "bid", depth)
  const asks = book.levels(side.id, "ask", depth)
  return {
    side, bids, asks,
    bestBid: depth >= 1 ? bids[0] ?? null : book.bestBid(side.id),
    bestAsk: depth >= 1 ? asks[0] ?? null : book.bestAsk(side.id),
  }
}

export class MarketRegistry {
  private readonly live = new Map<string, LiveEntry>()
  /** The same live entries by venue, then contract: routing a feed event builds no ref string (hot path). */
  private readonly liveByVenue = new Map<string, Map<string, LiveEntry>>()
  private readonly retired = new Map<string, MarketRecord>()
  /** Refs whose price bars changed since the last `drainBars`. */
  private readonly barsChanged = new Set<string>()
  /** Changed bars held for the next drain: a retired market's, or those of a write that failed. */
  private heldBars: Array<ContractBar> = []
  private readonly byEvent = new Map<string, Array<string>>()
  private readonly held: Unlisted<Routable>
  private readonly retireQueue: Array<{ readonly ref: string; readonly due: number }> = []
  private retireHead = 0
  private readonly dirty = new Set<string>()
  /** Actors with inputs this batch, in first-input order. */
  private readonly pending: Array<LiveEntry> = []
  /** What a direct delivery emits, reused. */
  private readonly out: Array<MarketEvent> = []
  /** What the delivery under way emitted, held until its end (`release`); null outside one. */
  private outgoing: Array<MarketEvent> | null = null
  private readonly outgoingBuffer: Array<MarketEvent> = []
  /** Indexes in `outgoing` of the events a follower wants with the book. */
  private readonly booked: Array<number> = []
  private readonly watchers: Array<BookWanted> = []
  /** Contracts whose book a follower asked for at the end of the next delivery. */
  private readonly requested = new Set<string>()
  /** The entries the release under way copied the book of. */
  private readonly copied: Array<LiveEntry> = []
  private now = Number.NEGATIVE_INFINITY
  private readonly graceMs: number
  readonly join: TradeJoin
  readonly counters: RegistryCounters = {
    spawned: 0, restored: 0, retired: 0, sends: 0, machineSends: 0, events: 0, emitted: 0, afterRetired: 0, unknownWinner: 0,
    unknownOutcome: 0,
  }

  constructor(private readonly sink: (event: MarketEvent) => void, private readonly options: RegistryOptions = {}) {
    this.graceMs = options.graceMs ?? 3_600_000
    this.join = new TradeJoin(options.join ?? DEFAULT_JOIN)
    this.held = new Unlisted(options.unknownPerContract ?? 64, options.unknownContracts ?? 1_000)
  }

  // ---- feeding ----

  /** Restores stored markets: open and closed ones as actors (no book until a snapshot), the rest as records. */
  restore(records: Iterable<MarketRecord>): void {
    for (const record of records) {
      const ref = record.info.ref
      if (this.live.has(ref) || this.retired.has(ref)) continue
      if (record.status === "open" || record.status === "closed") this.spawn({ record, announce: false })
      else this.retired.set(ref, record)
      this.index(ref, null, record.info.event, record.info.listedAt)
      this.counters.restored++
    }
  }

  /**
   * From now on the trades, price changes and book changes `wanted` says yes to carry the book as of the
   * end of their delivery (`book`). Returns the undo.
   */
  watchBooks(wanted: BookWanted): () => void {
    this.watchers.push(wanted)
    return () => {
      const i = this.watchers.indexOf(wanted)
      if (i >= 0) this.watchers.splice(i, 1)
    }
  }

  /**
   * A follower (watching books) asks for `ref`'s book: a BookChanged carrying it goes out at the end of
   * the next delivery (or `advance`), in feed order, whether or not the book changed.
   */
  requestBook(ref: string): void {
    this.requested.add(ref)
  }

  /** One feed batch (a frame's events): at most one `send` per contract. */
  deliver(batch: FeedBatch): void {
    const holding = this.hold()
    // Indexed loops on the per-frame path: a for-of's iterator results are allocated where V8 does not inline `next`.
    for (let b = 0; b < batch.length; b++) {
      const event = batch[b] as FeedEvent
      if (event.receivedAt > this.now) {
        this.now = event.receivedAt
        // Trades whose join window this event's time ended go out before it: they happened before it, and
        // the intel pipeline's move detectors take points in time order. What this batch routed so far is
        // applied first (so a batch is then more than one send per contract; only when a trade is released).
        if (this.join.dueBy(this.now)) {
          this.applyPending()
          this.routeAll(this.join.flush(this.now))
          this.applyPending()
        }
      }
      this.counters.events++
      this.route(event)
    }
    this.settle()
    if (holding) this.release()
  }

  /** Moves feed time to `now` (when later) without events: expires join windows, retires actors. */
  advance(now: number): void {
    const holding = this.hold()
    if (now > this.now) this.now = now
    this.settle()
    if (holding) this.release()
  }

  /**
   * While a follower watches books, emitted events wait for the end of the delivery; true then (false
   * inside a delivery already held: the outer one releases).
   */
  private hold(): boolean {
    if (this.watchers.length === 0 || this.outgoing !== null) return false
    clear(this.outgoingBuffer)
    clear(this.booked)
    this.outgoing = this.outgoingBuffer
    return true
  }

  /** The delivery's events go out in order, each one a follower wants with the book as it is now, at its end. */
  private release(): void {
    const out = this.outgoingBuffer
    this.outgoing = null
    if (this.booked.length > 0) {
      // One copy per contract per delivery: the book no longer moves.
      const copied = this.copied
      for (let b = 0; b < this.booked.length; b++) {
        const i = this.booked[b] as number
        const event = out[i] as BookedEvent
        const entry = this.live.get(event.ref)
        let view: BookView | null
        if (entry === undefined) view = this.book(event.ref)
        else if (entry.copy !== null) view = entry.copy
        else {
          view = this.book(event.ref)
          entry.copy = view
          copied.push(entry)
        }
        if (view !== null) out[i] = { ...event, book: view }
      }
      // Not kept past the release: a copy that lived on would be carried into the old generation.
      for (let c = 0; c < copied.length; c++) (copied[c] as LiveEntry).copy = null
      clear(copied)
      clear(this.booked)
    }
    // Books a follower asked for (`requestBook`), as they stand at this point of the feed.
    if (this.requested.size > 0) {
      for (const ref of this.requested) {
        const book = this.live.has(ref) ? this.book(ref) : null
        if (book !== null) out.push({ _tag: "BookChanged", ts: this.now, ref, book })
      }
      this.requested.clear()
    }
    for (let i = 0; i < out.length; i++) this.sink(out[i] as MarketEvent)
    clear(out)
  }

  private wanted(event: BookedEvent): boolean {
    for (let w = 0; w < this.watchers.length; w++) if ((this.watchers[w] as BookWanted)(event)) return true
    return false
  }

  private settle(): void {
    this.routeAll(this.join.flush(this.now))
    this.applyPending()
    this.retireDue()
  }

  /** Applies the inputs routed so far to their actors (one delivery each) and emits what they emit. */
  private applyPending(): void {
    const pending = this.pending
    for (let p = 0; p < pending.length; p++) {
      const entry = pending[p] as LiveEntry
      const inputs = entry.inputs
      this.counters.sends++
      const out = this.out
      clear(out)
      const stop = applyDataDirect(entry.actor, inputs, out)
      for (let i = 0; i < out.length; i++) this.emitted(out[i] as MarketEvent)
      if (stop < inputs.length) {
        this.counters.machineSends++
        entry.actor.send({ type: "feed.batch", inputs: inputs.slice(stop) })
      }
      clear(inputs)
    }
    clear(pending)
  }

  private routeAll(events: ReadonlyArray<Routable>): void {
    for (let i = 0; i < events.length; i++) this.routeKnown(events[i] as Routable)
  }

  private route(event: FeedEvent): void {
    switch (event._tag) {
      case "TickSizeChanged": return
      case "TradeAttributed": {
        const trade = this.join.attribution(event, this.now)
        if (trade !== null) this.routeKnown(trade)
        return
      }
      case "TradePrinted": {
        if (!needsAttribution(event)) return this.routeKnown(event)
        const trade = this.join.print(event, this.now)
        if (trade !== null) this.routeKnown(trade)
        return
      }
      default: return this.routeKnown(event)
    }
  }

  private routeKnown(event: Routable): void {
    if (event._tag !== "MarketListed" && event._tag !== "MarketRescheduled") {
      const known = this.liveByVenue.get(event.venue)?.get(event.contract)
      if (known !== undefined) {
        const input = this.inputOf(known.info, event)
        if (input !== null) this.push(known, input)
        return
      }
    }
    const ref = marketRefOf(event.venue, event.contract)
    if (event._tag === "MarketListed") return this.list(ref, event)
    if (event._tag === "MarketRescheduled") return this.reschedule(ref, event)
    const entry = this.live.get(ref)
    if (entry !== undefined) {
      const input = this.inputOf(entry.info, event)
      if (input !== null) this.push(entry, input)
    } else if (this.retired.has(ref)) {
      this.counters.afterRetired++
    } else {
      this.held.hold(ref, event)
    }
  }

  private list(ref: string, listing: MarketListed): void {
    const entry = this.live.get(ref)
    if (entry !== undefined) {
      const info = infoOf(listing, entry.info.listedAt)
      if (sameInfo(info, entry.info)) return
      this.index(ref, entry.info.event, info.event, info.listedAt)
      entry.info = info
      this.push(entry, { _tag: "listed", info })
      this.dirty.add(ref)
      return
    }
    const record = this.retired.get(ref)
    if (record !== undefined) {
      const info = infoOf(listing, record.info.listedAt)
      if (sameInfo(info, record.info)) return
      this.index(ref, record.info.event, info.event, info.listedAt)
      this.retired.set(ref, { ...record, info })
      this.dirty.add(ref)
      return
    }
    const info = infoOf(listing)
    this.index(ref, null, info.event, info.listedAt)
    this.spawn(listedStart(info))
    this.counters.spawned++
    for (const event of this.held.release(ref)) this.routeKnown(event)
  }

  /** A new close time: the listing keeps it (and the store with the next flush); before the listing it waits with the contract's other events. */
  private reschedule(ref: string, event: MarketRescheduled): void {
    const entry = this.live.get(ref)
    if (entry !== undefined) {
      if (entry.info.closesAt === event.closesAt) return
      entry.info = { ...entry.info, closesAt: event.closesAt }
      this.push(entry, { _tag: "listed", info: entry.info })
      this.dirty.add(ref)
      return
    }
    const record = this.retired.get(ref)
    if (record !== undefined) {
      if (record.info.closesAt === event.closesAt) return
      this.retired.set(ref, { ...record, info: { ...record.info, closesAt: event.closesAt } })
      this.dirty.add(ref)
      return
    }
    this.held.hold(ref, event)
  }

  private spawn(start: MarketStart): void {
    const ref = start.record.info.ref
    const input = this.options.barsKept === undefined ? start : { ...start, barsKept: this.options.barsKept }
    const actor = createActor(marketMachine, { input, systemId: `market:${ref}` })
    actor.on("*", this.onEmitted)
    const entry: LiveEntry = { actor, info: start.record.info, inputs: [], copy: null }
    this.live.set(ref, entry)
    const { venue, contract } = start.record.info
    if (marketRefOf(venue, contract) === ref) {
      let byContract = this.liveByVenue.get(venue)
      if (byContract === undefined) this.liveByVenue.set(venue, (byContract = new Map()))
      byContract.set(contract, entry)
    }
    actor.start()
  }

  private inputOf(info: MarketInfo, event: Exclude<Routable, MarketListed | MarketRescheduled>): MarketInput | null {
    switch (event._tag) {
      case "BookSnapshot":
      case "BookDelta": return event
      case "PriceReported": return event.price === null ? null : { _tag: "price", ts: event.ts, price: event.price }
      case "MarketClosed": return { _tag: "close", ts: event.ts }
      case "MarketVoided": return { _tag: "void", ts: event.ts }
      case "MarketSettled": {
        const winner = sideOf(info, event.winner)
        if (winner === null) this.counters.unknownWinner++
        return winner === null ? null : { _tag: "settle", ts: event.ts, winner }
      }
      case "TradePrinted": {
        const side = sideOf(info, event.outcome)
        if (side === null) {
          this.counters.unknownOutcome++
          return null
        }
        return {
          _tag: "trade",
          trade: {
            _tag: "TradePrinted", ts: event.ts, ref: info.ref, tradeId: event.tradeId, txId: event.txId, side,
            action: event.action, price: event.price, contracts: event.contracts,
            usd: round6(event.price * event.contracts), trader: event.trader,
          },
        }
      }
    }
  }

  private push(entry: LiveEntry, input: MarketInput): void {
    if (entry.inputs.length === 0) this.pending.push(entry)
    entry.inputs.push(input)
  }

  private readonly onEmitted = (emitted: MarketEmitted): void => this.emitted(emitted.event)

  private emitted(event: MarketEvent): void {
    this.counters.emitted++
    switch (event._tag) {
      case "MarketOpened":
        this.dirty.add(event.market.ref)
        break
      case "MarketSettled":
      case "MarketVoided":
        this.retireQueue.push({ ref: event.ref, due: this.now + this.graceMs })
        this.dirty.add(event.ref)
        break
      case "MarketClosed":
        this.dirty.add(event.ref)
        break
      case "TradePrinted":
        this.dirty.add(event.ref)
        this.barsChanged.add(event.ref)
        break
      case "PriceChanged":
        this.barsChanged.add(event.ref)
        break
      default:
    }
    const outgoing = this.outgoing
    if (outgoing === null) return this.sink(event)
    if ((event._tag === "TradePrinted" || event._tag === "PriceChanged" || event._tag === "BookChanged") && this.wanted(event)) {
      this.booked.push(outgoing.length)
    }
    outgoing.push(event)
  }

  private retireDue(): void {
    while (this.retireHead < this.retireQueue.length) {
      const due = this.retireQueue[this.retireHead]
      if (due === undefined || due.due > this.now) break
      this.retireHead++
      const entry = this.live.get(due.ref)
      if (entry === undefined) continue
      const snapshot = entry.actor.getSnapshot()
      this.retired.set(due.ref, recordOf(snapshot))
      if (this.barsChanged.delete(due.ref)) {
        for (const bar of snapshot.context.live.bars?.takeChanged() ?? []) this.heldBars.push({ ref: due.ref, bar })
      }
      entry.actor.stop()
      this.live.delete(due.ref)
      const { venue, contract } = entry.info
      if (this.liveByVenue.get(venue)?.get(contract) === entry) this.liveByVenue.get(venue)?.delete(contract)
      this.counters.retired++
    }
    if (this.retireHead > 1_024 && this.retireHead * 2 > this.retireQueue.length) {
      this.retireQueue.splice(0, this.retireHead)
      this.retireHead = 0
    }
  }

  /** Moves `ref` (listed at `listedAt`) from event `from` to event `to`, in listing order (`insertByListing`). */
  private index(ref: string, from: string | null, to: string | null, listedAt: number): void {
    if (from === to) return
    if (from !== null) {
      const refs = this.byEvent.get(from)
      const i = refs?.indexOf(ref) ?? -1
      if (refs !== undefined && i >= 0) refs.splice(i, 1)
    }
    if (to === null) return
    const refs = this.byEvent.get(to)
    if (refs === undefined) this.byEvent.set(to, [ref])
    else insertByListing(refs, ref, (r) => (r === ref ? listedAt : this.info(r)?.listedAt ?? 0))
  }

  // ---- reads: current snapshots, never waiting ----

  /** Feed time: the latest receive time delivered (−Infinity before any). */
  feedTime(): number {
    return this.now
  }

  record(ref: string): MarketRecord | null {
    const entry = this.live.get(ref)
    return entry !== undefined ? recordOf(entry.actor.getSnapshot()) : this.retired.get(ref) ?? null
  }

  info(ref: string): MarketInfo | null {
    return this.live.get(ref)?.info ?? this.retired.get(ref)?.info ?? null
  }

  status(ref: string): MarketLifecycle | null {
    const entry = this.live.get(ref)
    return entry !== undefined ? lifecycleOf(entry.actor.getSnapshot()) : this.retired.get(ref)?.status ?? null
  }

  /** Both sides' books, best first, at most `depth` levels a side; empty once retired; null when unknown. */
  book(ref: string, depth = Number.POSITIVE_INFINITY): BookView | null {
    const entry = this.live.get(ref)
    const info = entry?.info ?? this.retired.get(ref)?.info
    if (info === undefined) return null
    const live = entry?.actor.getSnapshot().context.live
    const book = live?.book
    return { ref, asOf: live?.bookAt ?? null, sides: [sideView(book, info.sides[0], depth), sideView(book, info.sides[1], depth)] }
  }

  /** Yes price of the last trade. */
  lastPrice(ref: string): number | null {
    const entry = this.live.get(ref)
    return entry !== undefined ? entry.actor.getSnapshot().context.live.lastPrice : this.retired.get(ref)?.lastPrice ?? null
  }

  /** Feed time of the contract's newest PriceChanged (MarketLive.yesPriceAt); null when none. */
  yesPriceAt(ref: string): number | null {
    const entry = this.live.get(ref)
    return entry !== undefined ? entry.actor.getSnapshot().context.live.yesPriceAt : this.retired.get(ref)?.lastTradeAt ?? null
  }

  /** Current Yes price: the last trade's, or before any trade the ticker's or the book's mid. */
  yesPrice(ref: string): number | null {
    const entry = this.live.get(ref)
    return entry !== undefined ? entry.actor.getSnapshot().context.live.yesPrice : this.retired.get(ref)?.lastPrice ?? null
  }

  /** A live market's one-minute bars starting in [fromMs, toMs), oldest first (the store has the rest). */
  bars(ref: string, fromMs: number, toMs: number): ReadonlyArray<Bar> {
    return this.live.get(ref)?.actor.getSnapshot().context.live.bars?.range(fromMs, toMs) ?? []
  }

  /** Contract refs of an event ref, in listing order. */
  contractsOfEvent(eventRef: string): ReadonlyArray<string> {
    return [...(this.byEvent.get(eventRef) ?? [])]
  }

  /** Refs of open markets, in listing order. */
  openRefs(): ReadonlyArray<string> {
    const refs: Array<string> = []
    for (const [ref, entry] of this.live) if (lifecycleOf(entry.actor.getSnapshot()) === "open") refs.push(ref)
    return refs
  }

  /** Every known ref: live actors first, then retired records. */
  refs(): ReadonlyArray<string> {
    return [...this.live.keys(), ...this.retired.keys()]
  }

  get liveCount(): number {
    return this.live.size
  }

  /** Contracts with events held until their listing, and the hold's counts. */
  get heldCount(): number {
    return this.held.size
  }

  get heldCounters(): Readonly<UnlistedCounters> {
    return this.held.counters
  }

  // ---- persistence hand-off ----

  /** Up to `max` records changed since the last drain (listing or lifecycle, last trade), in change order. */
  drainChanges(max = Number.POSITIVE_INFINITY): Array<MarketRecord> {
    const out: Array<MarketRecord> = []
    for (const ref of this.dirty) {
      if (out.length >= max) break
      this.dirty.delete(ref)
      const record = this.record(ref)
      if (record !== null) out.push(record)
    }
    return out
  }

  /**
   * Every bar changed since the last drain (a changed minute and those after it, per market) whose minute
   * starts at or after `fromMs`: what the store's flush writes.
   */
  drainBars(fromMs = Number.NEGATIVE_INFINITY): Array<ContractBar> {
    const out = this.heldBars.filter((c) => c.bar.start >= fromMs)
    this.heldBars = []
    for (const ref of this.barsChanged) {
      for (const bar of this.live.get(ref)?.actor.getSnapshot().context.live.bars?.takeChanged() ?? []) {
        if (bar.start >= fromMs) out.push({ ref, bar })
      }
    }
    this.barsChanged.clear()
    return out
  }

  /** Drained bars whose write failed: the next drain hands them over again (before newer ones). */
  holdBars(bars: ReadonlyArray<ContractBar>): void {
    this.heldBars = [...bars, ...this.heldBars]
  }

  /** Bars changed and not drained yet: held rows plus markets with changes. */
  get barsPending(): number {
    return this.heldBars.length + this.barsChanged.size
  }

  /** Every count the registry keeps: its own, the unlisted hold's and the join's. */
  stats(): RegistryStats {
    return { ...this.counters, unlisted: { ...this.held.counters }, join: { ...this.join.counters } }
  }

  /**
   * Takes each record's last trade (a history backfill's, made by another registry) where it is newer
   * than what the live actor has seen, so the current price and the stored record agree with history.
   * Where that changes the current price (the actor had only book mids or tickers), a PriceChanged says so
   * at this registry's feed time: what follows the bus (the intel pipeline's list figures, moves) would
   * otherwise keep the mid.
   */
  adoptHistory(records: Iterable<MarketRecord>): void {
    const holding = this.hold()
    const endings: Array<FeedEvent> = []
    for (const record of records) {
      const ref = record.info.ref
      const entry = this.live.get(ref)
      if (entry === undefined) continue
      const ending = endingOf(record, lifecycleOf(entry.actor.getSnapshot()))
      if (ending !== null) endings.push(ending)
      if (record.lastPrice === null || record.lastTradeAt === null) continue
      const live = entry.actor.getSnapshot().context.live
      const before = live.yesPrice
      if (!live.adoptLastTrade(record.lastPrice, record.lastTradeAt)) continue
      this.dirty.add(ref)
      if (live.yesPrice !== null && live.yesPrice !== before) {
        const ts = Math.max(this.now, record.lastTradeAt)
        live.pricedAt(ts)
        this.emitted({ _tag: "PriceChanged", ts, ref, yesPrice: live.yesPrice })
      }
    }
    // Closed, settled or voided in history while this registry had the market open (a restart's backfill
    // finds what happened while the service was down): the actor ends as if the feed had said so, and the
    // bus hears it (paper holdings, bots and alerts settle; intelligence records the result).
    if (endings.length > 0) this.deliver(endings)
    if (holding) this.release()
  }

  /**
   * The end of a history backfill (another registry's `records`): a market history knows and this one does
   * not (listed, and maybe settled, before the live feed said anything of it) is taken as on a restart
   * (`restore`: an open one as an actor with its last trade, an ended one as a record), so reads, paper
   * orders and bots find it in this run and not only after a restart; the others take history's last trade
   * where it is newer (`adoptHistory`).
   */
  takeHistory(records: Iterable<MarketRecord>): void {
    const unknown: Array<MarketRecord> = []
    const known: Array<MarketRecord> = []
    for (const record of records) (this.live.has(record.info.ref) || this.retired.has(record.info.ref) ? known : unknown).push(record)
    const holding = this.hold()
    this.restore(unknown)
    // Unlike a restart's markets, these open ones are news to the followers (bots trade only markets
    // they heard open): each is announced as a listing would be.
    // (Not through `emitted`: nothing changed that the store does not hold.)
    for (const record of unknown) {
      if (record.status !== "open") continue
      const opened: MarketEvent = { _tag: "MarketOpened", ts: record.info.listedAt, market: record.info }
      this.counters.emitted++
      if (this.outgoing === null) this.sink(opened)
      else this.outgoing.push(opened)
    }
    this.adoptHistory(known)
    if (holding) this.release()
  }

  /** Every market's record, live or retired. */
  records(): Array<MarketRecord> {
    const out: Array<MarketRecord> = []
    for (const entry of this.live.values()) out.push(recordOf(entry.actor.getSnapshot()))
    for (const record of this.retired.values()) out.push(record)
    return out
  }

  /** Marks refs changed again (a write that failed). */
  markChanged(refs: Iterable<string>): void {
    for (const ref of refs) this.dirty.add(ref)
  }

  get changesPending(): number {
    return this.dirty.size
  }

  /** Stops every actor (shutdown). */
  stop(): void {
    for (const entry of this.live.values()) entry.actor.stop()
  }
}

/** The feed event that moves a live market from `live` to where history's record stands; null when it need not move. */
const endingOf = (record: MarketRecord, live: MarketLifecycle): FeedEvent | null => {
  const at = { venue: record.info.venue, contract: record.info.contract }
  if (live !== "settled" && live !== "void" && (record.status === "settled" || record.status === "void")) {
    const ts = record.settledAt ?? record.closedAt ?? record.info.listedAt
    return record.status === "settled" && record.winner !== null
      ? { _tag: "MarketSettled", ...at, ts, receivedAt: ts, winner: record.winner.id }
      : { _tag: "MarketVoided", ...at, ts, receivedAt: ts }
  }
  if (live === "open" && record.status === "closed") {
    const ts = record.closedAt ?? record.info.listedAt
    return { _tag: "MarketClosed", ...at, ts, receivedAt: ts }
  }
  return null
}
