import { describe, expect, it } from "vitest"
import {
  aClose, aDelta, anAttribution, aListing, aPrint, aReschedule, aSettlement, aSnapshot, aTicker, aVoid, collector,
} from "../../../test/actors/market-builders.js"
import { MarketRegistry } from "./registry.js"

const HOUR = 3_600_000

describe("MarketRegistry", () => {
  it("spawns on a listing and treats a repeated listing as an upsert", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    registry.deliver([aListing({ contract: "C1", t: 100, event: "E1" })])
    registry.deliver([aListing({ contract: "C1", t: 200, event: "E1" })])
    registry.deliver([aListing({ contract: "C1", t: 300, event: "E1", title: "New title" })])
    expect(out.tags()).toEqual(["MarketOpened"])
    expect(registry.info("venue_a:C1")).toMatchObject({ title: "New title", listedAt: 100, event: "venue_a:event:E1" })
    expect(registry.counters.spawned).toBe(1)
    expect(registry.contractsOfEvent("venue_a:event:E1")).toEqual(["venue_a:C1"])
    expect(registry.openRefs()).toEqual(["venue_a:C1"])
  })

  it("keeps an event's contracts in listing order (time, then ref), as a restart restores them, whatever the announcement order", () => {
    const registry = new MarketRegistry(collector().sink)
    registry.deliver([aListing({ contract: "E-C", t: 100, event: "E" }), aListing({ contract: "E-B", t: 100, event: "E" })])
    registry.deliver([aListing({ contract: "E-A", t: 200, event: "E" })])
    registry.deliver([aListing({ contract: "E-0", t: 50, event: "E" })]) // announced late, listed earlier (a history row)
    expect(registry.contractsOfEvent("venue_a:event:E")).toEqual(["venue_a:E-0", "venue_a:E-B", "venue_a:E-C", "venue_a:E-A"])
    const restored = new MarketRegistry(collector().sink)
    restored.restore(registry.records().sort((a, b) => a.info.listedAt - b.info.listedAt || (a.info.ref < b.info.ref ? -1 : 1)))
    expect(restored.contractsOfEvent("venue_a:event:E")).toEqual(registry.contractsOfEvent("venue_a:event:E"))
  })

  it("a new close time updates the listing and its stored record, before the listing too, and after retirement", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink, { graceMs: HOUR })
    registry.deliver([aReschedule({ contract: "C1", t: 50, closesAt: 9_000 })]) // before its listing: held
    expect(registry.info("venue_a:C1")).toBeNull()
    registry.deliver([aListing({ contract: "C1", t: 100 })])
    expect(registry.info("venue_a:C1")?.closesAt).toBe(9_000)
    registry.drainChanges()
    registry.deliver([aReschedule({ contract: "C1", t: 200, closesAt: 9_000 })]) // the same time: nothing changes
    expect(registry.drainChanges()).toEqual([])
    registry.deliver([aReschedule({ contract: "C1", t: 300, closesAt: 12_000 })])
    expect(registry.info("venue_a:C1")).toMatchObject({ closesAt: 12_000, listedAt: 100 })
    expect(registry.drainChanges().map((r) => [r.info.ref, r.info.closesAt])).toEqual([["venue_a:C1", 12_000]])
    registry.deliver([aVoid({ contract: "C1", t: 400 })])
    registry.advance(400 + HOUR)
    expect(registry.counters.retired).toBe(1)
    registry.drainChanges()
    registry.deliver([aReschedule({ contract: "C1", t: 500 + HOUR, closesAt: 15_000 })])
    expect(registry.record("venue_a:C1")).toMatchObject({ status: "void", info: { closesAt: 15_000 } })
    expect(registry.drainChanges().map((r) => r.info.closesAt)).toEqual([15_000])
    expect(out.tags()).toEqual(["MarketOpened", "MarketVoided"])
  })

  it("stamps the trades and price changes a follower watches with a copy of their book as the feed batch ends", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    registry.deliver([aListing({ contract: "C1" }), aListing({ contract: "C2" }), aSnapshot({ contract: "C1", t: 1, asks: [[0.5, 100], [0.6, 100]] })])
    registry.deliver([aSnapshot({ contract: "C2", t: 1, asks: [[0.4, 10]] })])
    const undo = registry.watchBooks((e) => e.ref === "venue_a:C1")
    out.events.length = 0
    // The print, then in the same batch the ask it took leaves the book: the stamp is the book at the batch's end.
    registry.deliver([
      aPrint({ contract: "C1", t: 2, price: 0.5, contracts: 100 }),
      aDelta({ contract: "C1", t: 2, changes: [["yes", "ask", 0.5, 0]] }),
      aPrint({ contract: "C2", t: 2, price: 0.4, contracts: 1 }),
    ])
    const booked = out.events.filter((e) => e._tag === "TradePrinted" || e._tag === "PriceChanged")
    expect(booked.map((e) => [e._tag, e.ref, "book" in e])).toEqual([
      ["TradePrinted", "venue_a:C1", true], ["PriceChanged", "venue_a:C1", true],
      ["TradePrinted", "venue_a:C2", false], ["PriceChanged", "venue_a:C2", false],
    ])
    const [trade, price] = booked as Array<{ readonly book?: import("./registry.js").BookView }>
    expect(trade?.book?.sides[0].asks).toEqual([{ price: 0.6, size: 100 }])
    expect(price?.book).toBe(trade?.book) // one copy per contract per batch
    // A copy: later changes to the book do not show in it.
    registry.deliver([aDelta({ contract: "C1", t: 3, changes: [["yes", "ask", 0.6, 0]] })])
    expect(trade?.book?.sides[0].asks).toEqual([{ price: 0.6, size: 100 }])
    expect(registry.book("venue_a:C1")?.sides[0].asks).toEqual([])
    // Unwatched: no book again.
    undo()
    out.events.length = 0
    registry.deliver([aPrint({ contract: "C1", t: 4, price: 0.7, contracts: 1 })])
    expect(out.events.some((e) => "book" in e)).toBe(false)
    expect(out.tags()).toEqual(["TradePrinted", "PriceChanged"])
  })

  it("sends once per contract per batch, whatever the number of levels or events", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    registry.deliver([aListing({ contract: "C1" }), aListing({ contract: "C2" })])
    const sends = registry.counters.sends
    const levels = Array.from({ length: 200 }, (_, i) => [(10 + i) / 1_000, 10] as const)
    registry.deliver([
      aSnapshot({ contract: "C1", t: 10, bids: levels, asks: [[0.9, 5]] }),
      aDelta({ contract: "C1", t: 11, changes: [["yes", "bid", 0.5, 1], ["no", "ask", 0.5, 1]] }),
      aSnapshot({ contract: "C2", t: 12, bids: [[0.3, 1]], asks: [[0.4, 1]] }),
      aPrint({ contract: "C1", t: 13, price: 0.55 }),
    ])
    expect(registry.counters.sends - sends).toBe(2)
    expect(registry.book("venue_a:C1", 2)?.sides[0]).toMatchObject({
      bids: [{ price: 0.5, size: 1 }, { price: 0.209, size: 10 }],
      bestAsk: { price: 0.9, size: 5 },
    })
    expect(registry.lastPrice("venue_a:C1")).toBe(0.55)
    expect(registry.yesPrice("venue_a:C2")).toBe(0.35)
  })

  it("takes a history backfill's last trade where newer than its own, and keeps its own where newer", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    const history = new MarketRegistry(collector().sink)
    registry.deliver([aListing({ contract: "C1" }), aListing({ contract: "C2" })])
    registry.deliver([aSnapshot({ contract: "C1", t: 10, bids: [[0.3, 1]], asks: [[0.4, 1]] }), aPrint({ contract: "C2", t: 50, price: 0.6 })])
    registry.drainChanges()
    history.deliver([aListing({ contract: "C1" }), aListing({ contract: "C2" }), aListing({ contract: "C3" })])
    history.deliver([aPrint({ contract: "C1", t: 20, price: 0.02 }), aPrint({ contract: "C2", t: 40, price: 0.9 }), aPrint({ contract: "C3", t: 20, price: 0.5 })])
    expect(registry.yesPrice("venue_a:C1")).toBe(0.35)
    expect(registry.bars("venue_a:C1", 0, HOUR)).toMatchObject([{ close: 0.35, trades: 0 }])
    const emitted = out.events.length
    registry.adoptHistory(history.drainChanges())
    expect(registry.yesPrice("venue_a:C1")).toBe(0.02)
    expect(registry.record("venue_a:C1")).toMatchObject({ lastPrice: 0.02, lastTradeAt: 20 })
    expect(registry.yesPrice("venue_a:C2")).toBe(0.6)
    expect(registry.record("venue_a:C3")).toBeNull()
    expect(registry.drainChanges().map((r) => r.info.ref)).toEqual(["venue_a:C1"])
    // C1 had priced itself by its book's mid: the bus hears the trade's price again, at the registry's feed
    // time, and the mid-only bar is gone (it would stand over history's bar of that minute).
    expect(out.events.slice(emitted)).toEqual([{ _tag: "PriceChanged", ts: 50, ref: "venue_a:C1", yesPrice: 0.02 }])
    expect(registry.bars("venue_a:C1", 0, HOUR)).toEqual([])
  })

  it("at the end of history, takes the markets only history knows: an open one with its last trade, a settled one as a record", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    const history = new MarketRegistry(collector().sink)
    registry.deliver([aListing({ contract: "C1" })])
    registry.deliver([aPrint({ contract: "C1", t: 50, price: 0.6 })])
    history.deliver([aListing({ contract: "C1" }), aListing({ contract: "C4" }), aListing({ contract: "C5" })])
    history.deliver([
      aPrint({ contract: "C1", t: 20, price: 0.1 }), aPrint({ contract: "C4", t: 20, price: 0.88 }), aPrint({ contract: "C5", t: 21, price: 0.3 }),
      aSettlement({ contract: "C5", winner: "yes", t: 22 }),
    ])
    registry.drainChanges()
    out.events.length = 0
    registry.takeHistory(history.records())
    // The open one is news to the followers (bots trade only markets they heard open).
    expect(out.events.filter((e) => e._tag === "MarketOpened").map((e) => e._tag === "MarketOpened" && e.market.ref)).toEqual(["venue_a:C4"])
    expect(registry.yesPrice("venue_a:C1")).toBe(0.6) // its own trade is newer
    expect(registry.yesPrice("venue_a:C4")).toBe(0.88)
    expect(registry.status("venue_a:C4")).toBe("open")
    expect(registry.status("venue_a:C5")).toBe("settled")
    expect(registry.info("venue_a:C5")?.ref).toBe("venue_a:C5")
    expect(registry.drainChanges()).toEqual([]) // history stored them already
    // The live feed goes on from there.
    registry.deliver([aListing({ contract: "C4" }), aPrint({ contract: "C4", t: 30, price: 0.5 })])
    expect(registry.yesPrice("venue_a:C4")).toBe(0.5)
  })

  it("takes history's ending of a market it has open (closed, settled or voided while the service was down) and says so on the bus", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    const history = new MarketRegistry(collector().sink)
    registry.deliver([aListing({ contract: "S1" }), aListing({ contract: "S2" }), aListing({ contract: "S3" }), aListing({ contract: "S4" })])
    registry.deliver([aPrint({ contract: "S1", t: 50, price: 0.6 })])
    history.deliver([aListing({ contract: "S1" }), aListing({ contract: "S2" }), aListing({ contract: "S3" }), aListing({ contract: "S4" })])
    history.deliver([
      aPrint({ contract: "S1", t: 60, price: 0.9 }), aSettlement({ contract: "S1", winner: "yes", t: 70 }),
      aVoid({ contract: "S2", t: 71 }), aClose({ contract: "S3", t: 72 }),
    ])
    const emitted = out.events.length
    registry.takeHistory(history.records())
    expect(["S1", "S2", "S3", "S4"].map((c) => registry.status(`venue_a:${c}`))).toEqual(["settled", "void", "closed", "open"])
    expect(registry.record("venue_a:S1")).toMatchObject({ winner: { id: "yes" }, settledAt: 70, lastPrice: 0.9 })
    expect(out.events.slice(emitted).map((e) => e._tag).filter((tag) => tag !== "PriceChanged")).toEqual(["MarketSettled", "MarketVoided", "MarketClosed"])
    // Taken again (the next round of a backfill): nothing moves twice.
    const after = out.events.length
    registry.adoptHistory(history.records())
    expect(out.events.length).toBe(after)
  })

  it("resolves trades and settlements to sides; unknown outcomes and winners are counted and ignored", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    registry.deliver([aListing({ contract: "C1" })])
    registry.deliver([aPrint({ contract: "C1", outcome: "maybe", t: 5 }), aSettlement({ contract: "C1", winner: "maybe", t: 6 })])
    registry.deliver([aPrint({ contract: "C1", outcome: "no", price: 0.25, contracts: 4, t: 7, trader: { id: "bob", name: "bob" } })])
    expect(registry.counters).toMatchObject({ unknownOutcome: 1, unknownWinner: 1 })
    expect(registry.status("venue_a:C1")).toBe("open")
    expect(out.events.find((e) => e._tag === "TradePrinted")).toEqual({
      _tag: "TradePrinted", ts: 7, ref: "venue_a:C1", tradeId: "tr-7", txId: null,
      side: { id: "no", name: "No", label: "No" }, action: "buy", price: 0.25, contracts: 4, usd: 1,
      trader: { id: "bob", name: "bob" },
    })
    expect(registry.yesPrice("venue_a:C1")).toBe(0.75)
  })

  it("holds events of a contract not listed yet and replays them after its listing", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink)
    registry.deliver([aSnapshot({ contract: "C9", t: 1, bids: [[0.2, 1]], asks: [[0.3, 1]] })])
    registry.deliver([aPrint({ contract: "C9", t: 2, price: 0.25 })])
    expect(out.events).toEqual([])
    expect(registry.heldCount).toBe(1)
    registry.deliver([aListing({ contract: "C9", t: 3 })])
    expect(out.tags()).toEqual(["MarketOpened", "BookChanged", "PriceChanged", "TradePrinted"])
    expect(registry.lastPrice("venue_a:C9")).toBe(0.25)
    expect(registry.heldCount).toBe(0)
  })

  it("bounds what it holds: per contract and in contracts, the oldest dropped and counted", () => {
    const registry = new MarketRegistry(() => {}, { unknownPerContract: 2, unknownContracts: 2 })
    registry.deliver([1, 2, 3].map((t) => aPrint({ contract: "A", t })))
    registry.deliver([aPrint({ contract: "B", t: 4 }), aPrint({ contract: "C", t: 5 })])
    expect(registry.heldCounters).toEqual({ held: 5, dropped: 3 })
    expect(registry.heldCount).toBe(2)
  })

  it("retires settled and void actors a grace period of feed time later, keeping a record for reads", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink, { graceMs: HOUR })
    registry.deliver([aListing({ contract: "S", t: 0 }), aListing({ contract: "V", t: 0 }), aListing({ contract: "O", t: 0 })])
    registry.deliver([aPrint({ contract: "S", t: 10, price: 0.8 })])
    registry.deliver([aClose({ contract: "S", t: 1_000 }), aSettlement({ contract: "S", winner: "yes", t: 1_000 }), aVoid({ contract: "V", t: 1_000 })])
    registry.deliver([aSettlement({ contract: "S", winner: "yes", t: 1_500 })]) // Kalshi's second settlement frame
    expect(out.tags().filter((t) => t === "MarketSettled")).toHaveLength(1)
    registry.deliver([aTicker({ contract: "O", t: HOUR + 999, price: 0.5 })])
    expect(registry.liveCount).toBe(3)
    registry.deliver([aTicker({ contract: "O", t: HOUR + 1_000, price: 0.51 })])
    expect(registry.liveCount).toBe(1)
    expect(registry.counters.retired).toBe(2)
    expect(registry.record("venue_a:S")).toMatchObject({ status: "settled", winner: { id: "yes" }, lastPrice: 0.8, settledAt: 1_000, closedAt: 1_000 })
    expect(registry.status("venue_a:V")).toBe("void")
    expect(registry.book("venue_a:S")?.sides[0].bids).toEqual([])
    // Its price bars, not drained before it retired, still reach the store (which serves its history).
    expect(registry.bars("venue_a:S", 0, HOUR)).toEqual([])
    expect(registry.drainBars().filter((c) => c.ref === "venue_a:S")).toMatchObject([{ bar: { start: 0, close: 0.8, trades: 1 } }])
    registry.deliver([aPrint({ contract: "S", t: HOUR + 2_000 })])
    expect(registry.counters.afterRetired).toBe(1)
    expect(registry.refs()).toEqual(["venue_a:O", "venue_a:S", "venue_a:V"])
  })

  it("hands each changed price bar to the store's drain once, from a given minute on", () => {
    const registry = new MarketRegistry(() => {})
    registry.deliver([aListing({ contract: "A", t: 0 }), aListing({ contract: "B", t: 0 })])
    expect(registry.drainBars()).toEqual([])
    registry.deliver([aPrint({ contract: "A", t: 1_000, price: 0.4 }), aPrint({ contract: "A", t: 61_000, price: 0.45 }), aTicker({ contract: "B", t: 2_000, price: 0.7 })])
    expect(registry.barsPending).toBe(2)
    const drained = registry.drainBars(60_000)
    expect(drained.map((c) => [c.ref, c.bar.start, c.bar.close])).toEqual([["venue_a:A", 60_000, 0.45]])
    expect(registry.barsPending).toBe(0)
    expect(registry.drainBars()).toEqual([])
    registry.deliver([aPrint({ contract: "A", t: 62_000, price: 0.5 })])
    expect(registry.drainBars()).toMatchObject([{ ref: "venue_a:A", bar: { start: 60_000, open: 0.45, close: 0.5, trades: 2 } }])
  })

  it("retires on `advance` too, when the feed is quiet", () => {
    const registry = new MarketRegistry(() => {}, { graceMs: HOUR })
    registry.deliver([aListing({ contract: "S", t: 0 }), aSettlement({ contract: "S", winner: "no", t: 5 })])
    registry.advance(HOUR)
    expect(registry.liveCount).toBe(1)
    registry.advance(HOUR + 5)
    expect(registry.liveCount).toBe(0)
  })

  it("joins venue_b prints to the trades feed by feed time across batches", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink, { join: { windowMs: 10_000, rememberMs: 60_000 } })
    const b = { venue: "venue_b" as const, contract: "M" }
    registry.deliver([aListing({ ...b, outcomes: ["tY", "tN"], names: ["Trump", "Vance"], t: 0 })])
    registry.deliver([aPrint({ ...b, outcome: "tY", txId: "0x1", price: 0.4, contracts: 50, t: 1_000 })])
    registry.deliver([aSnapshot({ ...b, outcome: "tY", t: 2_000 })])
    expect(out.tags()).toEqual(["MarketOpened", "BookChanged"])
    registry.deliver([anAttribution({ ...b, outcome: "tY", txId: "0x1", price: 0.4, contracts: 50, t: 1_000, receivedAt: 3_000 })])
    registry.deliver([aPrint({ ...b, outcome: "tN", txId: "0x2", price: 0.7, contracts: 5, t: 4_000 })])
    registry.deliver([aSnapshot({ ...b, outcome: "tY", t: 14_000 })])
    const trades = out.events.flatMap((e) => (e._tag === "TradePrinted" ? [e] : []))
    expect(trades.map((t) => [t.txId, t.side.name, t.trader?.id ?? null])).toEqual([["0x1", "Trump", "0xwallet"], ["0x2", "Vance", null]])
    expect(registry.info("venue_b:M")?.sides.map((s) => s.name)).toEqual(["Trump", "Vance"])
  })

  it("emits a held venue_b trade before the event whose time ended its join window, also in the same batch", () => {
    const out = collector()
    const registry = new MarketRegistry(out.sink, { join: { windowMs: 10_000, rememberMs: 60_000 } })
    const b = { venue: "venue_b" as const, contract: "M" }
    registry.deliver([aListing({ ...b, outcomes: ["tY", "tN"], names: ["Trump", "Vance"], t: 0 }), aListing({ contract: "A", t: 0 })])
    registry.deliver([anAttribution({ ...b, outcome: "tY", txId: "0x1", price: 0.4, contracts: 50, t: 1_000, receivedAt: 1_000 })])
    // One batch: an earlier print of A, then one of A after the held trade's window ended.
    registry.deliver([aPrint({ contract: "A", t: 5_000, price: 0.5 }), aPrint({ contract: "A", t: 70_000, price: 0.6 })])
    const order = out.events.flatMap((e) => (e._tag === "TradePrinted" ? [[e.ref, e.ts] as const] : []))
    expect(order).toEqual([["venue_a:A", 5_000], ["venue_b:M", 1_000], ["venue_a:A", 70_000]])
  })

  it("hands changed records to the store's flush once each, in change order", () => {
    const registry = new MarketRegistry(() => {})
    registry.deliver([aListing({ contract: "A" }), aListing({ contract: "B" })])
    registry.deliver([aPrint({ contract: "A", t: 5, price: 0.6 }), aPrint({ contract: "A", t: 6, price: 0.61 })])
    expect(registry.changesPending).toBe(2)
    expect(registry.drainChanges(1).map((r) => [r.info.ref, r.lastPrice])).toEqual([["venue_a:A", 0.61]])
    expect(registry.drainChanges().map((r) => r.info.ref)).toEqual(["venue_a:B"])
    expect(registry.changesPending).toBe(0)
  })
})
