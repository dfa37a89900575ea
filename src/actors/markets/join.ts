// The venue_b attribution join. venue_b's market channel prints trades without a trader; its separate
// trades feed names the wallet behind each transaction (TradeAttributed, same txId). Whichever of the
// two arrives first waits up to `windowMs` of FEED time for the other:
//   print + attribution       → one TradePrinted carrying the trader (the print's time and id);
//   print alone, window over  → the print as is (trader null);
//   attribution alone, over   → a trade made from the attribution (the print was lost, or a history
//                               backfill that only has attributions), id `<txId>:<outcome>:<price>:<size>`
//                               like the decoder's print ids.
// Pure and deterministic: `now` is the caller's feed time (receive times), never a timer; waiting items
// leave only through `flush(now)`, in arrival order. A trade is keyed by txId, outcome, price and size;
// once emitted its key is remembered for `rememberMs`, so a late partner or a redelivered duplicate
// (trades feed reconnect) is dropped and counted rather than printed twice.
import type { TradeAttributed, TradePrinted } from "../../domain/feed-events.js"
import { round6 } from "../../numbers.js"

export interface JoinOptions {
  readonly windowMs: number
  readonly rememberMs: number
}

const NOTHING_DUE: ReadonlyArray<TradePrinted> = Object.freeze([])

export const DEFAULT_JOIN: JoinOptions = { windowMs: 10_000, rememberMs: 600_000 }

export interface JoinCounters {
  joined: number
  printsAlone: number
  attributionsAlone: number
  /** Prints or attributions whose trade was already emitted (late partner or duplicate). */
  duplicates: number
}

interface Waiting {
  readonly key: string
  print: TradePrinted | null
  attribution: TradeAttributed | null
  /** Feed time the window ends; null once emitted. */
  due: number | null
  forgetAt: number
}

const keyOf = (txId: string, outcome: string, price: number, contracts: number): string =>
  `${txId}|${outcome}|${round6(price)}|${round6(contracts)}`

/** True for a print the join must hold: venue_b, no trader on it, a transaction to join on. */
export const needsAttribution = (print: TradePrinted): boolean =>
  print.venue === "venue_b" && print.trader === null && print.txId !== null

const joined = (print: TradePrinted, attribution: TradeAttributed): TradePrinted => ({ ...print, trader: attribution.trader })

/** A trade made from an attribution whose print never came. */
export const tradeOfAttribution = (a: TradeAttributed): TradePrinted => ({
  _tag: "TradePrinted",
  venue: a.venue,
  ts: a.ts,
  receivedAt: a.receivedAt,
  contract: a.contract,
  tradeId: `${a.txId}:${a.outcome}:${String(a.price)}:${String(a.contracts)}`,
  outcome: a.outcome,
  action: a.action,
  price: a.price,
  contracts: a.contracts,
  trader: a.trader,
  txId: a.txId,
})

export class TradeJoin {
  private readonly byKey = new Map<string, Waiting>()
  /** Waiting items in arrival order; their due times ascend because `now` never goes back. */
  private readonly dueQueue: Array<Waiting> = []
  private dueHead = 0
  /** Emitted items in emission order (ascending forgetAt). */
  private readonly forgetQueue: Array<Waiting> = []
  private forgetHead = 0
  readonly counters: JoinCounters = { joined: 0, printsAlone: 0, attributionsAlone: 0, duplicates: 0 }

  constructor(private readonly options: JoinOptions = DEFAULT_JOIN) {}

  /** A print needing its trader: the joined trade if its attribution waits, else null (held or dropped). */
  print(print: TradePrinted, now: number): TradePrinted | null {
    const key = keyOf(print.txId ?? "", print.outcome, print.price, print.contracts)
    const w = this.byKey.get(key)
    if (w === undefined) {
      this.wait({ key, print, attribution: null, due: now + this.options.windowMs, forgetAt: 0 })
      return null
    }
    if (w.due === null || w.print !== null || w.attribution === null) {
      this.counters.duplicates++
      return null
    }
    const trade = joined(print, w.attribution)
    this.done(w, now)
    this.counters.joined++
    return trade
  }

  /** An attribution: the joined trade if its print waits, else null (held or dropped). */
  attribution(attribution: TradeAttributed, now: number): TradePrinted | null {
    const key = keyOf(attribution.txId, attribution.outcome, attribution.price, attribution.contracts)
    const w = this.byKey.get(key)
    if (w === undefined) {
      this.wait({ key, print: null, attribution, due: now + this.options.windowMs, forgetAt: 0 })
      return null
    }
    if (w.due === null || w.attribution !== null || w.print === null) {
      this.counters.duplicates++
      return null
    }
    const trade = joined(w.print, attribution)
    this.done(w, now)
    this.counters.joined++
    return trade
  }

  /** Whether an item waits alone whose window has ended by `now` (what `flush(now)` would release). Cheap: the queue's head. */
  dueBy(now: number): boolean {
    let w = this.dueQueue[this.dueHead]
    // Items joined meanwhile are skipped here as `flush` skips them.
    while (w !== undefined && w.due === null) w = this.dueQueue[++this.dueHead]
    return w !== undefined && w.due !== null && w.due <= now
  }

  /** Items whose window ended by `now`, alone, in arrival order; forgets old keys. */
  flush(now: number): ReadonlyArray<TradePrinted> {
    // The registry calls this after every feed batch: most calls have nothing to do, and allocate nothing.
    if (!this.dueBy(now) && !this.forgetDue(now)) return NOTHING_DUE
    const out: Array<TradePrinted> = []
    while (this.dueHead < this.dueQueue.length) {
      const w = this.dueQueue[this.dueHead]
      if (w === undefined || (w.due !== null && w.due > now)) break
      this.dueHead++
      if (w.due === null) continue // joined meanwhile
      if (w.print !== null) {
        out.push(w.print)
        this.counters.printsAlone++
      } else if (w.attribution !== null) {
        out.push(tradeOfAttribution(w.attribution))
        this.counters.attributionsAlone++
      }
      this.done(w, now)
    }
    this.compact()
    while (this.forgetHead < this.forgetQueue.length) {
      const w = this.forgetQueue[this.forgetHead]
      if (w === undefined || w.forgetAt > now) break
      this.forgetHead++
      if (this.byKey.get(w.key) === w) this.byKey.delete(w.key)
    }
    return out
  }

  private forgetDue(now: number): boolean {
    const w = this.forgetQueue[this.forgetHead]
    return w !== undefined && w.forgetAt <= now
  }

  /** Items still waiting for a partner. */
  get waiting(): number {
    let n = 0
    for (let i = this.dueHead; i < this.dueQueue.length; i++) if (this.dueQueue[i]?.due !== null) n++
    return n
  }

  private wait(w: Waiting): void {
    this.byKey.set(w.key, w)
    this.dueQueue.push(w)
  }

  private done(w: Waiting, now: number): void {
    w.due = null
    w.print = null
    w.attribution = null
    w.forgetAt = now + this.options.rememberMs
    this.forgetQueue.push(w)
  }

  /** Drops consumed queue heads now and then, so the queues do not grow for ever. */
  private compact(): void {
    if (this.dueHead > 1_024 && this.dueHead * 2 > this.dueQueue.length) {
      this.dueQueue.splice(0, this.dueHead)
      this.dueHead = 0
    }
    if (this.forgetHead > 1_024 && this.forgetHead * 2 > this.forgetQueue.length) {
      this.forgetQueue.splice(0, this.forgetHead)
      this.forgetHead = 0
    }
  }
}
