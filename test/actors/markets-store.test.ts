// Markets persisted and restored, against the suite's database: a record round-trips through the
// store; writes are multi-row (statements per chunk, not per market); and MarketsLive writes listings
// and lifecycle changes in batches from its own fiber, flushes the rest on shutdown, and a restart
// restores open markets as actors (no book until a snapshot) and settled ones as records. Price bars:
// upserted by minute, pruned by age, written by MarketsLive's flush, and still there after a restart.
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Layer, PubSub, Queue, Scope, Tracer } from "effect"
import { FeedBus } from "../../src/actors/bus.js"
import { infoOf } from "../../src/actors/markets/market-live.js"
import { makeMarketsLayer, MarketBus, Markets } from "../../src/actors/markets/market-bus.js"
import type { MarketRecord } from "../../src/domain/market-events.js"
import { MarketStore } from "../../src/store/markets.js"
import { PriceBarStore } from "../../src/store/price-bars.js"
import { TestDb } from "../support/db.js"
import { aListing, aPrint, aSettlement, aSnapshot } from "./market-builders.js"

const recordOf = (contract: string, over: Partial<MarketRecord> = {}): MarketRecord => {
  const info = infoOf(aListing({ contract, t: 1_768_478_400_000, event: "E-store", labels: ["Astros", "Astros"] }))
  return { info, status: "open", winner: null, closedAt: null, settledAt: null, lastPrice: null, lastTradeAt: null, ...over }
}

/** Names of the spans an effect opens (each SQL statement is one `sql.execute`). */
const spansOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const names: Array<string> = []
    const base = yield* Effect.tracer
    const counting = Tracer.make({
      span: (...args: Parameters<typeof base.span>) => {
        names.push(args[0])
        return base.span(...args)
      },
      context: base.context,
    })
    yield* Effect.withTracer(effect, counting)
    return names
  })

/** The markets layer over fresh buses, built in its own scope (a "process" that can be stopped). */
const startMarkets = (flushEveryMs = 50) => Effect.gen(function* () {
  const scope = yield* Scope.make()
  const stack = makeMarketsLayer({ flushEveryMs, clockTickMs: null })
    .pipe(Layer.provideMerge(Layer.mergeAll(FeedBus.layer, MarketBus.layer)))
  const context = yield* Layer.buildWithScope(stack, scope)
  const events = yield* PubSub.subscribe(Context.get(context, MarketBus)).pipe(Scope.extend(scope))
  return { scope, markets: Context.get(context, Markets), feed: Context.get(context, FeedBus), events }
})

const until = (check: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400 && !check(); i++) yield* Effect.sleep("10 millis")
    expect(check()).toBe(true)
  })

layer(TestDb, { timeout: "120 seconds", excludeTestServices: true })("market store", (it) => {
  it.effect("a record round-trips: listing, sides, winner, lifecycle times, last trade", () =>
    Effect.gen(function* () {
      const open = recordOf("RT-OPEN", { lastPrice: 0.42, lastTradeAt: 1_768_478_401_250 })
      const settled = recordOf("RT-SETTLED", {
        status: "settled", winner: recordOf("RT-SETTLED").info.sides[1], closedAt: 1_768_478_450_000, settledAt: 1_768_478_460_000,
      })
      yield* MarketStore.upsert([open, settled])
      yield* MarketStore.upsert([{ ...open, lastPrice: 0.45 }])
      const loaded = (yield* MarketStore.load).filter((r) => r.info.contract.startsWith("RT-"))
      expect(loaded).toEqual([{ ...open, lastPrice: 0.45 }, settled])
      expect(yield* MarketStore.pairedOf(open.info.ref)).toEqual([])
    }))

  it.effect("text PostgreSQL cannot hold is mended, not a failed flush: a lone surrogate reads U+FFFD, a NUL is dropped; quotes and backslashes keep", () =>
    Effect.gen(function* () {
      const base = recordOf("RT-TEXT")
      const odd = { ...base, info: { ...base.info, title: "Will \ud800 \"win\" \\u0041\u0000?", rule: "a \\ b" } }
      yield* MarketStore.upsert([odd])
      const [loaded] = (yield* MarketStore.load).filter((r) => r.info.contract === "RT-TEXT")
      expect(loaded?.info.title).toBe("Will \ufffd \"win\" \\u0041?")
      expect(loaded?.info.rule).toBe("a \\ b")
      expect(loaded?.info.sides).toEqual(base.info.sides)
    }))

  it.effect("a stored record never goes back: an ended market stays ended, the newer last trade stays", () =>
    Effect.gen(function* () {
      const winner = recordOf("NB-SETTLED").info.sides[0]
      const settled = recordOf("NB-SETTLED", {
        status: "settled", winner, closedAt: 1_768_478_450_000, settledAt: 1_768_478_460_000, lastPrice: 0.97, lastTradeAt: 1_768_478_440_000,
      })
      const voided = recordOf("NB-VOID", { status: "void", settledAt: 1_768_478_460_000 })
      const closed = recordOf("NB-CLOSED", { status: "closed", closedAt: 1_768_478_450_000, lastPrice: 0.5, lastTradeAt: 1_768_478_440_000 })
      yield* MarketStore.upsert([settled, voided, closed])
      // What a restart's history backfill knows of them: listed again, open, and no trade (or an older one).
      const relisted = (r: MarketRecord, title: string): MarketRecord =>
        ({ ...r, info: { ...r.info, title }, status: "open", winner: null, closedAt: null, settledAt: null, lastPrice: null, lastTradeAt: null })
      yield* MarketStore.upsert([
        relisted(settled, "Renamed"), relisted(voided, "Renamed"),
        { ...relisted(closed, "Renamed"), lastPrice: 0.3, lastTradeAt: 1_768_478_430_000 },
      ])
      const loaded = new Map((yield* MarketStore.load).map((r) => [r.info.contract, r]))
      expect(loaded.get("NB-SETTLED")).toEqual({ ...settled, info: { ...settled.info, title: "Renamed" } })
      expect(loaded.get("NB-VOID")).toEqual({ ...voided, info: { ...voided.info, title: "Renamed" } })
      expect(loaded.get("NB-CLOSED")).toEqual({ ...closed, info: { ...closed.info, title: "Renamed" } })
      // Moving on still moves it: the closed one settles, with a newer last trade.
      yield* MarketStore.upsert([{ ...closed, status: "settled", winner, settledAt: 1_768_478_470_000, lastPrice: 0.99, lastTradeAt: 1_768_478_445_000 }])
      expect((yield* MarketStore.load).find((r) => r.info.contract === "NB-CLOSED"))
        .toMatchObject({ status: "settled", winner, closedAt: 1_768_478_450_000, settledAt: 1_768_478_470_000, lastPrice: 0.99, lastTradeAt: 1_768_478_445_000 })
    }))

  it.effect("writes many markets in a few multi-row statements", () =>
    Effect.gen(function* () {
      const records = Array.from({ length: 1_200 }, (_, i) => recordOf(`BATCH-${String(i).padStart(4, "0")}`))
      const spans = yield* spansOf(MarketStore.upsert(records))
      // 3 chunks of ≤ 500, each one statement for the events and one for the markets.
      expect(spans.filter((name) => name === "sql.execute")).toHaveLength(6)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM markets WHERE contract LIKE 'BATCH-%'`
      expect(row?.n).toBe(1_200)
    }))

  it.effect("MarketsLive persists in batches and a restart restores open markets and settled records", () =>
    Effect.gen(function* () {
      const a = { venue: "venue_a" as const }
      const first = yield* startMarkets()
      first.feed.unsafeOffer([aListing({ ...a, contract: "LIVE-OPEN", t: 1_000, event: "E-live" }), aListing({ ...a, contract: "LIVE-SET", t: 1_000, event: "E-live" })])
      first.feed.unsafeOffer([aSnapshot({ ...a, contract: "LIVE-OPEN", t: 2_000, bids: [[0.4, 5]], asks: [[0.5, 5]] })])
      first.feed.unsafeOffer([aPrint({ ...a, contract: "LIVE-OPEN", t: 3_000, price: 0.47 })])
      first.feed.unsafeOffer([aSettlement({ ...a, contract: "LIVE-SET", t: 4_000, winner: "no" })])
      yield* until(() => first.markets.status("venue_a:LIVE-SET") === "settled")
      const sql = yield* SqlClient.SqlClient
      // The flush fiber writes on its own within a few intervals.
      let rows: ReadonlyArray<{ ref: string; status: string }> = []
      for (let i = 0; i < 200 && rows.length < 2; i++) {
        rows = yield* sql<{ ref: string; status: string }>`
          SELECT ref, status FROM markets WHERE contract LIKE 'LIVE-%' AND (status = 'settled' OR last_price IS NOT NULL) ORDER BY ref`
        if (rows.length < 2) yield* Effect.sleep("20 millis")
      }
      expect(rows).toEqual([{ ref: "venue_a:LIVE-OPEN", status: "open" }, { ref: "venue_a:LIVE-SET", status: "settled" }])
      // A change made just before shutdown is written by the shutdown flush.
      first.feed.unsafeOffer([aPrint({ ...a, contract: "LIVE-OPEN", t: 5_000, price: 0.52 })])
      yield* until(() => first.markets.lastPrice("venue_a:LIVE-OPEN") === 0.52)
      const emitted = Chunk.toReadonlyArray(yield* Queue.takeAll(first.events)).map((e) => e._tag)
      expect(emitted.filter((t) => t === "MarketOpened")).toHaveLength(2)
      yield* Scope.close(first.scope, Exit.void)

      const second = yield* startMarkets()
      expect(second.markets.status("venue_a:LIVE-OPEN")).toBe("open")
      expect(second.markets.lastPrice("venue_a:LIVE-OPEN")).toBe(0.52)
      expect(second.markets.book("venue_a:LIVE-OPEN")?.sides[0].bids).toEqual([]) // no book until a snapshot
      expect(second.markets.record("venue_a:LIVE-SET")).toMatchObject({ status: "settled", winner: { id: "no" }, settledAt: 4_000 })
      expect(second.markets.openRefs()).toContain("venue_a:LIVE-OPEN")
      expect(second.markets.contractsOfEvent("venue_a:event:E-live")).toEqual(["venue_a:LIVE-OPEN", "venue_a:LIVE-SET"])
      // Listed again after the restart: an upsert, not a new market.
      second.feed.unsafeOffer([aListing({ ...a, contract: "LIVE-OPEN", t: 6_000, event: "E-live" })])
      second.feed.unsafeOffer([aSnapshot({ ...a, contract: "LIVE-OPEN", t: 6_100, bids: [[0.5, 1]], asks: [[0.6, 1]] })])
      yield* until(() => second.markets.book("venue_a:LIVE-OPEN")?.asOf === 6_100)
      const again = Chunk.toReadonlyArray(yield* Queue.takeAll(second.events)).map((e) => e._tag)
      expect(again).toEqual(["BookChanged"])
      expect(second.markets.info("venue_a:LIVE-OPEN")?.listedAt).toBe(1_000)
      yield* Scope.close(second.scope, Exit.void)
    }))

  it.effect("shutdown writes what the flush fiber has not written yet", () =>
    Effect.gen(function* () {
      const markets = yield* startMarkets(3_600_000)
      markets.feed.unsafeOffer([aListing({ contract: "SHUT-1", t: 1_000 })])
      yield* until(() => markets.markets.status("venue_a:SHUT-1") === "open")
      const sql = yield* SqlClient.SqlClient
      const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM markets WHERE contract = 'SHUT-1'`
      expect((yield* count)[0]?.n).toBe(0)
      yield* Scope.close(markets.scope, Exit.void)
      expect((yield* count)[0]?.n).toBe(1)
    }))

  it.effect("price bars: upserted by minute (the last of a minute wins), read by range, pruned by age", () =>
    Effect.gen(function* () {
      const bar = (start: number, close: number, trades = 1) => ({ start, open: 0.4, high: Math.max(0.4, close), low: Math.min(0.4, close), close, usd: 10, contracts: 20, trades })
      yield* PriceBarStore.upsert([
        { ref: "venue_a:PB-1", bar: bar(60_000, 0.41) },
        { ref: "venue_a:PB-1", bar: bar(120_000, 0.42) },
        { ref: "venue_a:PB-1", bar: bar(120_000, 0.43, 2) }, // the same minute again in one call
        { ref: "venue_a:PB-2", bar: bar(60_000, 0.5) },
      ])
      yield* PriceBarStore.upsert([{ ref: "venue_a:PB-1", bar: bar(60_000, 0.45, 3) }])
      expect(yield* PriceBarStore.range("venue_a:PB-1", 0, 180_000)).toEqual([bar(60_000, 0.45, 3), bar(120_000, 0.43, 2)])
      expect((yield* PriceBarStore.range("venue_a:PB-1", 60_001, 120_000))).toEqual([])
      yield* PriceBarStore.prune(120_000)
      expect((yield* PriceBarStore.range("venue_a:PB-1", 0, 180_000)).map((b) => b.start)).toEqual([120_000])
      expect(yield* PriceBarStore.range("venue_a:PB-2", 0, 180_000)).toEqual([])
    }))

  it.effect("MarketsLive writes price bars with its flush, and they outlive a restart", () =>
    Effect.gen(function* () {
      const a = { venue: "venue_a" as const }
      const first = yield* startMarkets()
      first.feed.unsafeOffer([aListing({ ...a, contract: "BARS-1", t: 1_000 })])
      first.feed.unsafeOffer([aPrint({ ...a, contract: "BARS-1", t: 61_000, price: 0.4 }), aPrint({ ...a, contract: "BARS-1", t: 125_000, price: 0.45 })])
      const stored = () => PriceBarStore.range("venue_a:BARS-1", 0, 600_000)
      let rows: ReadonlyArray<{ readonly start: number }> = []
      for (let i = 0; i < 200 && rows.length < 2; i++) {
        rows = yield* stored()
        if (rows.length < 2) yield* Effect.sleep("20 millis")
      }
      expect(rows).toMatchObject([{ start: 60_000, close: 0.4, trades: 1 }, { start: 120_000, close: 0.45, trades: 1 }])
      // A later trade in the same minute, just before shutdown: written by the shutdown flush.
      first.feed.unsafeOffer([aPrint({ ...a, contract: "BARS-1", t: 126_000, price: 0.5 })])
      yield* until(() => first.markets.lastPrice("venue_a:BARS-1") === 0.5)
      yield* Scope.close(first.scope, Exit.void)
      expect(yield* stored()).toMatchObject([{ start: 60_000, close: 0.4 }, { start: 120_000, open: 0.45, close: 0.5, trades: 2 }])
      const second = yield* startMarkets()
      expect(second.markets.bars("venue_a:BARS-1", 0, 600_000)).toEqual([]) // the new actor has none in memory
      yield* Scope.close(second.scope, Exit.void)
    }))
})
