// Fan-out of intelligence events to this node's stream connections. It follows the IntelBus; with
// REDIS_URL set it also publishes each event it sees on a Redis channel and subscribes to it, so every
// node's connections get every frame whichever node recorded it. Events are de-duplicated by key
// (the node's own echo, and the same trade recorded by several ingesting nodes). Delivery is a
// synchronous call per subscriber: a subscriber must not block (the SSE door writes to its socket
// buffer and drops a connection whose buffer overflows). It holds no filters and no frame format:
// subscribers decide (operations/stream.ts).
import { randomBytes } from "node:crypto"
import { Context, Effect, Layer, Option, PubSub, Queue, type Scheduler, type Scope } from "effect"
import type { ConfigError } from "effect/ConfigError"
import { AppConfig } from "../config.js"
import { IntelBus, type IntelEvent } from "../intel/intel-bus.js"
import { StreamEvent } from "../operations/stream.js"
import { Redis } from "../store/redis.js"

export interface FanoutSubscriber {
  readonly deliver: (event: StreamEvent) => void
  /**
   * When set, the subscriber wants only events on these market refs (event, market or contract ref):
   * it is indexed by them and never called for other events.
   */
  readonly markets?: ReadonlySet<string> | undefined
}

export interface FanoutService {
  /** Adds a subscriber for the scope's life. */
  readonly subscribe: (subscriber: FanoutSubscriber) => Effect.Effect<void, never, Scope.Scope>
  /** Connections currently subscribed on this node. */
  readonly size: () => number
}

/**
 * The channel of a deployment on Redis database `db`. Pub/sub ignores the database number, so the channel
 * names it: deployments that keep their counters apart by database keep their events apart too.
 */
export const fanoutChannel = (db: number): string => `ww:${db}:intel-events`

/** How many recent event keys are remembered for de-duplication. */
const SEEN = 65_536

interface Entry {
  readonly subscriber: FanoutSubscriber
  /** The last dispatch that called it (an event may name it under two refs). */
  last: number
}

class Dispatcher {
  /** Subscribers without a market filter: called for every event. */
  readonly #everything = new Set<Entry>()
  /** Subscribers with a market filter, by each ref they want. */
  readonly #byMarket = new Map<string, Set<Entry>>()
  readonly #entries = new Map<FanoutSubscriber, Entry>()
  readonly #seen = new Set<string>()
  readonly #order: Array<string> = []
  #head = 0
  #dispatches = 0

  get size(): number {
    return this.#entries.size
  }

  add(subscriber: FanoutSubscriber): void {
    const entry: Entry = { subscriber, last: -1 }
    this.#entries.set(subscriber, entry)
    if (subscriber.markets === undefined) return void this.#everything.add(entry)
    for (const ref of subscriber.markets) {
      const set = this.#byMarket.get(ref) ?? new Set<Entry>()
      set.add(entry)
      this.#byMarket.set(ref, set)
    }
  }

  remove(subscriber: FanoutSubscriber): void {
    const entry = this.#entries.get(subscriber)
    if (entry === undefined) return
    this.#entries.delete(subscriber)
    this.#everything.delete(entry)
    for (const ref of subscriber.markets ?? []) {
      const set = this.#byMarket.get(ref)
      set?.delete(entry)
      if (set?.size === 0) this.#byMarket.delete(ref)
    }
  }

  /** False when the event was dispatched already. */
  dispatch(event: StreamEvent): boolean {
    const key = event.key
    if (this.#seen.has(key)) return false
    this.#seen.add(key)
    if (this.#order.length < SEEN) this.#order.push(key)
    else {
      this.#seen.delete(this.#order[this.#head] as string)
      this.#order[this.#head] = key
      this.#head = (this.#head + 1) % SEEN
    }
    const n = ++this.#dispatches
    for (const entry of this.#everything) deliver(entry, event)
    for (const ref of event.markets) {
      if (ref === null) continue
      const set = this.#byMarket.get(ref)
      if (set === undefined) continue
      for (const entry of set) {
        if (entry.last === n) continue
        entry.last = n
        deliver(entry, event)
      }
    }
    return true
  }
}

const deliver = (entry: Entry, event: StreamEvent): void => {
  try {
    entry.subscriber.deliver(event)
  } catch {
    // A subscriber's failure is its own connection's problem (the door closes it).
  }
}

/**
 * The dispatch fiber's scheduler: it runs the fiber's work at once, on the publisher's stack, so an event
 * offered on the IntelBus (IntelLive uses `unsafeOffer`) is written to the connections before the offer
 * returns. Through the default scheduler the dispatch waited behind every other fiber's microtasks
 * (~0.3 ms at the median with 1,000 streams open). It never yields: the fiber runs only while the
 * subscription holds events, and nothing can add more while it runs (one thread).
 */
const immediate: Scheduler.Scheduler = {
  scheduleTask: (task) => task(),
  shouldYield: () => false,
}

interface Wire {
  readonly node: string
  readonly event: IntelEvent
}

const make = (publish: ((event: IntelEvent) => void) | undefined, dispatcher: Dispatcher) =>
  Effect.gen(function* () {
    const events = yield* PubSub.subscribe(yield* IntelBus)
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) =>
      Effect.sync(() => {
        for (const event of chunk) {
          if (dispatcher.dispatch(new StreamEvent(event))) publish?.(event)
        }
      }))).pipe(Effect.withScheduler(immediate)))
    const service: FanoutService = {
      subscribe: (subscriber) =>
        Effect.acquireRelease(
          Effect.sync(() => dispatcher.add(subscriber)),
          () => Effect.sync(() => dispatcher.remove(subscriber)),
        ),
      size: () => dispatcher.size,
    }
    return service
  })

export class Fanout extends Context.Tag("whalewatch/sse/Fanout")<Fanout, FanoutService>() {
  /** One node: the IntelBus only. */
  static readonly local: Layer.Layer<Fanout, never, IntelBus> = Layer.scoped(Fanout, Effect.suspend(() => make(undefined, new Dispatcher())))

  /**
   * Several nodes on one Redis: events this node sees are published on `channel`, and events other
   * nodes publish are dispatched here. A second connection (a duplicate of Redis) subscribes.
   */
  static readonly redis = (options: { readonly channel?: string } = {}): Layer.Layer<Fanout, never, IntelBus | Redis> =>
    Layer.scoped(
      Fanout,
      Effect.gen(function* () {
        const client = yield* Redis
        const channel = options.channel ?? fanoutChannel(client.options.db ?? 0)
        const node = randomBytes(8).toString("hex")
        const dispatcher = new Dispatcher()
        const subscriber = yield* Effect.acquireRelease(
          Effect.tryPromise(async () => {
            const sub = client.duplicate()
            // Reconnects are ioredis's business; an error event must not go unhandled.
            sub.on("error", () => undefined)
            sub.on("message", (from: string, text: string) => {
              if (from !== channel) return
              let wire: Wire
              try {
                wire = JSON.parse(text) as Wire
              } catch {
                return
              }
              if (wire.node !== node) dispatcher.dispatch(new StreamEvent(wire.event))
            })
            await sub.subscribe(channel)
            return sub
          }).pipe(Effect.orDie),
          (sub) => Effect.promise(() => sub.quit().catch(() => "closed")),
        )
        void subscriber
        const publish = (event: IntelEvent) => {
          const wire: Wire = { node, event }
          client.publish(channel, JSON.stringify(wire)).catch(() => 0)
        }
        return yield* make(publish, dispatcher)
      }),
    )

  /** Redis when AppConfig.redisUrl is set (its own connections), else local. */
  static readonly live: Layer.Layer<Fanout, ConfigError, IntelBus> = Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      Option.match(config.redisUrl, {
        onNone: () => Fanout.local,
        onSome: (url) => Fanout.redis().pipe(Layer.provide(Redis.layer(url))),
      })),
  )
}
