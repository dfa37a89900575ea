// Replaying a recorded feed through the market registry twice gives byte-identical MarketEvent
// sequences: the registry reads time only from the events (the join window and the grace period are
// feed time). Also checks what each simulator recording should produce.
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { readRecording, replayFrames, type ReplayedFrame } from "../../src/feeds/replay.js"

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/feeds/sim/${name}.jsonl`, import.meta.url))
const RECORDINGS = ["venue_a", "venue_a-gap", "venue_b", "venue_b-cut", "venue_b_us", "venue_d"] as const

const framesOf = (names: ReadonlyArray<string>): Array<ReplayedFrame> => {
  const frames = names.flatMap((name) => [...replayFrames(readRecording(fixture(name)))])
  // Several recordings at once: receive order, ties kept in file order (sort is stable).
  return names.length > 1 ? frames.sort((a, b) => a.t - b.t) : frames
}

const run = (frames: ReadonlyArray<ReplayedFrame>) => {
  const events: Array<MarketEvent> = []
  const registry = new MarketRegistry((e) => void events.push(e), { graceMs: 60_000 })
  for (const frame of frames) if (frame.events.length > 0) registry.deliver(frame.events)
  const last = frames[frames.length - 1]?.t ?? 0
  registry.advance(last + 3_600_000)
  return { events, registry, json: events.map((e) => JSON.stringify(e)).join("\n") }
}

describe("market registry replay", () => {
  for (const name of RECORDINGS) {
    it(`${name}: the same recording twice gives byte-identical MarketEvents`, () => {
      const frames = framesOf([name])
      const first = run(frames)
      const second = run(frames)
      expect(first.events.length).toBeGreaterThan(0)
      expect(second.json).toBe(first.json)
      expect(first.registry.counters.sends).toBeLessThanOrEqual(frames.reduce((n, f) => n + f.events.length, 0))
    })
  }

  it("all recordings interleaved: identical twice, and what the venues should produce", () => {
    const frames = framesOf(RECORDINGS)
    const first = run(frames)
    expect(run(frames).json).toBe(first.json)
    const count = (tag: MarketEvent["_tag"]) => first.events.filter((e) => e._tag === tag).length
    expect(count("MarketOpened")).toBeGreaterThan(100)
    expect(count("BookChanged")).toBeGreaterThan(100)
    expect(count("PriceChanged")).toBeGreaterThan(10)
    // The recordings settle contracts that closed before they began and were never listed in them:
    // those settlements are held as events of unknown contracts, not guessed at.
    expect(first.registry.heldCounters.held).toBeGreaterThan(0)
    const trades = first.events.flatMap((e) => (e._tag === "TradePrinted" ? [e] : []))
    // venue_b trades carry their trader through the join (or come from the trades feed itself).
    const venueB = trades.filter((t) => t.ref.startsWith("venue_b:"))
    expect(venueB.length).toBeGreaterThan(0)
    expect(venueB.every((t) => t.trader !== null)).toBe(true)
    expect(trades.filter((t) => t.ref.startsWith("venue_d:")).every((t) => t.trader === null)).toBe(true)
    expect(trades.filter((t) => t.ref.startsWith("venue_a:")).some((t) => t.trader !== null)).toBe(true)
    // Every settled market was retired after the grace period.
    expect(first.registry.counters.retired).toBe(new Set(first.events.filter((e) => e._tag === "MarketSettled" || e._tag === "MarketVoided").map((e) => (e as { ref: string }).ref)).size)
    expect(first.registry.counters.unknownWinner).toBe(0)
    expect(first.registry.counters.unknownOutcome).toBe(0)
  })
})
