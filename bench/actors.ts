// Market actors: heap per idle market (registry entry + MarketInfo + xstate actor + empty book) with
// 50,000 of them, and ingest throughput through the registry: the recorded simulator feeds (decoded
// once, outside the timing) delivered frame by frame, and a synthetic book-heavy feed (one BookDelta
// of two levels per frame, the feed path's common case). One `send` per contract per frame.
// Run: node --expose-gc --import tsx bench/actors.ts [actors] [bookFrames]
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { MarketRegistry } from "../src/actors/markets/registry.js"
import type { FeedEvent, MarketListed } from "../src/domain/feed-events.js"
import { readRecording, replayFrames } from "../src/feeds/replay.js"

const ACTORS = Number(process.argv[2] ?? 50_000)
const BOOK_FRAMES = Number(process.argv[3] ?? 300_000)
const ROUNDS = 5

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("run with node --expose-gc")
  for (let i = 0; i < 3; i++) collect()
}
const heap = (): number => {
  gc()
  return process.memoryUsage().heapUsed
}
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US")
const T0 = 1_768_478_400_000

const listing = (i: number): MarketListed => ({
  _tag: "MarketListed", venue: "venue_a", ts: T0, receivedAt: T0, contract: `KXBENCH-26JAN15-M${i}`,
  event: `KXBENCH-26JAN15-E${i % 5_000}`, eventTitle: "Bench event", title: `Will market ${i} resolve Yes?`,
  category: "politics", kind: "us_politics",
  outcomes: [{ id: "yes", name: "Yes", label: `Outcome ${i}` }, { id: "no", name: "No", label: `Outcome ${i}` }],
  rule: `If market ${i} happens, then the market resolves to Yes.`, series: null, opensAt: T0, closesAt: T0 + 86_400_000,
  feeRate: null,
})

// ---- heap per idle actor ----
const heapPerActor = (): void => {
  const listings = Array.from({ length: ACTORS }, (_, i) => listing(i))
  const before = heap()
  let emitted = 0
  const registry = new MarketRegistry(() => void emitted++)
  for (let i = 0; i < listings.length; i += 1_000) registry.deliver(listings.slice(i, i + 1_000))
  const after = heap()
  const perMarket = (after - before) / ACTORS
  // The same MarketInfo-sized payload without an actor: what the listing itself costs.
  const infos: Array<unknown> = []
  const beforeInfos = heap()
  for (const l of listings) infos.push(JSON.parse(JSON.stringify({ ...l, ref: `venue_a:${l.contract}`, listedAt: l.ts })))
  const afterInfos = heap()
  console.log(`idle markets: ${fmt(registry.liveCount)} actors, ${fmt(emitted)} MarketOpened emitted`)
  console.log(`  heap per idle market: ${fmt(perMarket)} B (total ${fmt((after - before) / 1_048_576)} MB)`)
  console.log(`  of which its MarketInfo alone: ~${fmt((afterInfos - beforeInfos) / ACTORS)} B`)
  registry.stop()
  void infos.length
}

// ---- ingest: recorded feeds ----
const recordedFrames = (): Array<ReadonlyArray<FeedEvent>> => {
  const dir = fileURLToPath(new URL("../test/fixtures/feeds/sim/", import.meta.url))
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()
  const frames = files.flatMap((f) => [...replayFrames(readRecording(dir + f))])
  frames.sort((a, b) => a.t - b.t)
  return frames.filter((f) => f.events.length > 0).map((f) => f.events)
}

const ingest = (label: string, frames: ReadonlyArray<ReadonlyArray<FeedEvent>>, repeat: number): void => {
  const events = frames.reduce((n, f) => n + f.length, 0)
  const rates: Array<number> = []
  let sends = 0
  let emitted = 0
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint()
    for (let r = 0; r < repeat; r++) {
      const registry = new MarketRegistry(() => void emitted++)
      for (const frame of frames) registry.deliver(frame)
      sends += registry.counters.sends
      registry.stop()
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    rates.push((events * repeat) / seconds)
  }
  rates.sort((a, b) => a - b)
  const median = rates[Math.floor(rates.length / 2)] ?? 0
  console.log(`${label}: ${fmt(frames.length * repeat)} frames, ${fmt(events * repeat)} events per round`)
  console.log(`  ${fmt(median)} events/s (median of ${ROUNDS}; min ${fmt(rates[0] ?? 0)}, max ${fmt(rates[rates.length - 1] ?? 0)})`)
  console.log(`  sends per event: ${(sends / (events * repeat * ROUNDS)).toFixed(3)}, MarketEvents emitted per event: ${(emitted / (events * repeat * ROUNDS)).toFixed(3)}`)
}

// ---- ingest: book-heavy synthetic feed ----
const bookFrames = (): Array<ReadonlyArray<FeedEvent>> => {
  const markets = 50
  let seed = 20260115
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  const frames: Array<ReadonlyArray<FeedEvent>> = [Array.from({ length: markets }, (_, i) => listing(i))]
  for (let i = 0; i < BOOK_FRAMES; i++) {
    const m = Math.floor(rand() * markets)
    const price = Math.round(1 + rand() * 98) / 100
    const size = rand() < 0.3 ? 0 : Math.round(rand() * 5_000)
    const t = T0 + i * 10
    frames.push([{
      _tag: "BookDelta", venue: "venue_a", ts: t, receivedAt: t, contract: `KXBENCH-26JAN15-M${m}`, mode: "set",
      changes: [
        { outcome: "yes", side: "bid", price, size },
        { outcome: "no", side: "ask", price: Math.round((1 - price) * 100) / 100, size },
      ],
    }])
  }
  return frames
}

heapPerActor()
const recorded = recordedFrames()
ingest("recorded simulator feeds (all venues)", recorded, 20)
ingest("synthetic book deltas (2 levels a frame, 50 markets)", bookFrames(), 1)
