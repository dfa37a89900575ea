// The market side of the actor system as Effect services: the MarketBus (a PubSub of the MarketEvents
// market actors emit, like the FeedBus of feed batches), the `Markets` service (the registry's reads:
// current snapshots, never waiting), and MarketsLive, which restores the registry from the store,
// feeds it every FeedBus batch, publishes what the actors emit, and persists listing and lifecycle
// changes and changed price bars in batches from its own fiber (every `flushEveryMs`, or sooner once
// `flushRows` are waiting; the rest on shutdown), pruning bars older than a week of feed time hourly.
// Actors never touch the database or the bus; this layer does.
import type { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, PubSub, Queue, Schedule } from "effect"
import type { MarketEvent, MarketInfo, MarketLifecycle, MarketRecord } from "../../domain/market-events.js"
import { MarketStore } from "../../store/markets.js"
import { BARS_KEPT_MS, PriceBarStore } from "../../store/price-bars.js"
import { FeedBus } from "../bus.js"
import type { Bar } from "./bars.js"
import { type BookView, type BookWanted, MarketRegistry, type RegistryStats, type RegistryOptions } from "./registry.js"

export class MarketBus extends Context.Tag("whalewatch/MarketBus")<MarketBus, PubSub.PubSub<MarketEvent>>() {
  /** Room for bursts (every listing on a reconnect) before the slowest subscriber starts losing events. */
  static readonly capacity = 65_536

  static readonly layer = Layer.scoped(
    MarketBus,
    Effect.acquireRelease(PubSub.sliding<MarketEvent>(MarketBus.capacity), PubSub.shutdown),
  )
}

/** Reads of live markets: each is the actor's current snapshot (or the retired record), synchronously. */
export interface MarketsService {
  readonly record: (ref: string) => MarketRecord | null
  readonly info: (ref: string) => MarketInfo | null
  readonly status: (ref: string) => MarketLifecycle | null
  readonly book: (ref: string, depth?: number) => BookView | null
  /** Yes price of the last trade. */
  readonly lastPrice: (ref: string) => number | null
  /** Current Yes price (last trade; before any, the ticker or the book's mid). */
  readonly yesPrice: (ref: string) => number | null
  /** Feed time of the contract's newest price event (a price at or before it was reported before now). */
  readonly yesPriceAt: (ref: string) => number | null
  readonly bars: (ref: string, fromMs: number, toMs: number) => ReadonlyArray<Bar>
  readonly contractsOfEvent: (eventRef: string) => ReadonlyArray<string>
  readonly openRefs: () => ReadonlyArray<string>
  readonly refs: () => ReadonlyArray<string>
  /** Latest feed time the registry has seen (−Infinity before any). */
  readonly feedTime: () => number
  /** Counts: spawned, retired, sends, held and dropped events, join outcomes… */
  readonly stats: () => RegistryStats
  /** Takes a history backfill's last trades where newer than the live actors' (MarketRegistry.adoptHistory). */
  readonly adoptHistory: (records: Iterable<MarketRecord>) => void
  /** At the end of a history backfill: takes the markets only history knows (MarketRegistry.takeHistory). */
  readonly takeHistory: (records: Iterable<MarketRecord>) => void
  /** The trades and price changes `wanted` says yes to carry their book from now on (MarketRegistry.watchBooks); returns the undo. */
  readonly watchBooks: (wanted: BookWanted) => () => void
  /** A BookChanged carrying `ref`'s book goes out at the end of the next delivery (MarketRegistry.requestBook). */
  readonly requestBook: (ref: string) => void
}

export class Markets extends Context.Tag("whalewatch/Markets")<Markets, MarketsService>() {
  static readonly info = (ref: string) => Effect.map(Markets, (m) => m.info(ref))
  static readonly status = (ref: string) => Effect.map(Markets, (m) => m.status(ref))
  static readonly book = (ref: string, depth?: number) => Effect.map(Markets, (m) => m.book(ref, depth))
  static readonly yesPrice = (ref: string) => Effect.map(Markets, (m) => m.yesPrice(ref))
}

/** The registry's reads as the service. */
export const marketsOf = (registry: MarketRegistry): MarketsService => ({
  record: (ref) => registry.record(ref),
  info: (ref) => registry.info(ref),
  status: (ref) => registry.status(ref),
  book: (ref, depth) => registry.book(ref, depth),
  lastPrice: (ref) => registry.lastPrice(ref),
  yesPrice: (ref) => registry.yesPrice(ref),
  yesPriceAt: (ref) => registry.yesPriceAt(ref),
  bars: (ref, fromMs, toMs) => registry.bars(ref, fromMs, toMs),
  contractsOfEvent: (eventRef) => registry.contractsOfEvent(eventRef),
  openRefs: () => registry.openRefs(),
  refs: () => registry.refs(),
  feedTime: () => registry.feedTime(),
  stats: () => registry.stats(),
  adoptHistory: (records) => registry.adoptHistory(records),
  takeHistory: (records) => registry.takeHistory(records),
  watchBooks: (wanted) => registry.watchBooks(wanted),
  requestBook: (ref) => registry.requestBook(ref),
})

export interface MarketsOptions extends RegistryOptions {
  /** Persist changes this often (default 250 ms)… */
  readonly flushEveryMs?: number
  /** …or as soon as this many markets changed (default 500, also the rows per statement). */
  readonly flushRows?: number
  /**
   * Also move feed time with the Clock this often (default 1 s), so join windows and retirement
   * progress while a feed is quiet. Live feeds stamp `receivedAt` from the same clock; null turns
   * it off (a replay into the bus, where only the recording's times may count).
   */
  readonly clockTickMs?: number | null
}

/**
 * Writes every pending change, `flushRows` per statement, then the price bars changed since the last
 * round; not interrupted halfway. A failed write puts its markets (or bars) back as changed (the next
 * round retries them) and ends this round.
 */
const flushAll = (registry: MarketRegistry, rows: number): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.uninterruptible(Effect.gen(function* () {
    while (registry.changesPending > 0) {
      const records = registry.drainChanges(rows)
      const failed = yield* MarketStore.upsert(records).pipe(
        Effect.as(false),
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.sync(() => registry.markChanged(records.map((r) => r.info.ref))),
            Effect.as(Effect.logError("markets: persisting changes failed; retrying next round", cause), true),
          )),
      )
      if (failed) return
    }
    if (registry.barsPending === 0) return
    const bars = registry.drainBars(registry.feedTime() - BARS_KEPT_MS)
    yield* PriceBarStore.upsert(bars).pipe(
      Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.sync(() => registry.holdBars(bars)),
          Effect.logError("markets: persisting price bars failed; retrying next round", cause),
        )),
    )
  }))

/** Deletes stored bars older than the longest history range, once an hour of feed time. */
const pruneBars = (registry: MarketRegistry) => {
  let last = Number.NEGATIVE_INFINITY
  return Effect.suspend(() => {
    const now = registry.feedTime()
    if (!Number.isFinite(now) || now - last < 3_600_000) return Effect.void
    last = now
    return PriceBarStore.prune(now - BARS_KEPT_MS).pipe(Effect.catchAllCause((cause) => Effect.logError("markets: pruning price bars failed", cause)))
  })
}

export const makeMarketsLayer = (options: MarketsOptions = {}): Layer.Layer<Markets, never, FeedBus | MarketBus | SqlClient.SqlClient> =>
  Layer.scoped(
    Markets,
    Effect.gen(function* () {
      const bus = yield* MarketBus
      const flushRows = options.flushRows ?? 500
      const every = Duration.millis(options.flushEveryMs ?? 250)
      // Subscribed before the store is read, so batches published meanwhile wait in the subscription.
      const batches = yield* PubSub.subscribe(yield* FeedBus)
      const registry = new MarketRegistry((event) => void bus.unsafeOffer(event), options)
      registry.restore(yield* MarketStore.load)
      yield* Effect.addFinalizer(() => Effect.sync(() => registry.stop()))
      // Finalizers run in reverse: the fibers below stop first, then the last changes are written, then actors stop.
      yield* Effect.addFinalizer(() => flushAll(registry, flushRows))

      // Wakes the flush early once `flushRows` markets wait; a dropping queue of one coalesces wake-ups.
      const wake = yield* Queue.dropping<void>(1)
      const prune = pruneBars(registry)
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.takeBetween(batches, 1, 1_024), (chunk) =>
          Effect.sync(() => {
            for (const batch of chunk) registry.deliver(batch)
            if (registry.changesPending >= flushRows) wake.unsafeOffer(undefined)
          })),
      ))
      yield* Effect.forkScoped(Effect.forever(
        Queue.take(wake).pipe(
          Effect.timeout(every),
          Effect.ignore,
          Effect.zipRight(Effect.suspend(() =>
            registry.changesPending > 0 || registry.barsPending > 0 ? flushAll(registry, flushRows) : Effect.void)),
          Effect.zipRight(prune),
        ),
      ))

      const tick = options.clockTickMs === undefined ? 1_000 : options.clockTickMs
      if (tick !== null) {
        yield* Effect.forkScoped(Effect.repeat(
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => registry.advance(now))),
          Schedule.spaced(Duration.millis(tick)),
        ))
      }
      return marketsOf(registry)
    }),
  )

/** The markets of a running service: needs FeedBus, MarketBus and SqlClient (migrated). */
export const MarketsLive = makeMarketsLayer()
