// Record then replay: the recording of a live run (frames, sends, cuts) replays into exactly the
// FeedEvents the live client delivered, gaps and resyncs included; real-time replay keeps the gaps.
import { describe, expect, it } from "vitest"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { startFeeds } from "../../src/feeds/client.js"
import { parseRecordArgs, recordingTap } from "../../src/feeds/record.js"
import { parseRecording } from "../../src/feeds/recording.js"
import { Replayer, replayLines, replayTimed } from "../../src/feeds/replay.js"
import { FakeNetwork, ManualTime, testEdge } from "./harness.js"

const kalshiSnapshot = (sid: number, seq: number, ticker: string, yes: string) =>
  JSON.stringify({ type: "orderbook_snapshot", sid, seq, msg: { market_ticker: ticker, market_id: "m", yes_dollars_fp: [[yes, "10.00"]], no_dollars_fp: [["0.50", "4.00"]] } })
const kalshiDelta = (sid: number, seq: number, ticker: string, change: string) =>
  JSON.stringify({ type: "orderbook_delta", sid, seq, msg: { market_ticker: ticker, market_id: "m", price_dollars: "0.40", delta_fp: change, side: "yes", ts_ms: 5 } })
const MARKET = "0x" + "ab".repeat(32)
const pmBook = (asset: string, bid: string) =>
  JSON.stringify([{ event_type: "book", asset_id: asset, market: MARKET, bids: [{ price: bid, size: "10" }], asks: [{ price: "0.6", size: "3" }], timestamp: "1700000000000", hash: "h" }])

describe("record and replay", () => {
  it("replays a live run (cuts, a seq gap, a bad frame) into the same FeedEvents", () => {
    const time = new ManualTime()
    const network = new FakeNetwork()
    const lines: Array<string> = []
    const live: Array<FeedEvent> = []
    const client = startFeeds({
      baseUrl: "ws://sim", venues: ["venue_a", "venue_b"], sink: (events) => live.push(...events),
      edge: testEdge(time, network), tap: recordingTap((line) => lines.push(line)), markets: { venue_b: ["1", "2"] },
    })
    const link = (url: string) => {
      const found = [...network.links].reverse().find((l) => l.url === url)
      if (found === undefined) throw new Error(`no link to ${url}`)
      return found
    }
    for (const l of network.links) l.on.open()
    time.advance(5)
    link("ws://sim/ws/venue_a").frame(kalshiSnapshot(1, 1, "K", "0.40"))
    link("ws://sim/ws/venue_b").frame(pmBook("1", "0.40"))
    time.advance(7)
    link("ws://sim/ws/venue_a").frame(kalshiDelta(1, 2, "K", "3.00"))
    link("ws://sim/ws/venue_a").frame(kalshiDelta(1, 5, "K", "1.00")) // gap → get_snapshot, dropped
    link("ws://sim/ws/venue_a").frame("{not json")
    time.advance(3)
    link("ws://sim/ws/venue_a").frame(kalshiSnapshot(1, 6, "K", "0.41"))
    link("ws://sim/ws/venue_a").frame(kalshiDelta(1, 7, "K", "2.00"))
    client.cut("venue_b")
    time.advance(1000)
    link("ws://sim/ws/venue_b").on.open()
    link("ws://sim/ws/venue_b").frame(pmBook("1", "0.42"))
    time.advance(10_000) // a PING goes out
    link("ws://sim/ws/venue_b").frame("PONG")
    client.stop()

    expect(live.length).toBeGreaterThan(0)
    const recording = parseRecording(lines.join("\n"))
    expect(recording.some((l) => "event" in l && l.event === "disconnected")).toBe(true)
    expect(recording.some((l) => "sent" in l && l.sent.includes("get_snapshot"))).toBe(true)
    const replayer = new Replayer()
    expect([...replayLines(recording, replayer)]).toEqual(live)
    const health = Object.fromEntries(replayer.health().map((h) => [h.venue, h]))
    const liveHealth = Object.fromEntries(client.health().map((h) => [h.venue, h]))
    expect(health["venue_a"]?.rejected).toEqual({ "not JSON": 1 })
    expect(health["venue_a"]?.resyncs).toBe(liveHealth["venue_a"]?.resyncs)
    expect(health["venue_a"]?.gaps).toBe(1)
    expect(health["venue_b"]?.frames).toBe(liveHealth["venue_b"]?.frames)
  })

  it("paces a real-time replay by the recorded gaps divided by the speed", async () => {
    const at = (t: number, frame: string) => JSON.stringify({ t, venue: "venue_b", stream: "market", conn: "market#0", frame })
    const text = [
      JSON.stringify({ t: 1000, venue: "venue_b", stream: "market", conn: "market#0", event: "connected", url: "ws://x" }),
      at(1000, pmBook("1", "0.40")), at(3000, pmBook("1", "0.41")), at(3000, "PONG"), at(7000, pmBook("1", "0.42")),
    ].join("\n")
    const waits: Array<number> = []
    const got: Array<number> = []
    await replayTimed(parseRecording(text), (events) => got.push(...events.map((e) => e.receivedAt)), {
      speed: 2, sleep: async (ms) => void waits.push(ms),
    })
    expect(waits).toEqual([1000, 2000])
    expect(got).toEqual([1000, 3000, 7000])
  })

  it("counts a replayed frame's UTF-8 bytes, as a live socket counts the buffer it received", () => {
    const text = [
      JSON.stringify({ t: 1, venue: "venue_b", stream: "market", conn: "market#0", event: "connected", url: "ws://x" }),
      JSON.stringify({ t: 2, venue: "venue_b", stream: "market", conn: "market#0", frame: "PONG" }),
      JSON.stringify({ t: 3, venue: "venue_b", stream: "market", conn: "market#0", frame: "{\"q\":\"é€\"}" }), // 2 + 3 bytes
    ].join("\n")
    const lines = parseRecording(text)
    expect(lines.map((l) => ("frame" in l ? l.bytes : null))).toEqual([null, 4, 13])
    const replayer = new Replayer()
    for (const line of lines) replayer.step(line)
    expect(replayer.connections()[0]).toMatchObject({ frames: 2, bytes: 17 })
    // A line built by hand (no `bytes`) is measured when replayed.
    const byHand = new Replayer()
    for (const line of lines) byHand.step("frame" in line ? { t: line.t, venue: line.venue, stream: line.stream, conn: line.conn, frame: line.frame } : line)
    expect(byHand.connections()[0]).toMatchObject({ frames: 2, bytes: 17 })
  })

  it("parses the record command's arguments", () => {
    expect(parseRecordArgs(["--venue", "venue_a", "--out", "a.jsonl", "--seconds", "5"], { SIM_PORT: "9000" })).toEqual({
      venues: ["venue_a"], out: "a.jsonl", seconds: 5, url: "ws://127.0.0.1:9000",
    })
    expect(parseRecordArgs(["--venue=all", "--out=x.jsonl", "--url", "ws://h:1"])).toMatchObject({ venues: ["venue_a", "venue_b", "venue_b_us", "venue_d"], url: "ws://h:1" })
    expect(parseRecordArgs(["--venue", "nope", "--out", "x"])).toContain("--venue must be")
    expect(parseRecordArgs(["--out", "x"])).toContain("--venue is required")
    expect(parseRecordArgs(["--venue", "venue_a", "--out", "x", "--seconds", "-1"])).toContain("--seconds")
    // One line each (the usage after a semicolon), and SIM_PORT is checked as the service checks it.
    expect(parseRecordArgs(["--bogus"])).not.toContain("\n")
    expect(parseRecordArgs(["--venue", "venue_a", "--out", "x"], { SIM_PORT: "abc" })).toBe("SIM_PORT must be a TCP port from 0 to 65535")
    expect(parseRecordArgs(["--venue", "venue_a", "--out", "x"], { SIM_PORT: "65536" })).toBe("SIM_PORT must be a TCP port from 0 to 65535")
  })
})
