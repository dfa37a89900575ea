// The recent feed (src/intel/recent-feed.ts): what a node keeps of the OrderedFeed for a catch-up, by feed
// time and by count, how far back it is whole, and the overlap with a subscription taken before a snapshot.
import { Chunk } from "effect"
import { describe, expect, it } from "vitest"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { RecentFeedBuffer, Replay } from "../../src/intel/recent-feed.js"

const price = (ts: number, ref = "venue_a:C1"): MarketEvent => ({ _tag: "PriceChanged", ts, ref, yesPrice: 0.5 })

describe("the recent feed", () => {
  it("keeps windowMs of feed time behind the newest event, and says it is whole from the newest one let go", () => {
    const feed = new RecentFeedBuffer(1_000, 100)
    expect(feed.wholeSince()).toBe(Number.POSITIVE_INFINITY)
    for (const ts of [10_000, 10_500, 11_000]) feed.push(price(ts))
    expect(feed.snapshot().events.map((e) => (e as { ts: number }).ts)).toEqual([10_000, 10_500, 11_000])
    expect(feed.wholeSince()).toBe(10_000)
    // 11,000 + 1 ms: 10,000 is more than the window behind the newest.
    feed.push(price(11_001))
    expect(feed.snapshot().events.map((e) => (e as { ts: number }).ts)).toEqual([10_500, 11_000, 11_001])
    expect(feed.wholeSince()).toBe(10_000)
    // A late event (older than the newest) is kept in publish order; trimming goes by the newest time.
    feed.push(price(10_900, "venue_b:X"))
    feed.push(price(11_600))
    expect(feed.snapshot().events.map((e) => (e as { ts: number }).ts)).toEqual([11_000, 11_001, 10_900, 11_600])
    expect(feed.wholeSince()).toBe(10_500)
  })

  it("keeps at most cap events", () => {
    const feed = new RecentFeedBuffer(60_000, 3)
    for (let i = 0; i < 10_000; i++) feed.push(price(i))
    expect(feed.size).toBe(3)
    expect(feed.snapshot().events.map((e) => (e as { ts: number }).ts)).toEqual([9_997, 9_998, 9_999])
    expect(feed.wholeSince()).toBe(9_996)
  })

  it("keeps events bots do not act on in their place, at the newest time so far", () => {
    const feed = new RecentFeedBuffer(1_000, 100)
    const settled = { _tag: "TradeSettled" } as never
    feed.push(price(5_000))
    feed.push(settled)
    feed.push(price(5_500))
    expect(feed.snapshot().events).toEqual([price(5_000), settled, price(5_500)])
    // Let go with the event before it: it counts as 5,000.
    feed.push(price(6_001))
    expect(feed.snapshot().events).toEqual([price(5_500), price(6_001)])
  })

  it("is off with no window", () => {
    const feed = new RecentFeedBuffer(0, 0)
    feed.push(price(1))
    expect(feed.enabled).toBe(false)
    expect(feed.size).toBe(0)
  })

  it("keeps events without the books stamped on them, and knows each published event's place", () => {
    const feed = new RecentFeedBuffer(60_000, 2)
    const book = { ref: "venue_a:C1", asOf: 1, sides: [] } as never
    const booked: MarketEvent = { _tag: "PriceChanged", ts: 1, ref: "venue_a:C1", yesPrice: 0.5, book }
    const plain = price(2)
    feed.push(booked)
    feed.push(plain)
    feed.push(price(3))
    expect(feed.snapshot()).toEqual({ events: [plain, price(3)], last: 2 })
    feed.push(booked)
    expect(feed.snapshot().events[1]).toEqual(price(1))
    expect(feed.snapshot().events[1]).not.toHaveProperty("book")
    expect([feed.placeOf(booked), feed.placeOf(plain), feed.placeOf(price(2))]).toEqual([3, 1, undefined])
  })
})

describe("a replay of the recent feed", () => {
  const [a, b, c, d, e] = [price(1_000), price(2_000), price(3_000), price(4_000), price(5_000)]
  const replayOf = (...events: ReadonlyArray<MarketEvent>) => {
    const feed = new RecentFeedBuffer(60_000, 100)
    for (const event of events) feed.push(event)
    return new Replay(feed)
  }

  it("takes off the head of the live chunks what it held, across chunks, and nothing after", () => {
    const replay = replayOf(a, b, c)
    expect([...replay.live(Chunk.make(b))]).toEqual([])
    expect([...replay.live(Chunk.make(c, d))]).toEqual([d])
    expect([...replay.live(Chunk.make(e))]).toEqual([e])
  })

  it("passes every live chunk whole when the subscription holds none of it", () => {
    const replay = replayOf(a, b)
    expect([...replay.live(Chunk.make(c, d))]).toEqual([c, d])
    expect([...replay.live(Chunk.make(b))]).toEqual([b])
  })

  it("gives the events after a mark of their venue, and names the venues it does not reach back to", () => {
    const other = price(2_500, "venue_b:X")
    const replay = replayOf(a, b, other, c)
    expect(replay.after({ venue_a: 2_000 })).toEqual([other, c])
    expect(replay.after({ venue_a: 2_000, venue_b: 2_500 })).toEqual([c])
    expect(replay.behind({ venue_a: 999, venue_b: 1_000 })).toEqual(["venue_a"])
  })
})
