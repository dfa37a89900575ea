// The feed bus: decoded FeedEvents from every venue, one published batch per frame. An Effect PubSub, so
// any number of consumers (market actors, recorders) subscribe without the feed client knowing them;
// publishing never blocks the socket (a consumer that falls far behind loses the oldest batches and is
// expected to resync from snapshots, as after a reconnect).
import { Context, Effect, Layer, PubSub } from "effect"
import type { FeedEvent } from "../domain/feed-events.js"

export type FeedBatch = ReadonlyArray<FeedEvent>

export class FeedBus extends Context.Tag("whalewatch/FeedBus")<FeedBus, PubSub.PubSub<FeedBatch>>() {
  /** Room for bursts (book dumps on reconnect) before the slowest subscriber starts losing batches. */
  static readonly capacity = 65_536

  static readonly layer = Layer.scoped(
    FeedBus,
    Effect.acquireRelease(PubSub.sliding<FeedBatch>(FeedBus.capacity), PubSub.shutdown),
  )

  /** A synchronous sink for the feed client: offers without waiting. */
  static readonly sink = Effect.map(FeedBus, (bus) => (events: FeedBatch): void => {
    bus.unsafeOffer(events)
  })
}
