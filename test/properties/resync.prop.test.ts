// Resync property. Invariants:
//   1. For any simulator seed, any steps at which a venue's connections are cut (and resumed by the
//      client's own backoff), and any Kalshi book deltas lost on the way, once the feed is quiet the
//      client's books — every BookSnapshot / BookDelta applied to src/actors/markets/book.ts — equal
//      the simulator's own books, for every open contract of every venue, both outcomes, both sides.
//   2. No frame of the simulator is ever rejected, and the client's recording of the run replays
//      into the very events the live run delivered.
// Runs on the simulator's manual clock (the client's clock and timers follow the model), so a
// counterexample replays exactly from its seed and actions.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { VENUES, type Venue } from "../../src/domain/enums.js"
import { parseRecording } from "../../src/feeds/recording.js"
import { replayLines } from "../../src/feeds/replay.js"
import { bookMismatches, booksFrom, startSimFeed, watchedContracts } from "../support/sim-feeds.js"

const STEPS = 16
/** Quiet steps at the end: a cut at the last step still reconnects, a lost delta still shows up. */
const TAIL = 6
const KALSHI = ["venue_a", "venue_d"] as const

const Scenario = fc.record({
  seed: fc.integer({ min: 1, max: 100_000 }),
  cuts: fc.array(fc.record({ step: fc.integer({ min: 0, max: STEPS - 1 }), venue: fc.constantFrom(...VENUES) }), { maxLength: 4 }),
  drops: fc.array(fc.record({ step: fc.integer({ min: 0, max: STEPS - 1 }), venue: fc.constantFrom(...KALSHI) }), { maxLength: 3 }),
})
type Scenario = typeof Scenario extends fc.Arbitrary<infer A> ? A : never

const runScenario = async (scenario: Scenario): Promise<void> => {
  const pending = new Map<Venue, number>()
  const run = await startSimFeed({
    seed: scenario.seed, venues: VENUES, record: true,
    drop: (venue, text) => {
      const n = pending.get(venue) ?? 0
      if (n === 0 || !text.startsWith('{"type":"orderbook_delta"')) return false
      pending.set(venue, n - 1)
      return true
    },
  })
  try {
    for (let step = 0; step < STEPS + TAIL; step++) {
      for (const cut of scenario.cuts) if (cut.step === step) run.client.cut(cut.venue)
      for (const drop of scenario.drops) if (drop.step === step) pending.set(drop.venue, (pending.get(drop.venue) ?? 0) + 1)
      await run.step(1)
    }
    pending.clear()
    await run.step(2)
    for (const venue of VENUES) {
      expect(bookMismatches(booksFrom(run.events, venue), watchedContracts(run, venue)), venue).toEqual([])
    }
    for (const h of run.client.health()) expect(h.rejected, h.venue).toEqual({})
    expect([...replayLines(parseRecording(run.recording("arrival").join("\n")))]).toEqual(run.events)
  } finally {
    await run.close()
  }
}

describe("resync", () => {
  it("rebuilds the simulator's books after any cuts and lost Kalshi deltas", async () => {
    await fc.assert(fc.asyncProperty(Scenario, runScenario), { numRuns: 15 })
  }, 120_000)

  it("rebuilds books after a cut of every venue at once and a lost delta on each Kalshi venue", async () => {
    await runScenario({
      seed: 42,
      cuts: VENUES.map((venue) => ({ step: 3, venue })),
      drops: [{ step: 5, venue: "venue_a" }, { step: 5, venue: "venue_d" }],
    })
  }, 60_000)
})
