// venue_b (Polymarket) conversation: subscribe and PING, resubscribe after every reconnect (fresh
// book snapshots are the resync), assets sharded by the per-connection cap, listings followed and
// delivered once, and the trades feed delivered beside the market channel.
import { describe, expect, it } from "vitest"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { VenueBFeed } from "../../src/feeds/venue_b/socket.js"
import { venueBUsSubscribe } from "../../src/feeds/venue_b_us/socket.js"
import { FakeNetwork, ManualTime, testEdge } from "./harness.js"

const MARKET = "0x" + "ab".repeat(32)
const book = (asset: string, bid: string) =>
  JSON.stringify({ event_type: "book", asset_id: asset, market: MARKET, bids: [{ price: bid, size: "10" }], asks: [], timestamp: "1700000000000", hash: "h" })
const newMarket = (condition: string, a: string, b: string) =>
  JSON.stringify({ event_type: "new_market", id: "1", question: "Q?", market: condition, assets_ids: [a, b], outcomes: ["Yes", "No"], timestamp: "1700000000000" })

const setup = (assets: ReadonlyArray<string>, cap = 500) => {
  const time = new ManualTime()
  const network = new FakeNetwork()
  const delivered: Array<FeedEvent> = []
  const feed = new VenueBFeed({
    marketUrl: "ws://sim/ws/venue_b", tradesUrl: "ws://sim/ws/venue_b/trades", assets,
    sink: (events) => delivered.push(...events), edge: testEdge(time, network), maxAssetsPerConnection: cap,
  })
  feed.start()
  return { time, network, delivered, feed }
}

describe("venue_b feed", () => {
  it("subscribes its assets with custom features, pings every 10 s, and resubscribes after a reconnect", () => {
    const { time, network, delivered, feed } = setup(["1", "2"])
    const market = network.links[0]
    if (market === undefined) throw new Error("no market link")
    market.on.open()
    expect(JSON.parse(market.sent[0] ?? "null")).toEqual({ assets_ids: ["1", "2"], type: "market", custom_feature_enabled: true })
    market.frame(book("1", "0.40"))
    time.advance(10_000)
    expect(market.sent[1]).toBe("PING")
    market.on.closed("closed 1006")
    time.advance(250)
    const again = network.links[network.links.length - 1]
    if (again === undefined || again === market) throw new Error("no reconnect")
    again.on.open()
    expect(JSON.parse(again.sent[0] ?? "null")).toEqual({ assets_ids: ["1", "2"], type: "market", custom_feature_enabled: true })
    again.frame(book("1", "0.41"))
    expect(delivered.map((e) => e._tag)).toEqual(["BookSnapshot", "BookSnapshot"])
    const c = feed.sockets()[0]?.counters.snapshot()
    expect(c).toMatchObject({ reconnects: 1, resyncs: 1 })
  })

  it("spreads assets over connections by the cap; only the first delivers listings", () => {
    const { network, delivered, feed } = setup(["1", "2", "3", "4", "5"], 2)
    expect(feed.assignment()).toEqual([["1", "2"], ["3", "4"], ["5"]])
    expect(network.links.map((l) => l.url)).toEqual([
      "ws://sim/ws/venue_b", "ws://sim/ws/venue_b", "ws://sim/ws/venue_b", "ws://sim/ws/venue_b/trades",
    ])
    for (const link of network.links) link.on.open()
    expect(JSON.parse(network.links[1]?.sent[0] ?? "null")).toEqual({ assets_ids: ["3", "4"], type: "market", custom_feature_enabled: false })
    const listing = newMarket("0x" + "cd".repeat(32), "6", "7")
    network.links[0]?.frame(listing)
    network.links[1]?.frame(listing)
    expect(delivered.filter((e) => e._tag === "MarketListed")).toHaveLength(1)
    // "5" shares connection 3 with room for one: the pair needs a new connection.
    expect(feed.assignment()).toEqual([["1", "2"], ["3", "4"], ["5"], ["6", "7"]])
    const fresh = network.links[network.links.length - 1]
    fresh?.on.open()
    expect(JSON.parse(fresh?.sent[0] ?? "null")).toEqual({ assets_ids: ["6", "7"], type: "market", custom_feature_enabled: false })
  })

  it("adds a listing's tokens to an open connection with room", () => {
    const { network, feed } = setup(["1"], 500)
    network.links[0]?.on.open()
    network.links[0]?.frame(newMarket("0x" + "cd".repeat(32), "6", "7"))
    expect(feed.assignment()).toEqual([["1", "6", "7"]])
    expect(JSON.parse(network.links[0]?.sent[1] ?? "null")).toEqual({ assets_ids: ["6", "7"], operation: "subscribe", custom_feature_enabled: true })
  })

  it("delivers the trades feed's attributed trades beside the market channel", () => {
    const { network, delivered } = setup(["1"])
    const trades = network.links[1]
    trades?.on.open()
    trades?.frame(JSON.stringify({
      proxyWallet: "0x" + "1".repeat(40), side: "BUY", asset: "1", conditionId: MARKET, size: 100, price: 0.4,
      timestamp: 1_700_000_000, title: "Q?", outcome: "Yes", outcomeIndex: 0, name: "whale", pseudonym: "Big-Fish",
      transactionHash: "0x" + "9".repeat(64),
    }))
    expect(delivered).toMatchObject([{ _tag: "TradeAttributed", trader: { name: "whale" }, txId: "0x" + "9".repeat(64) }])
  })
})

describe("venue_b_us subscriptions", () => {
  it("chunks market slugs by 100 per subscription, per type", () => {
    const slugs = Array.from({ length: 150 }, (_, i) => `m-${i}`)
    const frames = venueBUsSubscribe(slugs).map((s) => JSON.parse(s))
    expect(frames.map((f) => [f.subscribe.requestId, f.subscribe.subscriptionType, f.subscribe.marketSlugs.length])).toEqual([
      ["md-1", "SUBSCRIPTION_TYPE_MARKET_DATA", 100], ["md-2", "SUBSCRIPTION_TYPE_MARKET_DATA", 50],
      ["tr-1", "SUBSCRIPTION_TYPE_TRADE", 100], ["tr-2", "SUBSCRIPTION_TYPE_TRADE", 50],
    ])
  })
})
