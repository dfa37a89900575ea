// Whale intelligence in a running service: restores the pipeline from the store, backfills each venue's
// history (REST, same decoders and the same MarketRegistry code as live frames) after what is stored,
// then follows the MarketBus. Changes are persisted in batches from one fiber; GET /healthz waits on
// "backfill" until history is in. `Intel` answers live reads from the pipeline's memory.
//
// Backfill/live handover: the MarketBus is subscribed first and, while history loads, its events are
// kept in memory (not applied). Once every venue feed is connected, `until` = the Clock's now; history
// is read up to `until`, so it covers everything the live feed may have missed before connecting. Then
// the kept live events are applied, and the bus is followed. The overlap (live events from connecting
// to `until`) is dropped by the pipeline's stable trade ids; a restart backfills only after the
// `backfill_progress` time stored per venue. That time moves on while the live feed is stored: every
// minute, to PROGRESS_LAG_MS before the flush that stored it, for each venue whose feed has not dropped
// since the hand-over (a venue that dropped keeps the time before its drop, so the next start backfills
// the gap too). A restart re-reads minutes, not everything since the previous start.
//
// From the hand-over on, what the pipeline records goes out on the IntelBus, and the OrderedFeed gets
// the same events with the market events bots act on (prices, lifecycle) in the order they were handled.
import type { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, Option, PubSub, Queue, Ref, Runtime } from "effect"
import { MarketRegistry } from "../actors/markets/registry.js"
import { MarketBus, Markets } from "../actors/markets/market-bus.js"
import { AppConfig } from "../config.js"
import type { Category, Kind, Venue } from "../domain/enums.js"
import type { MarketEvent } from "../domain/market-events.js"
import type { MarketCall } from "../domain/market.js"
import { TRADES_WINDOW_DAYS } from "../domain/limits.js"
import { backfill, progressPrinter, type BackfillProgress } from "../feeds/backfill.js"
import { VenueFeeds } from "../feeds/live.js"
import { Health } from "../operations/health.js"
import { backfilledUntil, persistIntel, restorePipeline, setBackfilledUntil, storedWhaleTradesSince } from "../store/intel.js"
import { BARS_KEPT_MS, PriceBarStore } from "../store/price-bars.js"
import { MarketStore } from "../store/markets.js"
import { DAY_MS } from "./config.js"

/** How far behind a live flush the stored backfill time stays: events still queued, trades the venue_b join holds, clock skew. */
export const PROGRESS_LAG_MS = 5 * 60_000
/** How often the live feed's stored time is written. */
const PROGRESS_EVERY_MS = 60_000

/**
 * Each venue's backfill time after a live flush that began at `at`: PROGRESS_LAG_MS before it, or before the
 * venue's last drop when that came after the hand-over (the gap is then the next start's to backfill).
 */
export const liveProgress = (
  venues: ReadonlyArray<Venue>, handedOverAt: number, at: number, lastDisconnectAt: (venue: Venue) => number | null,
): ReadonlyArray<readonly [Venue, number]> =>
  venues.map((venue) => {
    const dropped = lastDisconnectAt(venue)
    return [venue, (dropped !== null && dropped > handedOverAt ? Math.min(at, dropped) : at) - PROGRESS_LAG_MS] as const
  })
import { carriedInOrder, IntelBus, OrderedFeed, type OrderedEvent } from "./intel-bus.js"
import { RecentFeed } from "./recent-feed.js"
import { IntelPipeline } from "./pipeline.js"
import type { RecordRow, SummaryFigures } from "./records.js"
import { TradeIndex } from "./trade-index.js"
import { marketCall, marketFigures, winningPositionRows, type MarketFigures } from "./views.js"
import type { PositionRowData } from "./winning.js"

export type BackfillState =
  | { readonly _tag: "waiting"; readonly detail: string }
  | { readonly _tag: "running"; readonly progress: ReadonlyArray<BackfillProgress> }
  | { readonly _tag: "done"; readonly rows: number; readonly ms: number }

export interface IntelService {
  readonly pipeline: IntelPipeline
  /** The persisted whale trades of the listing window (GET /v2/trades reads them here). */
  readonly trades: TradeIndex
  /** Feed time of the pipeline (newest event time). */
  readonly now: () => number
  readonly market: (ref: string) => MarketFigures | undefined
  /** Market refs in listing order (events once). */
  readonly marketRefs: () => ReadonlyArray<string>
  /** Winning traders' position rows; rebuilt at most every `positionsEveryMs` of the Clock. */
  readonly positions: Effect.Effect<ReadonlyArray<PositionRowData>>
  readonly call: (ref: string) => Effect.Effect<MarketCall | null>
  readonly summary: (trader: string, category: Category | null, kind: Kind | null) => SummaryFigures
  readonly record: (trader: string, category: Category | null, kind: Kind | null) => RecordRow | undefined
  readonly backfill: () => BackfillState
}

export class Intel extends Context.Tag("whalewatch/Intel")<Intel, IntelService>() {}

export interface IntelLiveOptions {
  readonly flushEveryMs?: number
  readonly positionsEveryMs?: number
  /** Progress output (default: stderr, a bar on a TTY). */
  readonly write?: (text: string) => void
  readonly tty?: boolean
  /** Longest wait for every feed to connect before backfilling anyway. */
  readonly connectTimeoutMs?: number
}

const describe = (state: BackfillState): string => {
  switch (state._tag) {
    case "waiting": return `backfill: ${state.detail}`
    case "running": return `backfill: ${state.progress.map((p) => `${p.venue} ${Math.floor(p.share * 100)}%`).join(", ")}`
    case "done": return `backfill done (${state.rows} rows in ${(state.ms / 1000).toFixed(1)} s)`
  }
}

export const makeIntelLayer = (options: IntelLiveOptions = {}): Layer.Layer<Intel, never, MarketBus | Markets | IntelBus | OrderedFeed | SqlClient.SqlClient | Health | VenueFeeds> =>
  Layer.scoped(
    Intel,
    Effect.gen(function* () {
      const config = yield* Effect.orDie(AppConfig)
      const feeds = yield* VenueFeeds
      const markets = yield* Markets
      const health = yield* Health
      const runtime = yield* Effect.runtime<SqlClient.SqlClient>()
      const pipeline = new IntelPipeline()
      const intelBus = yield* IntelBus
      const orderedFeed = yield* OrderedFeed
      const recent = yield* Effect.serviceOption(RecentFeed)
      /** On the OrderedFeed, kept in the recent feed first (where nodes share the paper lease: recent-feed.ts). */
      const ordered = (event: OrderedEvent): void => {
        if (Option.isSome(recent)) recent.value.push(event)
        orderedFeed.unsafeOffer(event)
      }
      /** A live market event: into the pipeline (what it records goes out through `observe`), then on in order. */
      const follow = (event: MarketEvent): void => {
        pipeline.apply(event)
        if (carriedInOrder(event)) ordered(event)
      }
      const trades = new TradeIndex(TRADES_WINDOW_DAYS)
      // Reads see a trade once it is stored: the index takes each batch after its write.
      const flush = Effect.suspend(() => {
        const changes = pipeline.takeChanges()
        return persistIntel(changes, pipeline.takePositionChanges()).pipe(Effect.tap(() => trades.upsert(changes.trades)))
      }).pipe(Effect.orDie)
      // Subscribed before anything is read, so no live event is lost meanwhile.
      const events = yield* PubSub.subscribe(yield* MarketBus)
      const started = yield* Clock.currentTimeMillis
      const restored = yield* Effect.orDie(restorePipeline(pipeline))
      trades.upsert(yield* Effect.orDie(storedWhaleTradesSince(started - (TRADES_WINDOW_DAYS + 1) * DAY_MS)))
      yield* Effect.logInfo(`intel restored ${restored.events} stored events in ${(yield* Clock.currentTimeMillis) - started} ms`)

      const state = yield* Ref.make<BackfillState>({ _tag: "waiting", detail: "feeds connecting" })
      const live = { following: false, kept: [] as Array<MarketEvent> }
      yield* health.register("backfill", Effect.map(Ref.get(state), (s) => ({ ready: s._tag === "done", detail: describe(s) })))

      // Live events: kept while history loads, applied after.
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) =>
        Effect.sync(() => {
          if (live.following) for (const event of chunk) follow(event)
          else for (const event of chunk) live.kept.push(event)
        }))))
      /** Set at the hand-over: from then on the live flushes move `backfill_progress` on. */
      const progress = { handedOverAt: null as number | null, writtenAt: Number.NEGATIVE_INFINITY }
      /** After a flush that began at `at`: each venue's stored time, as far as its unbroken live feed has been stored. */
      const advanceProgress = Effect.fnUntraced(function* (at: number) {
        const handedOverAt = progress.handedOverAt
        if (handedOverAt === null || at - progress.writtenAt < PROGRESS_EVERY_MS) return
        progress.writtenAt = at
        for (const [venue, until] of liveProgress(feeds.venues, handedOverAt, at, feeds.lastDisconnectAt)) {
          yield* setBackfilledUntil(venue, until)
        }
      })
      const liveFlush = Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.zipRight(flush, Effect.orDie(advanceProgress(at))))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(options.flushEveryMs ?? 500)), liveFlush))
        .pipe(Effect.catchAllCause(Effect.logError)))
      yield* Effect.addFinalizer(() => flush.pipe(Effect.catchAllCause(Effect.logError)))

      const write = options.write ?? ((text: string) => void process.stderr.write(text))
      const printer = progressPrinter({ tty: options.tty ?? process.stderr.isTTY === true, write, now: () => Runtime.runSync(runtime)(Clock.currentTimeMillis) })
      const run = Effect.gen(function* () {
        const waitUntil = (yield* Clock.currentTimeMillis) + (options.connectTimeoutMs ?? 30_000)
        while (!feeds.connected() && (yield* Clock.currentTimeMillis) < waitUntil) yield* Effect.sleep(Duration.millis(100))
        const until = yield* Clock.currentTimeMillis
        const stored = yield* Effect.orDie(backfilledUntil)
        const since = (venue: Venue) => Math.max(stored.get(venue) ?? -Infinity, until - config.historyDays * DAY_MS)
        const registry = new MarketRegistry((event) => pipeline.apply(event))
        // The live actors never see history's trades: they take its last ones where newer than theirs,
        // so the current price agrees with the stored record (and stays the same across a restart).
        const persist = (): Promise<void> => Runtime.runPromise(runtime)(Effect.gen(function* () {
          yield* flush
          const records = registry.drainChanges()
          yield* Effect.orDie(MarketStore.upsert(records))
          // History's price bars, for Get Market's `history` (a week of them: its longest range).
          yield* PriceBarStore.upsert(registry.drainBars(until - BARS_KEPT_MS))
          markets.adoptHistory(records)
        }))
        let rows = 0
        yield* Ref.set(state, { _tag: "running", progress: feeds.venues.map((venue) => ({ venue, share: 0, at: since(venue) })) })
        const result = yield* Effect.promise(() => backfill({
          baseUrl: feeds.httpUrl, venues: feeds.venues, since, until,
          sink: (batch) => {
            registry.deliver(batch)
            rows++
            return rows % 20_000 === 0 ? persist() : undefined
          },
          progress: (progress) => {
            Runtime.runSync(runtime)(Ref.set(state, { _tag: "running", progress }))
            printer.update(progress, `${rows} rows`)
          },
        }))
        registry.advance(until + 3_600_000) // releases trades the venue_b join still holds
        yield* Effect.promise(persist)
        // Markets history listed (and maybe settled) that the live feed has not spoken of are taken by the
        // live registry now, as a restart would take them from the store.
        markets.takeHistory(registry.records())
        registry.stop()
        for (const venue of feeds.venues) yield* Effect.orDie(setBackfilledUntil(venue, until))
        const ms = (yield* Clock.currentTimeMillis) - until
        printer.done(`${result.rows} rows, ${result.events} events, ${result.rejected} rejected, in ${(ms / 1000).toFixed(1)} s`)
        // Hand over: what the live feed sent meanwhile, then the bus itself.
        yield* Effect.sync(() => {
          // From here on what the pipeline records is live news: the stream, bots and webhooks get it.
          pipeline.observe = (event) => {
            // The book is for the bots only: the IntelBus goes to the stream, webhooks and other nodes.
            intelBus.unsafeOffer(event._tag === "TradeRecorded" && event.book !== undefined ? { _tag: "TradeRecorded", trade: event.trade } : event)
            ordered(event)
          }
          for (const event of live.kept) follow(event)
          live.kept = []
          live.following = true
        })
        yield* flush
        progress.handedOverAt = until
        progress.writtenAt = until
        yield* Ref.set(state, { _tag: "done", rows: result.rows, ms })
      })
      yield* Effect.forkScoped(run.pipe(Effect.catchAllCause((cause) =>
        Effect.zipRight(Effect.logError("backfill failed", cause), Ref.set(state, { _tag: "waiting", detail: "failed (see log); restart to retry" })))))

      const positionsEvery = options.positionsEveryMs ?? 60_000
      let cached: { at: number; seq: number; rows: ReadonlyArray<PositionRowData> } | null = null
      const positions = Effect.map(Clock.currentTimeMillis, (now) => {
        if (cached === null || (cached.seq !== pipeline.seq && now - cached.at >= positionsEvery)) {
          cached = { at: now, seq: pipeline.seq, rows: winningPositionRows(pipeline) }
        }
        return cached.rows
      })
      return {
        pipeline,
        trades,
        now: () => pipeline.now,
        market: (ref) => marketFigures(pipeline, ref),
        marketRefs: () => pipeline.marketRefs(),
        positions,
        call: (ref) => Effect.map(positions, (rows) => marketCall(pipeline, ref, [...rows])),
        summary: (trader, category, kind) => pipeline.summary(trader, category, kind),
        record: (trader, category, kind) => pipeline.recordRow(trader, category, kind),
        backfill: () => Runtime.runSync(runtime)(Ref.get(state)),
      }
    }),
  )

/** Intel of a running service: needs MarketBus and Markets (MarketsLive), SqlClient, Health and VenueFeeds. */
export const IntelLive = makeIntelLayer()
