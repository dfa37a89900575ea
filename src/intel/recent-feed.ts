// The recent feed: the last minutes of the OrderedFeed's trades and market events, kept on every node where
// nodes share a paper lease, so a node that takes the lease over can give the bots, exit rules and market
// alerts it restores what the feed brought while no node ran them (the holder dying, or handing over), from
// the bots' stored feed mark (`Replay`; bots-live.ts `catchUp`, exit-rules.ts, market-alerts.ts). Appended by
// the publisher in the same step as it publishes (intel/live.ts), so a follower that subscribes and then
// reads `snapshot()` misses nothing: what came before its subscription is here, what came after is in its
// subscription, and the overlap is the same events in the same order, told by each published event's place
// (`placeOf`, weakly held). Events are kept without the books the market actors stamp on some of them for
// the holder's bots (copies of the whole book, which the replay does not use: a follower's events carry
// none), so a minute of them holds no book copies out of the young generation.
// Kept by feed time (`windowMs` behind the newest event) and by count (`cap`); off on the embedded store,
// where there is one node and a restart starts with an empty feed anyway.
import { Chunk, Context, Effect, Layer } from "effect"
import type { MarketEvent } from "../domain/market-events.js"
import { FeedMark } from "../store/feed-marks.js"
import type { OrderedEvent } from "./intel-bus.js"

/** What the bots act on: live trades, and market events (prices, lifecycle, books carried in order). */
export type RecentEvent = MarketEvent | Extract<OrderedEvent, { readonly _tag: "TradeRecorded" }>

/** Whether bots act on an OrderedFeed event (settled trades and moves they do not). */
export const actedOn = (event: OrderedEvent): event is RecentEvent => event._tag !== "TradeSettled" && event._tag !== "MoveRecorded"

/** Feed time of an event. */
export const timeOf = (event: RecentEvent): number => (event._tag === "TradeRecorded" ? event.trade.time : event.ts)

/** The venue of a market ref (`<venue>:…`). */
export const venueOfRef = (ref: string): string => ref.slice(0, ref.indexOf(":"))

/** The venue an event comes from. */
export const venueOf = (event: RecentEvent): string =>
  event._tag === "TradeRecorded" ? event.trade.venue : venueOfRef(event._tag === "MarketOpened" ? event.market.ref : event.ref)

/** Whether an event came after the feed `marks` say was delivered (of its venue). */
export const isAfter = (event: RecentEvent, marks: FeedMarks): boolean => timeOf(event) > (marks[venueOf(event)] ?? Number.NEGATIVE_INFINITY)

/** An event without the book stamped on it (the same object when it carries none). */
const withoutBook = (event: OrderedEvent): OrderedEvent => {
  if (!("book" in event) || event.book === undefined) return event
  const { book: _book, ...rest } = event
  return rest as OrderedEvent
}

export class RecentFeedBuffer {
  /** Every OrderedFeed event, as published but without its book… */
  private events: Array<OrderedEvent> = []
  /** …the place of each published one in the feed (0, 1, …), held weakly… */
  private readonly places = new WeakMap<OrderedEvent, number>()
  /** …the place of `events[0]`, and of the next event published… */
  private base = 0
  private next = 0
  /** …and its feed time (those bots do not act on: the newest time so far). */
  private times: Array<number> = []
  private head = 0
  private newest = Number.NEGATIVE_INFINITY
  /** Feed time from which nothing published is missing: the first event's, then the newest one let go. */
  private from = Number.POSITIVE_INFINITY

  /** `windowMs` 0: kept off (push does nothing). */
  constructor(readonly windowMs: number, readonly cap: number) {}

  get enabled(): boolean {
    return this.windowMs > 0 && this.cap > 0
  }

  get size(): number {
    return this.events.length - this.head
  }

  /**
   * The feed time from which what is kept is whole (Infinity before any event): the first event's, or the
   * newest one let go. Older events than this (of any venue) may have been published and not kept.
   */
  wholeSince(): number {
    return this.from
  }

  /** An OrderedFeed event as it is published. */
  push(event: OrderedEvent): void {
    if (!this.enabled) return
    const acted = actedOn(event)
    const ts = acted ? timeOf(event) : this.newest
    if (ts > this.newest) this.newest = ts
    if (this.from === Number.POSITIVE_INFINITY && acted) this.from = ts
    this.places.set(event, this.next++)
    this.events.push(withoutBook(event))
    this.times.push(ts)
    const oldest = this.newest - this.windowMs
    while (this.size > this.cap || (this.size > 1 && this.times[this.head]! < oldest)) {
      if (this.times[this.head]! > this.from) this.from = this.times[this.head]!
      this.head++
    }
    if (this.head >= 4_096 && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head)
      this.times = this.times.slice(this.head)
      this.base += this.head
      this.head = 0
    }
  }

  /** What is kept, oldest first (a copy), and the place of the last of it (−1 when none). */
  snapshot(): { readonly events: Array<OrderedEvent>; readonly last: number } {
    return { events: this.events.slice(this.head), last: this.next - 1 }
  }

  /** The place of a published event (undefined when it was not pushed here). */
  placeOf(event: OrderedEvent): number | undefined {
    return this.places.get(event)
  }
}

/** How far the feed of each venue had been delivered (its newest feed time). */
export type FeedMarks = Readonly<Record<string, number>>

/**
 * A catch-up of one follower of the OrderedFeed, taken after it subscribed: `events`, what the recent feed
 * kept that it acts on, oldest first, to be handled before any live chunk; then each live chunk through
 * `live`, which takes off the head of the subscription what `events` already held (the same objects).
 */
export class Replay {
  readonly events: ReadonlyArray<RecentEvent>
  /** The place of the last event replayed, until the first live chunk says how much of it overlaps. */
  private last: number | null
  private skip = 0

  constructor(readonly recent: RecentFeedBuffer) {
    const snapshot = recent.snapshot()
    this.last = snapshot.events.length > 0 ? snapshot.last : null
    this.events = snapshot.events.filter(actedOn)
  }

  /** A live chunk less what the replay held of it. */
  live(chunk: Chunk.Chunk<OrderedEvent>): Chunk.Chunk<OrderedEvent> {
    if (this.last !== null) {
      // The subscription's first event and every one after it up to the replay's last are in both.
      const first = this.recent.placeOf(Chunk.unsafeHead(chunk))
      this.skip = first === undefined || first > this.last ? 0 : this.last - first + 1
      this.last = null
    }
    if (this.skip === 0) return chunk
    const n = Math.min(this.skip, chunk.length)
    this.skip -= n
    return Chunk.drop(chunk, n)
  }

  /** The events kept after `floor`, oldest first. */
  after(floor: FeedMarks): Array<RecentEvent> {
    return this.events.filter((event) => isAfter(event, floor))
  }

  /** The venues of `floor` the recent feed does not reach back to (it started, or let go, after them). */
  behind(floor: FeedMarks): Array<string> {
    const whole = this.recent.wholeSince()
    return Object.entries(floor).filter(([, ts]) => ts < whole).map(([venue]) => venue)
  }

  /** Logs, for `who`, what the recent feed could not give back after `floor`, when anything. */
  warnBehind(who: string, floor: FeedMarks): Effect.Effect<void> {
    const behind = this.behind(floor)
    if (behind.length === 0) return Effect.void
    // Nothing yet: this node's feed has just started (a restarted holder taking its lease back at once).
    const whole = this.recent.wholeSince()
    const kept = Number.isFinite(whole) ? `is whole from ${new Date(whole).toISOString()} only` : "holds nothing yet"
    return Effect.logWarning(`${who}: this node's recent feed ${kept}, after the last stored flush of the bots on ${behind.join(", ")}: what those venues sent since that flush is not replayed`)
  }
}

export class RecentFeed extends Context.Tag("whalewatch/RecentFeed")<RecentFeed, RecentFeedBuffer>() {
  /** Kept `windowMs` of feed time, at most `cap` events (100,000 by default). */
  static readonly layer = (windowMs: number, cap = 100_000) => Layer.sync(RecentFeed, () => new RecentFeedBuffer(windowMs, cap))
  static readonly off = Layer.sync(RecentFeed, () => new RecentFeedBuffer(0, 0))
}

/** A follower's catch-up when the recent feed is kept, subscribed before this is called; else null. */
export const replayOf = Effect.map(Effect.serviceOption(RecentFeed), (recent) =>
  recent._tag === "Some" && recent.value.enabled ? new Replay(recent.value) : null)

/**
 * A follower's catch-up from the bots' stored feed mark (src/store/feed-marks.ts), subscribed before this
 * is called: its replay, the mark, and the events kept after the mark; null when the recent feed is off or
 * no holder has stored a mark (the exit rules' and market alerts' watchers).
 */
export const replayFromMark = Effect.gen(function* () {
  const replay = yield* replayOf
  if (replay === null) return null
  const floor = yield* FeedMark.read
  return floor === null ? null : { replay, floor, missed: replay.after(floor) }
})
