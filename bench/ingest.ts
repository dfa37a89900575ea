// End-to-end ingest throughput: a recorded simulator feed (all venues, every market) replayed through
// the venue sessions and decoders, the market registry (actors), the intel pipeline and the store
// (batched upserts), next to plain JSON.parse of the same frames in the same run. Target ratio ≥ 0.5.
// Storage is the suite's: embedded PGlite by default, DATABASE_URL when set.
// Run: node --import tsx bench/ingest.ts [simulatedMinutes=10] [persistEveryFrames=5000]
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { SqlClient } from "@effect/sql"
import { MarketRegistry } from "../src/actors/markets/registry.js"
import { parseRecording } from "../src/feeds/recording.js"
import { Replayer, replayFrames } from "../src/feeds/replay.js"
import { IntelPipeline } from "../src/intel/pipeline.js"
import { persistIntel } from "../src/store/intel.js"
import { TestDb } from "../test/support/db.js"
import { startSimFeed } from "../test/support/sim-feeds.js"

const MINUTES = Number(process.argv[2] ?? 10)
const PERSIST_EVERY = Number(process.argv[3] ?? 5_000)
const file = join(tmpdir(), `whalewatch-ingest-${MINUTES}min.jsonl`)

const record = async (): Promise<string> => {
  if (existsSync(file)) return readFileSync(file, "utf8")
  process.stderr.write(`recording ${MINUTES} simulated minutes of every venue to ${file}…\n`)
  const run = await startSimFeed({ seed: 42, venues: ["venue_a", "venue_b", "venue_b_us", "venue_d"], historyDays: 0, record: true })
  await run.step(240 * MINUTES)
  const text = run.recording("stable").join("\n") + "\n"
  await run.close()
  writeFileSync(file, text)
  return text
}

const text = await record()
const lines = parseRecording(text)
const frames = lines.flatMap((l) => ("frame" in l ? [l.frame] : []))
const bytes = frames.reduce((t, f) => t + Buffer.byteLength(f), 0)

const time = (f: () => void): number => {
  const start = performance.now()
  f()
  return performance.now() - start
}

// Plain JSON.parse of the same frames (best of 3).
let sink = 0
const parseMs = Math.min(...[0, 1, 2].map(() => time(() => {
  for (const frame of frames) {
    try {
      sink += (JSON.parse(frame) as unknown) === null ? 1 : 0
    } catch {
      sink++ // heartbeats (PONG) are frames too
    }
  }
})))

// In memory: decoders → registry → pipeline, no storage.
const memoryMs = Math.min(...[0, 1].map(() => time(() => {
  const pipeline = new IntelPipeline()
  const registry = new MarketRegistry((event) => pipeline.apply(event))
  for (const frame of replayFrames(lines, new Replayer())) registry.deliver(frame.events)
  registry.advance(Number.MAX_SAFE_INTEGER)
  pipeline.takeChanges()
  pipeline.takePositionChanges()
  registry.stop()
})))

// End to end with storage: the same, persisting every PERSIST_EVERY frames (one transaction each).
const endToEnd = Effect.gen(function* () {
  const pipeline = new IntelPipeline()
  const registry = new MarketRegistry((event) => pipeline.apply(event))
  const start = performance.now()
  let n = 0
  let stored = 0
  for (const frame of replayFrames(lines, new Replayer())) {
    registry.deliver(frame.events)
    if (++n % PERSIST_EVERY === 0) {
      const changes = pipeline.takeChanges()
      stored += changes.trades.length
      yield* persistIntel(changes, pipeline.takePositionChanges())
    }
  }
  registry.advance(Number.MAX_SAFE_INTEGER)
  const changes = pipeline.takeChanges()
  stored += changes.trades.length
  yield* persistIntel(changes, pipeline.takePositionChanges())
  registry.stop()
  return { ms: performance.now() - start, stored }
})
const stored = await Effect.runPromise(Effect.provide(endToEnd, TestDb as Layer.Layer<SqlClient.SqlClient>))

const rate = (ms: number) => Math.round(frames.length / (ms / 1000))
const storage = process.env["DATABASE_URL"] ? "DATABASE_URL" : "embedded PGlite"
console.log(`frames ${frames.length} (${(bytes / 1e6).toFixed(1)} MB, ${MINUTES} simulated minutes, every venue and market)`)
console.log(`JSON.parse                         ${rate(parseMs).toLocaleString("en-US")} frames/s`)
console.log(`decode → registry → pipeline        ${rate(memoryMs).toLocaleString("en-US")} frames/s  ratio ${(parseMs / memoryMs).toFixed(3)}`)
console.log(`… → store (${storage}, every ${PERSIST_EVERY} frames) ${rate(stored.ms).toLocaleString("en-US")} frames/s  ratio ${(parseMs / stored.ms).toFixed(3)}  (${stored.stored} trade rows written)`)
if (sink < 0) console.log(sink)
