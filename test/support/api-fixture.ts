// A server with seeded whale data for the API tests and the bench: feed events (builders of
// test/actors/market-builders.ts) go through the real MarketRegistry into the real IntelPipeline, and
// what they produce is persisted with src/store/intel.ts and src/store/markets.ts into a TestDb. The
// server runs the registry's operations with `Markets` and `Intel` over that registry and pipeline, a
// manual Clock at `NOW`, in-memory keys, and Counters shared with the test (Redis when REDIS_URL is set).
import { randomBytes } from "node:crypto"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { Category, Kind, Venue } from "../../src/domain/enums.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { Principal } from "../../src/domain/principal.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Intel } from "../../src/intel/live.js"
import { IntelPipeline, type StoredMove } from "../../src/intel/pipeline.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { getMarket, listMarketsOperation } from "../../src/operations/markets.js"
import { listMoves } from "../../src/operations/moves.js"
import { listTrades } from "../../src/operations/trades.js"
import { queryWhaleEvents } from "../../src/operations/v1-events.js"
import { getLiveFeed } from "../../src/operations/v1-feed.js"
import { searchMarkets } from "../../src/operations/v1-markets-search.js"
import { getMarketV1 } from "../../src/operations/v1-aliases.js"
import { Counters, type CountersService } from "../../src/store/counters.js"
import { persistIntel } from "../../src/store/intel.js"
import { MarketStore } from "../../src/store/markets.js"
import { Redis } from "../../src/store/redis.js"
import { aListing, aPrint, aSettlement, aSnapshot } from "../actors/market-builders.js"
import { TestDb } from "./db.js"
import { intelOf } from "./intel.js"
import { manualClock, type ManualClock } from "./manual-clock.js"
import { aPrincipal, memoryKeys } from "./memory-keys.js"

export const HOUR = 3_600_000
export const DAY = 24 * HOUR
/** The servers' Clock: every seeded time is before it. */
export const NOW = Date.UTC(2026, 0, 20, 12, 0, 0)

/** A deterministic generator (LCG), so every run seeds the same data. */
const lcg = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 4_294_967_296
  }
}

interface MarketSpec {
  readonly venue: Venue
  readonly contract: string
  readonly title: string
  readonly category: Category
  readonly kind: Kind
  readonly event?: string
  readonly eventTitle?: string
  readonly labels?: readonly [string, string]
  readonly names?: readonly [string, string]
  readonly series?: string
  readonly listedAt?: number
}

const listing = (m: MarketSpec): FeedEvent => {
  const base = aListing({
    venue: m.venue, contract: m.contract, t: m.listedAt ?? NOW - 40 * DAY, title: m.title, event: m.event ?? null,
    ...(m.names === undefined ? {} : { names: m.names }), ...(m.labels === undefined ? {} : { labels: m.labels }),
  })
  const opensAt = m.listedAt ?? NOW - 40 * DAY
  return {
    ...base, category: m.category, kind: m.kind, eventTitle: m.eventTitle ?? base.eventTitle, series: m.series ?? null,
    opensAt, closesAt: m.series === undefined ? NOW + 30 * DAY : opensAt + 3 * HOUR,
  }
}

/** Open markets the trades land on. */
export const OPEN_MARKETS: ReadonlyArray<MarketSpec> = [
  { venue: "venue_a", contract: "C1", title: "Will the Lakers win the title?", category: "sports", kind: "nba", labels: ["Lakers", "Celtics"] },
  { venue: "venue_a", contract: "C2", title: "Will the bill pass the Senate?", category: "politics", kind: "us_politics" },
  { venue: "venue_d", contract: "C3", title: "Bitcoin above 100k on Friday?", category: "crypto", kind: "bitcoin" },
  { venue: "venue_b_us", contract: "C4", title: "Fed cuts rates in March?", category: "finance", kind: "fed_rates" },
  { venue: "venue_a", contract: "E1A", title: "Alice", category: "politics", kind: "us_elections", event: "E1", eventTitle: "Who wins the election?" },
  { venue: "venue_a", contract: "E1B", title: "Bob", category: "politics", kind: "us_elections", event: "E1", eventTitle: "Who wins the election?" },
  { venue: "venue_a", contract: "E1C", title: "Carol", category: "politics", kind: "us_elections", event: "E1", eventTitle: "Who wins the election?" },
  { venue: "venue_a", contract: "C5", title: "BTC up this hour?", category: "crypto", kind: "bitcoin", series: "BTC-HOURLY", listedAt: NOW - 2 * HOUR },
  { venue: "venue_d", contract: "C7", title: "Quiet market nobody trades", category: "culture", kind: "weather" },
]

/** The operations these servers serve (the ones this fixture has data and services for). */
const operations = [listTrades, listMoves, listMarketsOperation, getMarket, queryWhaleEvents, getLiveFeed, searchMarkets, getMarketV1] as const

export const TRADERS = ["alice", "bob", "carol", "dave"] as const

export interface Fixture {
  readonly url: string
  readonly counters: CountersService
  readonly clock: ManualClock
  /** Tokens with their principals: `token()` rotates over `k<i>` (120 requests a minute each); `r0`..`r4` are spare. */
  readonly principals: Readonly<Record<string, Principal>>
  readonly token: () => string
  readonly run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>
  readonly close: () => Promise<void>
}

/** The feed events of the seed, in time order. */
const seedEvents = (): Array<FeedEvent> => {
  const random = lcg(42)
  const events: Array<FeedEvent> = []
  let tradeSeq = 0
  const print = (m: MarketSpec, t: number, o: { outcome?: string; price: number; usd: number; trader?: string | null; action?: "buy" | "sell" }) =>
    events.push(aPrint({
      venue: m.venue, contract: m.contract, t, outcome: o.outcome ?? "yes", price: o.price, contracts: o.usd / o.price,
      tradeId: `s${++tradeSeq}`, action: o.action ?? "buy",
      trader: o.trader === undefined || o.trader === null || m.venue !== "venue_a" ? null : { id: o.trader, name: o.trader.toUpperCase() },
    }))
  for (const m of OPEN_MARKETS) events.push(listing(m))
  // Twelve settled nfl markets: alice wins 9 of 12, bob 3 of 12 (records for minWinRate/minSettled).
  for (let i = 0; i < 12; i++) {
    const m: MarketSpec = { venue: "venue_a", contract: `N${i}`, title: `NFL game ${i}: home team wins?`, category: "sports", kind: "nfl" }
    const t = NOW - (25 - i) * DAY
    events.push(listing({ ...m, listedAt: t - HOUR }))
    print(m, t, { price: 0.5, usd: 12_000, trader: "alice", outcome: i < 9 ? "yes" : "no" })
    print(m, t + 60_000, { price: 0.5, usd: 11_000, trader: "bob", outcome: i < 3 ? "yes" : "no" })
    events.push(aSettlement({ venue: "venue_a", contract: m.contract, t: t + 2 * HOUR, winner: "yes" }))
  }
  // Settled windows of the repeating series.
  for (let i = 0; i < 3; i++) {
    const m: MarketSpec = { venue: "venue_a", contract: `S${i}`, title: `BTC up hour ${i}?`, category: "crypto", kind: "bitcoin", series: "BTC-HOURLY", listedAt: NOW - (6 - i) * HOUR }
    events.push(listing(m))
    print(m, NOW - (6 - i) * HOUR + 60_000, { price: 0.4, usd: 10_500, trader: "carol" })
    events.push(aSettlement({ venue: "venue_a", contract: m.contract, t: NOW - (5 - i) * HOUR, winner: i === 1 ? "no" : "yes" }))
  }
  // 300 whale trades on the open markets over the last 30 days (newest within the last hour).
  const open = OPEN_MARKETS.filter((m) => m.contract !== "C7")
  for (let i = 0; i < 300; i++) {
    const m = open[Math.floor(random() * open.length)] as MarketSpec
    const t = i < 20 ? NOW - Math.floor(random() * 50 * 60_000) - 60_000 : NOW - Math.floor(random() * 29.5 * DAY) - HOUR
    const price = Math.round((0.05 + random() * 0.9) * 100) / 100
    const usd = Math.round(10_000 + random() * 90_000)
    const trader = random() < 0.15 ? null : TRADERS[Math.floor(random() * TRADERS.length)] as string
    print(m, m.listedAt !== undefined && t < m.listedAt ? m.listedAt + 60_000 + i : t, {
      price, usd, trader, outcome: random() < 0.6 ? "yes" : "no", action: random() < 0.2 ? "sell" : "buy",
    })
  }
  // A book deeper than 20 levels on C1.
  events.push(aSnapshot({
    venue: "venue_a", contract: "C1", t: NOW - 30_000, outcome: "yes",
    bids: Array.from({ length: 25 }, (_, i) => [Math.round((0.5 - i * 0.01) * 100) / 100, 100 + i] as const),
    asks: Array.from({ length: 25 }, (_, i) => [Math.round((0.51 + i * 0.01) * 100) / 100, 200 + i] as const),
  }))
  return events.sort((a, b) => a.receivedAt - b.receivedAt)
}

/** Moves of the last day and older, written straight to the table (the listing reads only it). */
export const seedMoves = (): Array<StoredMove> => {
  const random = lcg(7)
  const types = ["move", "flip", "whales"] as const
  return Array.from({ length: 120 }, (_, i): StoredMove => {
    const m = OPEN_MARKETS[i % OPEN_MARKETS.length] as MarketSpec
    const type = types[i % 3] as (typeof types)[number]
    const before = Math.round(random() * 100) / 100
    const after = Math.round(random() * 100) / 100
    const time = NOW - Math.floor(random() * 30 * HOUR)
    const ref = m.event === undefined ? `${m.venue}:${m.contract}` : `${m.venue}:event:${m.event}`
    return {
      id: `mv_${i}`, time, type, venue: m.venue, ref, market: `${m.venue}:${m.contract}`, event: m.event === undefined ? null : ref,
      title: m.title, category: m.category, kind: m.kind, outcome: type === "move" ? "Yes" : "No",
      priceBefore: type === "move" ? before : null, priceAfter: type === "whales" && i % 2 === 0 ? null : after,
      minutes: type === "move" ? 5 + (i % 10) : null, traders: type === "whales" ? 3 + (i % 3) : null,
      usd: type === "whales" ? 30_000 + i : null, startedAt: time - 60_000, reachedAt: time,
    }
  })
}

/** Counters on Redis when REDIS_URL is set (a per-run prefix), else in process. */
const countersLayer = (): Layer.Layer<Counters> => {
  const url = process.env["REDIS_URL"]
  if (url === undefined || url === "") return Counters.memory
  return Counters.redis({ prefix: `test:api:${process.pid}:${randomBytes(4).toString("hex")}:` }).pipe(Layer.provide(Redis.layer(url)))
}

export const startApiFixture = async (options: { readonly keys?: number } = {}): Promise<Fixture> => {
  const base = ManagedRuntime.make(Layer.merge(TestDb, countersLayer()))
  const pipeline = new IntelPipeline()
  const intel = intelOf(pipeline)
  const markets = new MarketRegistry((event) => pipeline.apply(event), { barsKept: 10_080 })
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => base.runPromise(effect)
  for (const event of seedEvents()) markets.deliver([event])
  markets.advance(NOW)
  await run(Effect.gen(function* () {
    const changes = pipeline.takeChanges()
    yield* persistIntel(changes, pipeline.takePositionChanges())
    intel.trades.upsert(changes.trades)
    yield* persistIntel({ markets: [], trades: [], moves: seedMoves(), settlements: [], traders: new Set() })
    yield* MarketStore.upsert(markets.drainChanges())
  }).pipe(Effect.orDie))
  const counters = await base.runPromise(Counters)
  const context = (await base.runtime()).context
  const clock = manualClock(NOW)
  // `k<i>` rotate through `token()`; `r<i>` are left for tests that spend a key's limits on purpose.
  const tokens = Array.from({ length: options.keys ?? 40 }, (_, i) => `k${i}`)
  const principals = Object.fromEntries([...tokens, "r0", "r1", "r2", "r3", "r4"].map((t) => [t, aPrincipal()]))
  let next = 0
  const server = ManagedRuntime.make(
    makeHttpServer(operations, { port: 0, host: "127.0.0.1" }).pipe(
      Layer.provide([
        memoryKeys(principals),
        Layer.succeed(Counters, counters),
        Health.layer,
        CursorKey.layer("api-test-cursor-secret"),
        Layer.succeed(Intel, intel),
        Layer.succeed(Markets, marketsOf(markets)),
        Layer.succeedContext(context),
      ]),
      Layer.provide(clock.layer),
    ),
  )
  const url = await server.runPromise(serverUrl)
  return {
    url, counters, clock, principals, run,
    token: () => tokens[next++ % tokens.length] as string,
    close: async () => {
      await server.dispose()
      markets.stop()
      await base.dispose()
    },
  }
}
