// Regenerates the committed simulator recordings in test/fixtures/feeds/sim/ (format:
// src/feeds/recording.ts). Each is the feed client's own recording of a seeded simulator run on
// simulated time, so the files are a function of this script, the simulator and the client:
//
//   npx tsx test/support/record-sim-fixtures.ts [outDir]      (default test/fixtures/feeds/sim)
//
// <venue>.jsonl        three minutes (venue_b_us: five) of one venue, two markets' books (Kalshi
//                      trade/ticker/lifecycle and venue_b listings cover every market), seed 42.
// venue_a-gap.jsonl    venue_a for one minute with the connection cut at 20 s (reconnect, fresh
//                      subscription) and one book delta lost at ~40 s (seq gap → get_snapshot).
// venue_b-cut.jsonl    venue_b for one minute with the market connection cut at 20 s (resubscribe
//                      → fresh `book` snapshots).
// Re-run after a change to the simulator's wire output or to what the client sends; the fixture
// tests (test/feeds/fixtures.test.ts) then check every file still replays with zero rejections.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { Venue } from "../../src/domain/enums.js"
import { someMarkets, startSimFeed, type SimFeedRun } from "./sim-feeds.js"

const STEPS_PER_MINUTE = 240 // the model's live step is 250 ms

export interface FixtureSpec {
  readonly file: string
  readonly venue: Venue
  readonly minutes: number
  readonly seed: number
  /** Step at which every connection of the venue is cut (the client reconnects by itself). */
  readonly cutAt?: number
  /** Step after which the next book delta is lost on the way (a Kalshi seq gap). */
  readonly dropDeltaAfter?: number
}

export const FIXTURES: ReadonlyArray<FixtureSpec> = [
  { file: "venue_a.jsonl", venue: "venue_a", minutes: 3, seed: 42 },
  { file: "venue_b.jsonl", venue: "venue_b", minutes: 3, seed: 42 },
  { file: "venue_b_us.jsonl", venue: "venue_b_us", minutes: 5, seed: 42 },
  { file: "venue_d.jsonl", venue: "venue_d", minutes: 3, seed: 42 },
  { file: "venue_a-gap.jsonl", venue: "venue_a", minutes: 1, seed: 42, cutAt: 80, dropDeltaAfter: 160 },
  { file: "venue_b-cut.jsonl", venue: "venue_b", minutes: 1, seed: 42, cutAt: 80 },
]

const isDelta = (text: string) => text.startsWith('{"type":"orderbook_delta"')

/** Runs one spec and returns the recording's text. */
export const recordFixture = async (spec: FixtureSpec): Promise<string> => {
  let step = 0
  let dropped = false
  const run: SimFeedRun = await startSimFeed({
    seed: spec.seed,
    venues: [spec.venue],
    historyDays: 1,
    markets: someMarkets(2),
    record: true,
    drop: (_venue, text) => {
      if (spec.dropDeltaAfter === undefined || dropped || step < spec.dropDeltaAfter || !isDelta(text)) return false
      dropped = true
      return true
    },
  })
  try {
    for (step = 0; step < spec.minutes * STEPS_PER_MINUTE; step++) {
      if (step === spec.cutAt) {
        run.client.cut(spec.venue)
        await run.settle()
      }
      await run.step(1)
    }
    if (spec.dropDeltaAfter !== undefined && !dropped) throw new Error(`${spec.file}: no delta to drop`)
    return `${run.recording().join("\n")}\n`
  } finally {
    await run.close()
  }
}

const main = async (): Promise<void> => {
  const outDir = process.argv[2] ?? join("test", "fixtures", "feeds", "sim")
  mkdirSync(outDir, { recursive: true })
  for (const spec of FIXTURES) {
    const text = await recordFixture(spec)
    writeFileSync(join(outDir, spec.file), text)
    console.log(`${spec.file}: ${text.split("\n").length - 1} lines, ${Buffer.byteLength(text)} bytes`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main()
