// Replay determinism of whale intelligence. Invariants:
//   1. Replaying the recorded simulator feeds (test/fixtures/feeds/sim, all four venues merged by receive
//      time) through the replayer's decoders, the market registry and the pipeline twice yields
//      identical trade rows, moves, trader records and trader positions.
//   2. Replaying the same feeds in chunks, with the pipeline killed after each chunk and a new one
//      restored from the store (what the service's flushes store: intel rows, market records, price
//      bars), yields the same trade rows, trader records, positions and contracts' move1h as one
//      pass (move1h read at the end); the restored clock is never ahead of the feed; and every move whose
//      window holds no cut is found and reads the same.
//      (A move whose hold or whales window spans a restart may be missed or found differently: README,
//      "Restart and the list figures".)
// A low whale threshold ($200) makes the short recordings exercise whale rows, agreement and moves.
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { readRecording, Replayer, replayFrames } from "../../src/feeds/replay.js"
import type { RecordedLine } from "../../src/feeds/recording.js"
import { intelConfig } from "../../src/intel/config.js"
import { IntelPipeline, type StoredMove, type StoredTrade } from "../../src/intel/pipeline.js"
import { tradeRowOf } from "../../src/intel/rows.js"
import { persistIntel, restorePipeline } from "../../src/store/intel.js"
import { MarketStore } from "../../src/store/markets.js"
import { PriceBarStore } from "../../src/store/price-bars.js"
import { TestDb } from "../support/db.js"

const config = intelConfig({ whale: { minUsd: 200 }, move: { minPoints: 3 }, whales: { minTraders: 2 } })
const FILES = ["venue_a", "venue_b", "venue_b_us", "venue_d"].map((v) => `test/fixtures/feeds/sim/${v}.jsonl`)

/** Every line of the four recordings, by receive time (each file's own order kept on ties). */
const lines: ReadonlyArray<RecordedLine> = FILES.flatMap((file, f) => readRecording(file).map((line, i) => ({ line, f, i })))
  .sort((a, b) => a.line.t - b.line.t || a.f - b.f || a.i - b.i)
  .map(({ line }) => line)

interface Outcome {
  readonly trades: Array<StoredTrade>
  readonly moves: Array<StoredMove>
  readonly positions: unknown
  readonly records: unknown
  /** Each contract's move1h at the end (an open event's figures follow its most traded contract, which a
   *  restart may read differently: README, "Restart and the list figures"). */
  readonly move1h: Record<string, number | null | undefined>
  /** Feed time at each cut, and how far the restored pipeline's clock stood ahead of it. */
  readonly restarts: Array<{ readonly at: number; readonly ahead: number }>
}

const snapshot = (
  p: IntelPipeline,
  trades: Map<string, StoredTrade>,
  moves: Array<StoredMove>,
  restarts: Array<{ readonly at: number; readonly ahead: number }>,
): Outcome => {
  const traders = [...new Set([...trades.values()].flatMap((t) => (t.trader === null ? [] : [t.trader])))].sort()
  return {
    trades: [...trades.values()].sort((a, b) => a.seq - b.seq),
    moves,
    positions: p.positionRows(),
    records: traders.map((t) => p.recordRow(t, null, null)),
    move1h: Object.fromEntries(p.marketRefs().flatMap((ref) => p.contractsOf(ref)).map((c) => [c, p.contractState(c)?.figures.move1h(p.now)])),
    restarts,
  }
}

/** One pass; `cuts` are line indexes after which the pipeline is persisted, dropped and restored. */
const replayRun = (cuts: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    let pipeline = new IntelPipeline(config)
    const registry = new MarketRegistry((event) => pipeline.apply(event))
    const replayer = new Replayer() // the feed side lives on across the pipeline's restarts
    const trades = new Map<string, StoredTrade>()
    const moves: Array<StoredMove> = []
    const restarts: Array<{ readonly at: number; readonly ahead: number }> = []
    const collect = () => {
      const changes = pipeline.takeChanges()
      for (const t of changes.trades) trades.set(t.id, t)
      moves.push(...changes.moves)
      return changes
    }
    let at = 0
    for (const end of [...cuts, lines.length]) {
      for (const frame of replayFrames(lines.slice(at, end), replayer)) registry.deliver(frame.events)
      at = end
      if (end === lines.length) break
      yield* persistIntel(collect(), pipeline.takePositionChanges())
      yield* MarketStore.upsert(registry.drainChanges())
      yield* PriceBarStore.upsert(registry.drainBars())
      pipeline = new IntelPipeline(config) // the kill: everything in memory is gone
      yield* restorePipeline(pipeline)
      restarts.push({ at: registry.feedTime(), ahead: pipeline.now - registry.feedTime() })
    }
    registry.advance(Number.MAX_SAFE_INTEGER)
    registry.stop()
    collect()
    return snapshot(pipeline, trades, moves, restarts)
  })

const byTime = (moves: ReadonlyArray<StoredMove>) => [...moves].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

const clear = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`TRUNCATE whale_trades, named_trades, moves, trader_positions, intel_settlements, intel_markets, markets, market_events, price_bars`)

layer(TestDb, { timeout: "120 seconds" })("replay determinism", (it) => {
  it.effect("the same recording twice gives identical rows, moves, records and positions", () =>
    Effect.gen(function* () {
      const one = yield* replayRun([])
      const two = yield* replayRun([])
      expect(one.trades.length).toBeGreaterThan(20)
      expect(one.trades.some((t) => t.whale && t.agreement !== null && t.agreement.sameSide.trades > 0)).toBe(true)
      expect(JSON.stringify(two)).toBe(JSON.stringify(one))
      expect(two.trades.map((t) => tradeRowOf(t))).toEqual(one.trades.map((t) => tradeRowOf(t)))
    }))

  it.effect("in chunks with a kill and a restore from the store between them: the same rows, records, positions, move1h and moves; the clock never ahead", () =>
    Effect.gen(function* () {
      const whole = yield* replayRun([])
      const third = Math.floor(lines.length / 3)
      for (const cuts of [[third], [third, 2 * third], [17, 400, 783, 1_000, 1_175, 1_700, 2_100]]) {
        yield* clear
        const chunked = yield* replayRun(cuts)
        expect(chunked.trades).toEqual(whole.trades)
        expect(chunked.positions).toEqual(whole.positions)
        expect(chunked.records).toEqual(whole.records)
        expect(chunked.move1h).toEqual(whole.move1h)
        for (const restart of chunked.restarts) expect(restart.ahead).toBeLessThanOrEqual(0)
        // Every move whose window holds no cut is found again and reads the same (its priceAfter from the
        // restored prices, not null). Where a move's hold or whales window spans a cut it can differ (README).
        const spansCut = (m: StoredMove) => chunked.restarts.some((r) => r.at >= m.startedAt && r.at < m.time)
        const kept = whole.moves.filter((w) => !spansCut(w))
        expect(kept.length).toBeGreaterThan(0)
        expect(byTime(chunked.moves.filter((m) => kept.some((w) => w.id === m.id)))).toEqual(byTime(kept))
      }
    }))
})
