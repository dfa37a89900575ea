// The feed client against the real simulator: every venue decodes with zero rejections, books equal
// the simulator's after a cut and after a lost Kalshi delta, and the client's own recording replays
// into exactly the FeedEvents the live run delivered.
import { afterEach, describe, expect, it } from "vitest"
import { VENUES } from "../../src/domain/enums.js"
import { parseRecording } from "../../src/feeds/recording.js"
import { Replayer, replayLines } from "../../src/feeds/replay.js"
import { bookMismatches, booksFrom, someMarkets, startSimFeed, watchedContracts, type SimFeedRun } from "../support/sim-feeds.js"

let run: SimFeedRun | null = null
afterEach(async () => {
  await run?.close()
  run = null
})

describe("feed client on the simulator", () => {
  it("keeps every venue's books equal to the simulator's through cuts and a seq gap; the recording replays the same", async () => {
    const markets = someMarkets(2)
    let dropped = 0
    let armed = false
    run = await startSimFeed({
      seed: 11, venues: VENUES, markets, record: true,
      drop: (venue, text) => {
        if (!armed || venue !== "venue_d" || dropped > 0 || !text.startsWith('{"type":"orderbook_delta"')) return false
        dropped += 1
        return true
      },
    })
    const r = run
    await r.step(20)
    r.client.cut("venue_a")
    r.client.cut("venue_b")
    r.client.cut("venue_b_us")
    armed = true
    await r.step(40)
    expect(dropped).toBe(1)

    const chosen = markets(r.sim)
    for (const venue of VENUES) {
      expect(bookMismatches(booksFrom(r.events, venue), watchedContracts(r, venue, chosen)), venue).toEqual([])
    }
    const health = Object.fromEntries(r.client.health().map((h) => [h.venue, h]))
    for (const venue of VENUES) expect(health[venue]?.rejected, venue).toEqual({})
    expect(health["venue_a"]?.reconnects).toBe(1)
    expect(health["venue_d"]).toMatchObject({ gaps: 1, reconnects: 0 })
    expect(health["venue_d"]?.resyncs).toBeGreaterThanOrEqual(1)

    const replayer = new Replayer()
    expect([...replayLines(parseRecording(r.recording("arrival").join("\n")), replayer)]).toEqual(r.events)
    const replayed = Object.fromEntries(replayer.health().map((h) => [h.venue, h]))
    for (const venue of VENUES) {
      expect(replayed[venue]?.resyncs, venue).toBe(health[venue]?.resyncs)
      expect(replayed[venue]?.events, venue).toBe(health[venue]?.events)
    }
  })

  it("follows every market when given none: books of all open contracts match", async () => {
    run = await startSimFeed({ seed: 5, venues: ["venue_b", "venue_a"] })
    const r = run
    await r.step(12)
    r.client.cut("venue_b")
    await r.step(12)
    for (const venue of ["venue_b", "venue_a"] as const) {
      const watched = watchedContracts(r, venue)
      expect(watched.length).toBeGreaterThan(5)
      expect(bookMismatches(booksFrom(r.events, venue), watched), venue).toEqual([])
    }
  })
})
