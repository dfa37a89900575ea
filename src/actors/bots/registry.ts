// The bot registry: one actor per bot (trader-bot, signal-bot, market-bot machines), spawned on
// creation or restored from a persisted snapshot, and the routing of live events to them. IntelBus
// trades go to the trader bots of their trader and to the signal bots whose signal matches (indexed by
// trader, and by venue × category, so a trade is matched against few signals); MarketBus prices go to
// the market bots of that contract, settlements to every bot holding the contract, listings of a
// repeating series to market bots seeking their next market. Each command carries a Quoter over the
// market's book as of the event: the copy the event carries (`book`: the registry says which events it
// wants with one, `wantsBook`, and the market actors stamp those at the end of their feed batch), else the
// current book (read lazily, once per contract per delivery). What a market bot does as feed time passes
// (a maxHoldHours sale, a move to the series' next market) takes prices, books and open markets as the
// feed delivered them so far (`prices`, `books`, `tradable`), never the market actors' state, which may
// be ahead of the bots. Time is the events' feed time only.
//
// A delivery (`deliver`, a chunk of events) sends each trader or signal bot its trades as ONE command, at
// the end of the chunk or before a settlement, whichever comes first: a bot's trades reach it in feed
// order with nothing between them, and bots do not read one another, so every bot ends as if each trade
// had been sent alone. What bots emit waits in an outbox and is applied in the order of the commands that
// made it (`ord`), so fills, holders and dirty bots come out the same whatever the chunking.
//
// The registry never touches the database or a bus: emitted fills go to `onTraded` (the paper accounts),
// and the bots whose money or status moved wait in `dirty` until the store layer drains them.
import { type Actor, createActor } from "xstate"
import { clear } from "../../arrays.js"
import type { MarketEvent, MarketInfo, MarketLifecycle } from "../../domain/market-events.js"
import type { IntelEvent, OrderedEvent } from "../../intel/intel-bus.js"
import { actedOn, type FeedMarks, isAfter, type RecentEvent, timeOf, venueOf } from "../../intel/recent-feed.js"
import type { StoredTrade } from "../../intel/pipeline.js"
import type { BookedEvent, BookView } from "../markets/registry.js"
import type {
  AnyBotContext, BotEmitted, CommonCommand, MarketBotContext, MarketCommand, SignalBotContext, SignalCommand, SourceTrade, TraderBotContext,
  TraderCommand,
} from "./bot-types.js"
import { holdDeadline } from "./market-rule.js"
import { marketBotMachine } from "./market-bot.machine.js"
import { bookQuoter, NO_QUOTES, QuoteCache, type Quoter } from "./quote.js"
import { signalBotMachine } from "./signal-bot.machine.js"
import { SignalIndex } from "./signal-index.js"
import { traderBotMachine } from "./trader-bot.machine.js"

/** The market reads bots need (MarketsService has them all). */
export interface MarketReads {
  readonly info: (ref: string) => MarketInfo | null
  readonly book: (ref: string) => BookView | null
  readonly yesPrice: (ref: string) => number | null
  readonly status: (ref: string) => MarketLifecycle | null
  readonly openRefs: () => ReadonlyArray<string>
  /** Contract refs of an event ref (empty for a contract or an unknown ref). */
  readonly contractsOfEvent: (eventRef: string) => ReadonlyArray<string>
  /** Asks the market actors for a BookChanged carrying `ref`'s book, in feed order (MarketsService.requestBook). */
  readonly requestBook?: (ref: string) => void
}

export type BotStatus = "running" | "paused" | "ended"

type TraderActor = Actor<typeof traderBotMachine>
type SignalActor = Actor<typeof signalBotMachine>
type MarketActor = Actor<typeof marketBotMachine>

export type BotEntry =
  | { readonly kind: "trader"; readonly actor: TraderActor }
  | { readonly kind: "signal"; readonly actor: SignalActor }
  | { readonly kind: "market"; readonly actor: MarketActor }

/** What is stored of a bot to restore it: its persisted snapshot, and the feed it had seen when saved. */
export interface StoredBot {
  readonly id: string
  readonly kind: "trader" | "signal" | "market"
  readonly snapshot: unknown
  /** `through` when the snapshot was taken (none: saved before marks were kept). */
  readonly through?: FeedMarks | null
}

export type BotTraded = Extract<BotEmitted, { type: "bot.traded" }>

export interface BotRegistryCounters {
  intelEvents: number
  marketEvents: number
  /** Commands sent to bot actors (a batch of trades is one). */
  sends: number
  /** Trades routed to trader and signal bots (one per bot per trade). */
  routed: number
  /** Signals tested against trades (after the index). */
  signalTests: number
  fills: number
}

/** Where a bot is indexed, to unindex it without a scan (signal bots: in the SignalIndex). */
interface Indexed {
  trader?: string
  signal?: boolean
  market?: string
  series?: string | null
  timed?: boolean
}

const statusOfValue = (value: unknown): BotStatus =>
  value === "paused" ? "paused" : value === "ended" ? "ended" : "running"

const addTo = <K, V>(map: Map<K, Set<V>>, key: K, value: V): void => {
  let set = map.get(key)
  if (set === undefined) map.set(key, (set = new Set()))
  set.add(value)
}
/** Counts `key` up or down (gone at zero); the new count (0 for a null key, which is no key). */
const count = (map: Map<string, number>, key: string | null, by: 1 | -1): number => {
  if (key === null) return 0
  const n = (map.get(key) ?? 0) + by
  if (n > 0) map.set(key, n)
  else map.delete(key)
  return n
}
const removeFrom = <K, V>(map: Map<K, Set<V>>, key: K, value: V): void => {
  const set = map.get(key)
  if (set === undefined) return
  set.delete(value)
  if (set.size === 0) map.delete(key)
}

/** Trades gathered for one trader or signal bot during a delivery. */
interface Pending {
  readonly entry: BotEntry
  readonly trades: Array<SourceTrade>
  readonly quoters: Array<Quoter>
  readonly ords: Array<number>
}

type Delivered = MarketEvent | IntelEvent

const isIntel = (event: Delivered): event is IntelEvent =>
  event._tag === "TradeRecorded" || event._tag === "TradeSettled" || event._tag === "MoveRecorded"

const sendCommonTo = (entry: BotEntry, command: CommonCommand): void => {
  switch (entry.kind) {
    case "trader": return entry.actor.send(command)
    case "signal": return entry.actor.send(command)
    case "market": return entry.actor.send(command)
  }
}

export class BotRegistry {
  private readonly bots = new Map<string, BotEntry>()
  private readonly byTrader = new Map<string, Set<string>>()
  private readonly signals = new SignalIndex()
  /** Signal bots a trade matched (reused from trade to trade). */
  private readonly hits: Array<string> = []
  private readonly indexed = new Map<string, Indexed>()
  private readonly marketIds = new Set<string>()
  private readonly byAccount = new Map<string, Set<string>>()
  private readonly marketBots = new Map<string, Set<string>>()
  private readonly holders = new Map<string, Set<string>>()
  private readonly timed = new Set<string>()
  /** Market bots by contract and by series followed, all of them and those with maxHoldHours (`wantsBook`). */
  private readonly followedSeries = new Map<string, number>()
  private readonly timedRefs = new Map<string, number>()
  private readonly timedSeries = new Map<string, number>()
  /** The newest book delivered of each contract whose book is kept in feed order (`keeps`). */
  private readonly books = new Map<string, BookView>()
  /** Yes prices in feed order: the open markets' when this registry was made, then each PriceChanged. */
  private readonly prices = new Map<string, number>()
  readonly dirty = new Set<string>()
  /** Buy walks kept across events while a side's asks stay the same (quote.ts). */
  private readonly quotes = new QuoteCache()
  /** Quoters of the delivery under way over current books, by contract (books do not move during one)… */
  private readonly quoters = new Map<string, Quoter>()
  /** …and over the books events carried, by book. */
  private readonly carried = new Map<BookView, Quoter>()
  /** Trades waiting for the end of the delivery, by bot (first routed first). */
  private readonly pending = new Map<string, Pending>()
  /** Emitted events waiting to be applied in command order, and the order of the command being sent. */
  private outbox: Array<{ readonly ord: number; readonly event: BotEmitted }> = []
  private ord = 0
  private sending = 0
  /** A batch's `out`: what the bot emitted, as if by `emit`. */
  private readonly out = (event: BotEmitted): void => this.emitted(event)
  private now = Number.NEGATIVE_INFINITY
  private minute = Number.NEGATIVE_INFINITY
  /** Newest feed time delivered of each venue (`through`). */
  private readonly delivered = new Map<string, number>()
  /** During `catchUp`: each restored bot's marks, and the venue and time of the event being routed. */
  private catching: ReadonlyMap<string, FeedMarks> | null = null
  private atVenue = ""
  private atTs = 0
  readonly counters: BotRegistryCounters = { intelEvents: 0, marketEvents: 0, sends: 0, routed: 0, signalTests: 0, fills: 0 }

  /**
   * Markets open as of the events delivered so far: those open when this registry was made, then each
   * listing, less each close, settlement and void, in feed order.
   */
  private readonly tradable = new Set<string>()

  constructor(
    private readonly markets: MarketReads,
    private readonly onTraded: (event: BotTraded) => void = () => {},
  ) {
    for (const ref of markets.openRefs()) {
      this.tradable.add(ref)
      const price = markets.yesPrice(ref)
      if (price !== null) this.prices.set(ref, price)
    }
  }

  /** Newest feed time delivered (−Infinity before any). */
  feedTime(): number {
    return this.now
  }

  /**
   * Newest feed time delivered of each venue: stored with each bot's snapshot and with every flush, so a
   * node that takes the bots over knows which events of its recent feed they have not seen (`catchUp`).
   */
  through(): FeedMarks {
    return Object.fromEntries(this.delivered)
  }

  // ---- lifecycle ----

  /** Spawns a new bot (running) from its first context. */
  spawn(context: AnyBotContext): BotEntry {
    const entry = this.start(context, undefined)
    this.flush()
    return entry
  }

  /**
   * A new bot's first persisted snapshot without registering it: the actor runs `first` (a market bot's
   * start, which may buy at once) and stops. The operation stores it, then `restore`s it.
   */
  preview(context: AnyBotContext, first?: MarketCommand): unknown {
    const actor = context.kind === "trader" ? createActor(traderBotMachine, { input: context })
      : context.kind === "signal" ? createActor(signalBotMachine, { input: context })
      : createActor(marketBotMachine, { input: context })
    actor.start()
    if (first !== undefined && context.kind === "market") (actor as MarketActor).send(first)
    const snapshot = actor.getPersistedSnapshot()
    actor.stop()
    return snapshot
  }

  /** Ids of one account's bots. */
  idsOf(accountId: string): ReadonlyArray<string> {
    return [...(this.byAccount.get(accountId) ?? [])]
  }

  /** Restores stored bots from their persisted snapshots. */
  restore(stored: Iterable<StoredBot>): number {
    let n = 0
    for (const bot of stored) {
      if (this.bots.has(bot.id)) continue
      const snapshot = bot.snapshot as { readonly context: AnyBotContext }
      this.start(snapshot.context, snapshot)
      n++
    }
    this.flush()
    return n
  }

  private start(context: AnyBotContext, snapshot: unknown): BotEntry {
    const options = (input: AnyBotContext) => (snapshot === undefined ? { input } : { input, snapshot: snapshot as never })
    let entry: BotEntry
    switch (context.kind) {
      case "trader": entry = { kind: "trader", actor: createActor(traderBotMachine, options(context) as { input: TraderBotContext }) }; break
      case "signal": entry = { kind: "signal", actor: createActor(signalBotMachine, options(context) as { input: SignalBotContext }) }; break
      case "market": entry = { kind: "market", actor: createActor(marketBotMachine, options(context) as { input: MarketBotContext }) }; break
    }
    ;entry.actor.on("*", (e) => this.emitted(e as BotEmitted))
    entry.actor.start()
    this.bots.set(context.id, entry)
    addTo(this.byAccount, context.accountId, context.id)
    for (const t of entry.actor.getSnapshot().context.trades) if (t.status === "open") addTo(this.holders, t.market.contract, context.id)
    this.index(context.id)
    return entry
  }

  /** Stops and forgets a bot (a creation the store refused). */
  discard(id: string): void {
    const entry = this.bots.get(id)
    if (entry === undefined) return
    this.unindex(id)
    for (const set of this.holders.values()) set.delete(id)
    this.marketIds.delete(id)
    removeFrom(this.byAccount, entry.actor.getSnapshot().context.accountId, id)
    entry.actor.stop()
    this.bots.delete(id)
    this.dirty.delete(id)
  }

  stop(): void {
    for (const entry of this.bots.values()) entry.actor.stop()
  }

  // ---- reads ----

  get(id: string): BotEntry | undefined {
    return this.bots.get(id)
  }

  context(id: string): AnyBotContext | undefined {
    return this.bots.get(id)?.actor.getSnapshot().context
  }

  status(id: string): BotStatus | undefined {
    const entry = this.bots.get(id)
    return entry === undefined ? undefined : statusOfValue(entry.actor.getSnapshot().value)
  }

  /** The persisted snapshot to store (JSON). */
  persisted(id: string): unknown {
    return this.bots.get(id)?.actor.getPersistedSnapshot()
  }

  ids(): IterableIterator<string> {
    return this.bots.keys()
  }

  get size(): number {
    return this.bots.size
  }

  /** Ids of the bots whose money or status moved since the last drain. */
  drainDirty(): Array<string> {
    const out = [...this.dirty]
    this.dirty.clear()
    return out
  }

  // ---- commands (operations) ----
  // Each applies what the bot emitted before it returns. Trades reach bots only through `deliver`.

  sendTrader(id: string, command: Exclude<TraderCommand, { readonly type: "trades.seen" }>): void {
    const entry = this.bots.get(id)
    if (entry?.kind === "trader") this.command(id, () => entry.actor.send(command))
    this.flush()
  }

  sendSignal(id: string, command: Exclude<SignalCommand, { readonly type: "trades.matched" }>): void {
    const entry = this.bots.get(id)
    if (entry?.kind === "signal") this.command(id, () => entry.actor.send(command))
    this.flush()
  }

  sendMarket(id: string, command: MarketCommand): void {
    this.toMarketBot(id, command)
    this.flush()
  }

  /** Kind-independent commands: pause, resume, end, alerts. */
  sendCommon(id: string, command: { readonly type: "bot.pause" | "bot.resume" | "bot.end" } | { readonly type: "bot.alerts"; readonly alerts: boolean }): void {
    const entry = this.bots.get(id)
    if (entry !== undefined) this.command(id, () => sendCommonTo(entry, command))
    this.flush()
  }

  /**
   * A quoter of a contract's book now (read on first use), for a command from the API: the market as the
   * market actors have it now. Only an open market trades: on a closed one ("trading stopped", though its
   * last book is still kept), a settled or a void one nothing fills, for a bot as for a hand order.
   */
  quoterOf(ref: string): Quoter {
    return this.markets.status(ref) === "open" ? this.quoterOver(ref, () => this.markets.book(ref)) : NO_QUOTES
  }

  private quoterOver(ref: string, book: () => BookView | null): Quoter {
    const info = this.markets.info(ref)
    return info === null ? NO_QUOTES : bookQuoter(info, book, this.quotes)
  }

  /**
   * Whether an event will reach a bot that may fill on it: the market actors then stamp it with its book
   * (MarketRegistry.watchBooks). Trades while any signal bot runs (buys) or a trader bot follows the
   * trader; prices of the contracts (and series) market bots trade; every book change of the contracts
   * (and series) of market bots with `maxHoldHours`, whose sale comes with feed time, not with an event
   * of the contract (their book is kept in feed order: `books`).
   */
  wantsBook(event: BookedEvent): boolean {
    switch (event._tag) {
      case "PriceChanged": return this.marketBots.has(event.ref) || this.inSeries(this.followedSeries, event.ref)
      case "BookChanged": return this.keeps(event.ref)
      case "TradePrinted":
        if (event.action === "buy" && this.signals.size > 0) return true
        if (event.trader === null || this.byTrader.size === 0) return false
        return this.byTrader.has(`${event.ref.slice(0, event.ref.indexOf(":"))}:${event.trader.id}`)
    }
  }

  /** Whether `ref` belongs to one of `series` (by its listing). */
  private inSeries(series: Map<string, number>, ref: string): boolean {
    if (series.size === 0) return false
    const id = this.markets.info(ref)?.series
    return id !== undefined && id !== null && series.has(id)
  }

  /** Whether the registry keeps `ref`'s book in feed order. */
  private keeps(ref: string): boolean {
    return this.timedRefs.has(ref) || this.inSeries(this.timedSeries, ref)
  }

  /** An event's book, kept when the registry keeps the contract's book in feed order (and it still trades). */
  private keep(ref: string, book: BookView | undefined): void {
    if (book !== undefined && this.tradable.has(ref) && this.keeps(ref)) this.books.set(ref, book)
  }

  /** One command to one bot, now, then its indexes follow; what it emits waits in the outbox. */
  private command(id: string, send: () => void): void {
    if (this.catching !== null && this.saw(id)) return
    this.counters.sends++
    const outer = this.sending
    this.sending = ++this.ord
    send()
    this.sending = outer
    this.afterSend(id)
  }

  private toMarketBot(id: string, command: MarketCommand): void {
    const entry = this.bots.get(id)
    if (entry?.kind === "market") this.command(id, () => entry.actor.send(command))
  }

  /**
   * The quoter of `ref` at an event: over the book the event carried, else over the current book (one
   * book read per contract per delivery). Whether the market is open is taken in feed order (`tradable`),
   * at the event: the market actors may already have applied a close that comes later in the feed, and a
   * trade or price before it still fills.
   */
  private quoterNow(ref: string, carried?: BookView): Quoter {
    if (!this.tradable.has(ref)) return NO_QUOTES
    let quoter: Quoter | undefined
    if (carried !== undefined) {
      quoter = this.carried.get(carried)
      if (quoter === undefined) this.carried.set(carried, (quoter = this.quoterOver(ref, () => carried)))
    } else {
      quoter = this.quoters.get(ref)
      if (quoter === undefined) this.quoters.set(ref, (quoter = this.quoterOver(ref, () => this.markets.book(ref))))
    }
    return quoter
  }

  // ---- feed ----

  /**
   * A chunk of live events in feed order (MarketBus and IntelBus events, mixed or not). Bots end exactly
   * as if each event had been delivered alone; trader and signal bots get their trades as one command.
   */
  deliver(events: Iterable<Delivered>): void {
    for (const event of events) {
      if (isIntel(event)) this.routeIntel(event)
      else this.routeMarket(event)
    }
    this.flush()
  }

  /**
   * Events of this node's recent feed (src/intel/recent-feed.ts) that came while no node ran these bots,
   * after `restore` and before any live event: those of a venue newer than `floor` (the feed the previous
   * holder's last stored flush had delivered, then every bot as it was stored), each bot given only those
   * newer than its own marks too (a bot stored later than that flush, by an operation, has seen more; a
   * bot restored without marks, only `floor`). Routed as live ones, over the books of now (a follower's
   * feed carries none). Returns how many were routed. In steps: `startCatchUp`, `catchUpSome` over
   * consecutive runs of what it returned (the caller may let other work in between), `endCatchUp`.
   */
  catchUp(events: Iterable<OrderedEvent>, floor: FeedMarks, marks: ReadonlyMap<string, FeedMarks>): number {
    const routed = this.catchUpSome(this.startCatchUp(events, floor), marks)
    this.endCatchUp()
    return routed
  }

  /** The events to replay, oldest first; the markets that traded at the first of them become `tradable`. */
  startCatchUp(events: Iterable<OrderedEvent>, floor: FeedMarks): Array<RecentEvent> {
    const replayed = [...events].filter((event): event is RecentEvent => actedOn(event) && isAfter(event, floor))
    // The open ones (as at construction), less those listed since, plus those closed, settled or voided since.
    const seen = new Set<string>()
    for (const event of replayed) {
      const ref = event._tag === "MarketOpened" ? event.market.ref : event._tag === "MarketClosed" || event._tag === "MarketSettled" || event._tag === "MarketVoided" ? event.ref : null
      if (ref === null || seen.has(ref)) continue
      seen.add(ref)
      if (event._tag === "MarketOpened") this.tradable.delete(ref)
      else this.tradable.add(ref)
    }
    return replayed
  }

  /** Routes the next run of `startCatchUp`'s events (each bot only those newer than its `marks`). */
  catchUpSome(replayed: Iterable<RecentEvent>, marks: ReadonlyMap<string, FeedMarks>): number {
    let routed = 0
    this.catching = marks
    try {
      for (const event of replayed) {
        this.atVenue = venueOf(event)
        this.atTs = timeOf(event)
        if (event._tag === "TradeRecorded") this.routeIntel(event)
        else this.routeMarket(event)
        routed++
      }
      this.flush()
    } finally {
      this.catching = null
    }
    return routed
  }

  /** After the last run: the prices replayed are older than the market actors' own, so theirs again. */
  endCatchUp(): void {
    for (const ref of this.tradable) {
      const price = this.markets.yesPrice(ref)
      if (price !== null) this.prices.set(ref, price)
    }
  }

  /** During `catchUp`: whether the bot's stored snapshot already saw the event being routed. */
  private saw(id: string): boolean {
    const marks = this.catching?.get(id)
    return marks !== undefined && this.atTs <= (marks[this.atVenue] ?? Number.NEGATIVE_INFINITY)
  }

  deliverIntel(event: IntelEvent): void {
    this.deliver([event])
  }

  deliverMarket(event: MarketEvent): void {
    this.deliver([event])
  }

  /** Sends every bot its gathered trades, then applies the outbox in command order. */
  private flush(): void {
    if (this.pending.size > 0) {
      const batches = [...this.pending.values()]
      this.pending.clear()
      for (const p of batches) {
        this.counters.sends++
        const { entry, trades, quoters, ords } = p
        if (entry.kind === "trader") entry.actor.send({ type: "trades.seen", trades, quoters, ords, out: this.out })
        else if (entry.kind === "signal") entry.actor.send({ type: "trades.matched", trades, quoters, ords, out: this.out })
      }
    }
    this.quoters.clear()
    this.carried.clear()
    if (this.outbox.length === 0) return
    const out = this.outbox
    this.outbox = []
    // Stable: one command's events keep their order.
    out.sort((a, b) => a.ord - b.ord)
    for (const { event } of out) this.apply(event)
  }

  private gather(id: string, entry: BotEntry, trade: SourceTrade, quoter: Quoter): void {
    if (this.catching !== null && this.saw(id)) return
    this.counters.routed++
    let p = this.pending.get(id)
    if (p === undefined) this.pending.set(id, (p = { entry, trades: [], quoters: [], ords: [] }))
    p.trades.push(trade)
    p.quoters.push(quoter)
    p.ords.push(++this.ord)
  }

  private routeIntel(event: IntelEvent): void {
    if (event._tag !== "TradeRecorded") return
    this.counters.intelEvents++
    const t = event.trade
    this.reach(t.venue, t.time)
    this.clock(t.time)
    let source: SourceTrade | undefined
    let quoter: Quoter | undefined
    const sourceOf = (): SourceTrade => (source ??= this.sourceOf(t))
    this.keep(t.contract, event.book)
    const quoterOf = (): Quoter => (quoter ??= this.quoterNow(t.contract, event.book))
    if (t.trader !== null) {
      for (const id of this.byTrader.get(t.trader) ?? []) {
        const entry = this.bots.get(id)
        if (entry?.kind === "trader") this.gather(id, entry, sourceOf(), quoterOf())
      }
    }
    const hits = this.hits
    clear(hits)
    this.counters.signalTests += this.signals.match(t, hits)
    for (const id of hits) {
      const entry = this.bots.get(id)
      if (entry?.kind === "signal") this.gather(id, entry, sourceOf(), quoterOf())
    }
  }

  private routeMarket(event: MarketEvent): void {
    this.counters.marketEvents++
    this.reach(venueOf(event), event.ts)
    this.clock(event.ts)
    switch (event._tag) {
      case "BookChanged":
        this.keep(event.ref, event.book)
        return
      case "PriceChanged": {
        if (this.tradable.has(event.ref)) this.prices.set(event.ref, event.yesPrice)
        this.keep(event.ref, event.book)
        const bots = this.marketBots.get(event.ref)
        if (bots === undefined) return
        const quoter = this.quoterNow(event.ref, event.book)
        for (const id of [...bots]) this.toMarketBot(id, { type: "market.price", ts: event.ts, yesPrice: event.yesPrice, quoter })
        return
      }
      case "MarketClosed":
        this.ended(event.ref)
        return
      case "MarketSettled":
      case "MarketVoided": {
        // Trades gathered so far happened before the settlement: they reach their bots first.
        this.flush()
        this.ended(event.ref)
        const winner = event._tag === "MarketSettled" ? event.winner.name : null
        const ids = new Set([...(this.holders.get(event.ref) ?? []), ...(this.marketBots.get(event.ref) ?? [])])
        this.holders.delete(event.ref)
        this.prices.delete(event.ref)
        this.books.delete(event.ref)
        this.quotes.forget(event.ref)
        for (const id of ids) {
          const entry = this.bots.get(id)
          if (entry === undefined) continue
          this.command(id, () => sendCommonTo(entry, { type: "market.settled", contract: event.ref, winner, ts: event.ts }))
        }
        return
      }
      case "MarketOpened": {
        this.tradable.add(event.market.ref)
        const series = event.market.series
        if (series === null) return
        for (const id of [...this.marketIds]) {
          const entry = this.bots.get(id)
          if (entry?.kind === "market" && this.seeking(entry.actor) && entry.actor.getSnapshot().context.settings.seriesId === series) {
            this.offerNext(id, entry.actor)
          }
        }
        return
      }
      default:
        return
    }
  }

  /** Trading on `ref` stopped at this point of the feed: later events find nothing to fill against. */
  private ended(ref: string): void {
    this.tradable.delete(ref)
    this.prices.delete(ref)
  }

  /** The venue's feed has been delivered as far as `ts` (`through`). */
  private reach(venue: string, ts: number): void {
    if (!(ts <= (this.delivered.get(venue) ?? Number.NEGATIVE_INFINITY))) this.delivered.set(venue, ts)
  }

  /** Feed time moves; once a feed minute, market bots holding past their maxHoldHours are told. */
  private clock(ts: number): void {
    if (!(ts > this.now)) return
    this.now = ts
    const minute = Math.floor(ts / 60_000)
    if (minute === this.minute) return
    this.minute = minute
    for (const id of [...this.timed]) {
      const entry = this.bots.get(id)
      if (entry?.kind !== "market") continue
      const snapshot = entry.actor.getSnapshot()
      if (!snapshot.matches({ running: "holding" })) continue
      const ctx = snapshot.context
      const open = ctx.trades.find((t) => t.status === "open" && t.market.contract === ctx.settings.market.contract)
      const due = open === undefined ? null : holdDeadline(ctx.settings.rule, open.openedAt)
      if (due === null || due > ts) continue
      const ref = ctx.settings.market.contract
      // The book as of this point of the feed; none yet (just asked for, `index`): nothing fills, tried again next minute.
      const book = this.books.get(ref)
      this.toMarketBot(id, { type: "clock.tick", ts, yesPrice: this.prices.get(ref) ?? null, quoter: book === undefined ? NO_QUOTES : this.quoterNow(ref, book) })
    }
  }

  private sourceOf(t: StoredTrade): SourceTrade {
    const info = this.markets.info(t.contract)
    const side: 0 | 1 = info !== null && info.sides[1].name === t.outcome ? 1 : 0
    return {
      market: { ref: t.market, contract: t.contract, title: t.title, venue: t.venue },
      side, outcome: t.outcome, action: t.action, usd: t.usd, time: t.time,
    }
  }

  // ---- emitted ----

  private emitted(event: BotEmitted): void {
    this.outbox.push({ ord: event.type === "bot.traded" && event.ord !== undefined ? event.ord : this.sending, event })
  }

  private apply(event: BotEmitted): void {
    this.dirty.add(event.botId)
    if (event.type !== "bot.traded") return
    this.counters.fills++
    if (event.action === "buy") addTo(this.holders, event.market.contract, event.botId)
    if (event.kind !== "market") this.onTraded(event)
  }

  // ---- indexes ----

  private seeking(actor: MarketActor): boolean {
    return actor.getSnapshot().matches({ running: "seeking" })
  }

  /** After any command: keep indexes in step with the bot's settings and state. */
  private afterSend(id: string): void {
    this.reindex(id)
    const entry = this.bots.get(id)
    if (entry?.kind === "market" && this.seeking(entry.actor)) this.offerNext(id, entry.actor)
  }

  /** The next open market of the series listed after the bot's current one, when there is one. */
  private offerNext(id: string, actor: MarketActor): void {
    const ctx = actor.getSnapshot().context
    const series = ctx.settings.seriesId
    if (series === null) return
    let next: MarketInfo | null = null
    for (const ref of this.tradable) {
      const info = this.markets.info(ref)
      if (info === null || info.series !== series || info.event !== null || ref === ctx.settings.market.contract) continue
      if (info.listedAt <= ctx.listedAt) continue
      if (next === null || info.listedAt < next.listedAt || (info.listedAt === next.listedAt && info.ref < next.ref)) next = info
    }
    if (next === null) return
    const ref = next.ref
    this.toMarketBot(id, {
      type: "series.next", market: { ref, contract: ref, title: next.title, venue: next.venue },
      sideName: next.sides[ctx.settings.side].name, listedAt: next.listedAt, ts: this.now,
      yesPrice: this.prices.get(ref) ?? null, quoter: this.quoterNow(ref, this.books.get(ref)),
    })
  }

  private index(id: string): void {
    const entry = this.bots.get(id)
    if (entry === undefined) return
    const snapshot = entry.actor.getSnapshot()
    const ctx = snapshot.context
    if (ctx.kind === "market") this.marketIds.add(id)
    if (statusOfValue(snapshot.value) === "ended") return
    const keys: Indexed = {}
    this.indexed.set(id, keys)
    switch (ctx.kind) {
      case "trader":
        addTo(this.byTrader, ctx.settings.trader.ref, id)
        keys.trader = ctx.settings.trader.ref
        return
      case "signal": {
        if (ctx.settings.signal !== null) this.signals.add(id, ctx.settings.signal)
        keys.signal = ctx.settings.signal !== null
        return
      }
      case "market": {
        const { market, seriesId, rule } = ctx.settings
        addTo(this.marketBots, market.contract, id)
        keys.market = market.contract
        keys.series = seriesId
        keys.timed = rule.maxHoldHours !== undefined
        count(this.followedSeries, seriesId, 1)
        if (keys.timed) {
          this.timed.add(id)
          // A contract newly kept whose book the feed has not brought yet: asked for, in feed order (until it
          // comes, a sale by time waits: `clock`).
          if (count(this.timedRefs, market.contract, 1) === 1 && !this.books.has(market.contract)) this.markets.requestBook?.(market.contract)
          count(this.timedSeries, seriesId, 1)
        }
        return
      }
    }
  }

  /** Indexes the bot anew after a command: what stays the same is never let go of on the way. */
  private reindex(id: string): void {
    const old = this.indexed.get(id)
    this.indexed.delete(id)
    this.index(id)
    if (old !== undefined) this.letGo(id, old, this.indexed.get(id))
  }

  private unindex(id: string): void {
    const keys = this.indexed.get(id)
    if (keys === undefined) return
    this.indexed.delete(id)
    this.letGo(id, keys, undefined)
  }

  /** Drops the index entries of `old` that `now` (the bot's current keys, if indexed) does not hold. */
  private letGo(id: string, old: Indexed, now: Indexed | undefined): void {
    if (now?.signal !== true) this.signals.remove(id)
    if (old.trader !== undefined && old.trader !== now?.trader) removeFrom(this.byTrader, old.trader, id)
    if (old.market !== undefined && old.market !== now?.market) removeFrom(this.marketBots, old.market, id)
    count(this.followedSeries, old.series ?? null, -1)
    if (old.timed === true) {
      const refGone = old.market !== undefined && count(this.timedRefs, old.market, -1) === 0
      const seriesGone = old.series !== undefined && old.series !== null && count(this.timedSeries, old.series, -1) === 0
      // Books no timed bot keeps any more would go stale: forgotten (asked for again when needed).
      if (refGone || seriesGone) for (const ref of [...this.books.keys()]) if (!this.keeps(ref)) this.books.delete(ref)
    }
    if (now?.timed !== true) this.timed.delete(id)
  }
}

export const botStatusOf = statusOfValue
