// The recent feed: the last minutes of the OrderedFeed's trades and market events, kept on every node where
// nodes share a paper lease, so a node that takes the lease over can give the bots it restores what the feed
// brought while no node ran them (the holder dying, or handing over): bots-live.ts `catchUp`. Appended by
// the publisher in the same step as it publishes (intel/live.ts), so a follower that subscribes and then
// reads `snapshot()` misses nothing: what came before its subscription is here, what came after is in its
// subscription, and the overlap is the same events (the same objects) in the same order (`overlap`).
// Kept by feed time (`windowMs` behind the newest event) and by count (`cap`); off on the embedded store,
// where there is one node and a restart starts with an empty feed anyway.
import { Context, Layer } from "effect"
import type { MarketEvent } from "../domain/market-events.js"
import type { OrderedEvent } from "./intel-bus.js"

/** What the bots act on: live trades, and market events (prices, lifecycle, books carried in order). */
export type RecentEvent = MarketEvent | Extract<OrderedEvent, { readonly _tag: "TradeRecorded" }>

/** Whether bots act on an OrderedFeed event (settled trades and moves they do not). */
export const actedOn = (event: OrderedEvent): event is RecentEvent => event._tag !== "TradeSettled" && event._tag !== "MoveRecorded"

/** Feed time of an event. */
export const timeOf = (event: RecentEvent): number => (event._tag === "TradeRecorded" ? event.trade.time : event.ts)

/** The venue an event comes from (a ref is `<venue>:…`). */
export const venueOf = (event: RecentEvent): string => {
  if (event._tag === "TradeRecorded") return event.trade.venue
  const ref = event._tag === "MarketOpened" ? event.market.ref : event.ref
  return ref.slice(0, ref.indexOf(":"))
}

export class RecentFeedBuffer {
  /** Every OrderedFeed event, as published (a follower's subscription holds them all: `overlap`)… */
  private events: Array<OrderedEvent> = []
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
    const ts = actedOn(event) ? timeOf(event) : this.newest
    if (ts > this.newest) this.newest = ts
    if (this.from === Number.POSITIVE_INFINITY && actedOn(event)) this.from = ts
    this.events.push(event)
    this.times.push(ts)
    const oldest = this.newest - this.windowMs
    while (this.size > this.cap || (this.size > 1 && this.times[this.head]! < oldest)) {
      if (this.times[this.head]! > this.from) this.from = this.times[this.head]!
      this.head++
    }
    if (this.head >= 4_096 && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head)
      this.times = this.times.slice(this.head)
      this.head = 0
    }
  }

  /** What is kept, oldest first (a copy). */
  snapshot(): Array<OrderedEvent> {
    return this.events.slice(this.head)
  }
}

/**
 * How many events at the end of `snapshot` a subscription taken before it also holds: the place of its
 * first event, `first`, in the snapshot, searched from the end (the overlap is short); 0 when absent.
 */
export const overlap = (snapshot: ReadonlyArray<unknown>, first: unknown): number => {
  for (let i = snapshot.length - 1; i >= 0; i--) if (snapshot[i] === first) return snapshot.length - i
  return 0
}

export class RecentFeed extends Context.Tag("whalewatch/RecentFeed")<RecentFeed, RecentFeedBuffer>() {
  /** Kept `windowMs` of feed time, at most `cap` events (100,000 by default). */
  static readonly layer = (windowMs: number, cap = 100_000) => Layer.sync(RecentFeed, () => new RecentFeedBuffer(windowMs, cap))
  static readonly off = Layer.sync(RecentFeed, () => new RecentFeedBuffer(0, 0))
}
