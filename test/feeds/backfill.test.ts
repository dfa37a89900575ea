// Backfill against the real simulator's REST history (speed 0, two days of history): every row goes
// through the venue decoders, the market registry and the pipeline into the store; the stored whale
// trades are exactly the simulator's trades of at least $10,000; a second run finds nothing new and a
// full re-run over a restored pipeline duplicates nothing.
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { VENUES } from "../../src/domain/enums.js"
import { backfill } from "../../src/feeds/backfill.js"
import { DAY_MS } from "../../src/intel/config.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import { startSim } from "../../src/sim/server.js"
import { backfilledUntil, persistIntel, restorePipeline, setBackfilledUntil } from "../../src/store/intel.js"
import { TestDb } from "../support/db.js"
import { SIM_START } from "../support/sim-feeds.js"

const DAYS = 2

const runBackfill = (url: string, until: number, since: (v: (typeof VENUES)[number]) => number, pipeline: IntelPipeline) =>
  Effect.gen(function* () {
    const registry = new MarketRegistry((event) => pipeline.apply(event))
    const result = yield* Effect.promise(() => backfill({ baseUrl: url, venues: VENUES, since, until, sink: (batch) => registry.deliver(batch) }))
    registry.advance(until + 3_600_000)
    registry.stop()
    yield* persistIntel(pipeline.takeChanges(), pipeline.takePositionChanges())
    for (const venue of VENUES) yield* setBackfilledUntil(venue, until)
    return result
  })

const whaleCount = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number; venue: string }>`
  SELECT venue, count(*)::int AS n FROM whale_trades GROUP BY venue ORDER BY venue`)

layer(TestDb, { timeout: "120 seconds" })("backfill", (it) => {
  it.effect("stores the simulator's whale trades once, and resumes after what is stored", () =>
    Effect.gen(function* () {
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => startSim({ port: 0, seed: 42, historyDays: DAYS, speed: 0, start: SIM_START, heartbeatMs: 3_600_000 })),
        (s) => Effect.promise(() => s.close()),
      )
      const until = sim.model.now
      const from = until - DAYS * DAY_MS
      const first = yield* runBackfill(sim.url, until, () => from, new IntelPipeline())
      expect(first.rejected).toBe(0)
      const expected = VENUES.map((venue) => ({
        venue,
        n: sim.model.history.trades(venue).filter((e) => e.ts <= until && (e.trade.price / 1e4) * (e.trade.contracts / 100) >= 10_000 - 1e-6).length,
      })).filter((r) => r.n > 0)
      const stored = yield* whaleCount
      expect(stored).toEqual(expected)
      expect(stored.reduce((t, r) => t + r.n, 0)).toBeGreaterThan(10)
      const sql = yield* SqlClient.SqlClient
      const [settledRows] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM whale_trades WHERE result <> 'open' AND profit IS NOT NULL`
      expect(settledRows?.n ?? 0).toBeGreaterThan(0)

      // A second start reads only after what is stored: no trades, nothing new.
      const stored2 = yield* backfilledUntil
      const second = yield* runBackfill(sim.url, until, (v) => stored2.get(v) ?? from, new IntelPipeline())
      expect(second.rows).toBeLessThan(first.rows / 2)
      expect(yield* whaleCount).toEqual(expected)

      // Everything again over a pipeline restored from the store: the same rows, no duplicates.
      const restored = new IntelPipeline()
      yield* restorePipeline(restored)
      const seq = restored.seq
      yield* runBackfill(sim.url, until, () => from, restored)
      expect(restored.seq).toBe(seq)
      expect(yield* whaleCount).toEqual(expected)
    }).pipe(Effect.scoped))
})
