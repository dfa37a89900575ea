// Whale intelligence in the store (a private schema on DATABASE_URL, else a temporary embedded dir):
// persisting the same changes twice stores nothing new, and a pipeline restored from the store holds
// the same state as the one that wrote it (the same next rows for the same next events).
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { IntelPipeline, type IntelChanges, type StoredPosition } from "../../src/intel/pipeline.js"
import { backfilledUntil, persistIntel, restorePipeline, setBackfilledUntil, storedWhaleTrade, storedWhaleTrades } from "../../src/store/intel.js"
import { TestDb } from "../support/db.js"
import { infoOf } from "../../src/actors/markets/market-live.js"
import { marketFigures, winningPositionRows as winningRows } from "../../src/intel/views.js"
import { MarketStore } from "../../src/store/markets.js"
import { PriceBarStore } from "../../src/store/price-bars.js"
import { aListing } from "../actors/market-builders.js"
import { aMarket, MIN, NO, opened, priced, settled, T0, traded } from "../support/intel-events.js"

const event = "venue_b:event:E"
const a = aMarket({ contract: "A", venue: "venue_b", event, kind: "us_elections", category: "politics" })
const b = aMarket({ contract: "B", venue: "venue_b", event, kind: "us_elections", category: "politics" })
const c = aMarket({ contract: "C" })
const d = aMarket({ contract: "D", venue: "venue_d" })

const first: ReadonlyArray<MarketEvent> = [
  opened(a), opened(b), opened(c), opened(d),
  traded(a, { ts: T0 + 1, price: 0.4, usd: 20_000, trader: "ann" }),
  traded(a, { ts: T0 + 2, price: 0.6, usd: 12_000, trader: "bob", side: NO }),
  traded(b, { ts: T0 + 3, price: 0.3, usd: 900, trader: "ann" }),
  traded(c, { ts: T0 + 4, price: 0.5, usd: 50_000, trader: "cy" }),
  traded(c, { ts: T0 + 5, price: 0.55, usd: 5_500, trader: "cy", action: "sell" }),
  traded(d, { ts: T0 + 6, price: 0.5, usd: 30_000 }),
  priced(c, T0 + 7, 0.55),
  settled(a, T0 + 10 * MIN),
  traded(b, { ts: T0 + 11 * MIN, price: 0.35, usd: 14_000, trader: "bob" }),
]
const second: ReadonlyArray<MarketEvent> = [
  traded(b, { ts: T0 + 20 * MIN, price: 0.4, usd: 16_000, trader: "ann" }),
  traded(c, { ts: T0 + 21 * MIN, price: 0.5, usd: 10_000, trader: "cy", action: "sell" }),
  traded(a, { ts: T0 + 22 * MIN, price: 0.5, usd: 10_000, trader: "late" }), // after settlement: ignored
  settled(b, T0 + 30 * MIN, NO),
  settled(c, T0 + 31 * MIN),
]

const run = (p: IntelPipeline, events: ReadonlyArray<MarketEvent>): { changes: IntelChanges; positions: Array<StoredPosition> } => {
  p.applyAll(events)
  return { changes: p.takeChanges(), positions: p.takePositionChanges() }
}

const counts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ w: number; n: number; p: number; s: number; m: number }>`
    SELECT (SELECT count(*)::int FROM whale_trades) AS w, (SELECT count(*)::int FROM named_trades) AS n,
      (SELECT count(*)::int FROM trader_positions) AS p, (SELECT count(*)::int FROM intel_settlements) AS s,
      (SELECT count(*)::int FROM intel_markets) AS m`
  return row
})

layer(TestDb, { timeout: "120 seconds" })("intel store", (it) => {

  it.effect("upserts by stable id: the same changes twice store nothing new; restore gives the same state", () =>
    Effect.gen(function* () {
      const original = new IntelPipeline()
      const one = run(original, first)
      yield* persistIntel(one.changes, one.positions)
      const after = yield* counts
      expect(after).toEqual({ w: 5, n: 6, p: 5, s: 1, m: 4 })
      yield* persistIntel(one.changes, one.positions)
      expect(yield* counts).toEqual(after)

      const restored = new IntelPipeline()
      yield* restorePipeline(restored)
      expect(restored.seq).toBe(original.seq)
      expect(restored.positionRows()).toEqual(original.positionRows())
      for (const trader of ["venue_b:ann", "venue_b:bob", "venue_a:cy"]) {
        expect(restored.recordRow(trader, null, null)).toEqual(original.recordRow(trader, null, null))
        expect(restored.summary(trader, "politics", "us_elections")).toEqual(original.summary(trader, "politics", "us_elections"))
      }
      // The same next events give the same rows on both.
      const next = run(original, second)
      const again = run(restored, second)
      expect(again).toEqual(next)
      yield* persistIntel(again.changes, again.positions)
      yield* persistIntel(next.changes, next.positions)
      expect(yield* counts).toEqual({ w: 7, n: 8, p: 5, s: 3, m: 4 })

      const stored = yield* storedWhaleTrades()
      expect(stored).toHaveLength(7)
      const ann = next.changes.trades.find((t) => t.trader === "venue_b:ann" && t.whale && t.contract === b.ref && t.result !== "open")
      expect(ann).toBeDefined()
      expect(yield* storedWhaleTrade(ann?.id ?? "")).toEqual(ann)
    }))

  it.effect("backfill progress only moves forward", () =>
    Effect.gen(function* () {
      yield* setBackfilledUntil("venue_a", 100)
      yield* setBackfilledUntil("venue_a", 50)
      yield* setBackfilledUntil("venue_b", 70)
      const until = yield* backfilledUntil
      expect([...until.entries()].sort()).toEqual([["venue_a", 100], ["venue_b", 70]])
    }))
  it.effect("a restored pipeline prices each open contract at its stored last trade (a restart replays no prices)", () =>
    Effect.gen(function* () {
      const e = aMarket({ contract: "PR-E", venue: "venue_b_us" })
      const original = new IntelPipeline()
      const one = run(original, [opened(e), traded(e, { ts: T0 + MIN, price: 0.88, usd: 1_077 }), priced(e, T0 + MIN, 0.88)])
      yield* persistIntel(one.changes, one.positions)
      yield* MarketStore.upsert([{
        info: { ...infoOf(aListing({ contract: "PR-E", venue: "venue_b_us", t: T0 })) }, status: "open", winner: null,
        closedAt: null, settledAt: null, lastPrice: 0.88, lastTradeAt: T0 + MIN,
      }])
      expect(marketFigures(original, e.ref, T0 + 2 * MIN)?.outcomes[0]?.price).toBe(0.88)
      const restored = new IntelPipeline()
      yield* restorePipeline(restored)
      expect(marketFigures(restored, e.ref, T0 + 2 * MIN)?.outcomes[0]?.price).toBe(0.88)
      expect(restored.takeChanges().moves).toEqual([])
    }))

  it.effect("a restored pipeline takes the last hour's prices from the stored bars, so move1h reads as before", () =>
    Effect.gen(function* () {
      const e = aMarket({ contract: "PR-M", venue: "venue_b_us" })
      const original = new IntelPipeline()
      const one = run(original, [
        opened(e), priced(e, T0, 0.5), traded(e, { ts: T0 + 30 * MIN, price: 0.6, usd: 600 }), priced(e, T0 + 30 * MIN, 0.6),
      ])
      yield* persistIntel(one.changes, one.positions)
      const bar = (start: number, close: number, usd: number) =>
        ({ ref: e.ref, bar: { start, open: close, high: close, low: close, close, usd, contracts: usd / close, trades: usd > 0 ? 1 : 0 } })
      yield* PriceBarStore.upsert([bar(T0, 0.5, 0), bar(T0 + 30 * MIN, 0.6, 600)])
      yield* MarketStore.upsert([{
        info: infoOf(aListing({ contract: "PR-M", venue: "venue_b_us", t: T0 })), status: "open", winner: null,
        closedAt: null, settledAt: null, lastPrice: 0.6, lastTradeAt: T0 + 30 * MIN,
      }])
      const restored = new IntelPipeline()
      yield* restorePipeline(restored)
      const asOf = T0 + 40 * MIN
      expect(marketFigures(original, e.ref, asOf)?.move1h).toBe(0.1)
      expect(marketFigures(restored, e.ref, asOf)?.move1h).toBe(0.1)
      expect(marketFigures(restored, e.ref, asOf)?.outcomes[0]?.price).toBe(0.6)
    }))

  it.effect("a restored clock stands no later than the store's newest time: a market closed early closes at its stored time, and a bar's close not after it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`TRUNCATE whale_trades, named_trades, moves, trader_positions, intel_settlements, intel_markets, markets, price_bars`
      const week = 7 * 24 * 60 * MIN
      const early = aMarket({ contract: "CL-A", venue: "venue_d", closesAt: T0 + week })
      const busy = aMarket({ contract: "CL-B", venue: "venue_d", closesAt: T0 + week })
      const original = new IntelPipeline()
      // The feed stops 20 s into the bar's minute: the early market closed 10 s into it, the last trade at 20 s.
      const one = run(original, [
        opened(early), opened(busy), priced(busy, T0 + MIN, 0.45),
        { _tag: "MarketClosed", ts: T0 + MIN + 10_000, ref: early.ref },
        traded(busy, { ts: T0 + MIN + 20_000, price: 0.5, usd: 1_000 }), priced(busy, T0 + MIN + 20_000, 0.5),
      ])
      yield* persistIntel(one.changes, one.positions)
      yield* MarketStore.upsert([
        { info: early, status: "closed", winner: null, closedAt: T0 + MIN + 10_000, settledAt: null, lastPrice: null, lastTradeAt: null },
        { info: busy, status: "open", winner: null, closedAt: null, settledAt: null, lastPrice: 0.5, lastTradeAt: T0 + MIN + 20_000 },
      ])
      yield* PriceBarStore.upsert([{ ref: busy.ref, bar: { start: T0 + MIN, open: 0.45, high: 0.5, low: 0.45, close: 0.5, usd: 1_000, contracts: 2_000, trades: 1 } }])
      const restored = new IntelPipeline()
      yield* restorePipeline(restored)
      // Not the early market's listed close a week out, nor the bar's minute end (T0 + 2 min − 1 ms).
      expect(original.now).toBe(T0 + MIN + 20_000)
      expect(restored.now).toBe(original.now)
      expect(marketFigures(restored, busy.ref)?.move1h).toBe(marketFigures(original, busy.ref)?.move1h)
      expect(marketFigures(restored, busy.ref)?.whaleMoney).toBe(marketFigures(original, busy.ref)?.whaleMoney)
      expect(winningRows(restored)).toEqual(winningRows(original))
    }))
})

