// Catch-up (BotRegistry.catchUp, the node taking the paper lease over): bots restored from the store are
// given the events of the node's recent feed that came after the feed they had been stored with, and no
// other, so a whale trade or a settlement that came while no node ran them still reaches them, once. Each
// scenario is checked against the same feed delivered to bots that never stopped.
import { describe, expect, it } from "vitest"
import { BotRegistry, type StoredBot } from "../../src/actors/bots/registry.js"
import { type FeedMarks, RecentFeedBuffer } from "../../src/intel/recent-feed.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { aSettlement } from "../actors/market-builders.js"
import { aBookedMarket, aSignalBot, aTrade, aTraderBot, MIN, T0 } from "./builders.js"
import { aWorld, type World } from "./world.js"

/** A world whose delivered events are also kept in a recent feed, as every node sharing a lease keeps them. */
const aNode = () => {
  const w = aWorld({ record: true })
  const recent = new RecentFeedBuffer(10 * MIN, 10_000)
  let kept = 0
  const feed = (...batch: ReadonlyArray<FeedEvent>) => {
    w.feed(...batch)
    for (const event of w.delivered.slice(kept)) recent.push(event)
    kept = w.delivered.length
  }
  return { w, recent, feed }
}

/** What the store would hold of each bot, saved now with the feed it has seen. */
const storedNow = (w: World, ids: ReadonlyArray<string>): Array<StoredBot> =>
  ids.map((id) => ({
    id, kind: w.bots.context(id)!.kind, snapshot: JSON.parse(JSON.stringify(w.bots.persisted(id))) as unknown,
    through: w.bots.through(),
  }))

const marksOf = (stored: ReadonlyArray<StoredBot>): Map<string, FeedMarks> => new Map(stored.map((b) => [b.id, b.through ?? {}]))

const tradesOf = (bots: BotRegistry, id: string) => bots.context(id)!.trades.map((t) => ({ ...t, id: undefined }))

const bots = () => [aTraderBot({ id: "T", mirrorExits: true }), aSignalBot({ minUsd: 10_000 }, { id: "S" })] as const

describe("catch-up of restored bots", () => {
  it.each([["at once", null], ["in runs of one event", 1]] as const)("gives them what came after the last stored flush, once: trades and settlements while no node ran them (%s)", (_, run) => {
    const events = {
      before: [aTrade("C1", T0 + MIN, { tradeId: "t1" })],
      unflushed: [aTrade("C2", T0 + 2 * MIN, { tradeId: "t2" })],
      gap: [aTrade("C1", T0 + 3 * MIN, { tradeId: "t3" }), aSettlement({ contract: "C2", t: T0 + 4 * MIN, winner: "yes" })],
      after: [aTrade("C1", T0 + 5 * MIN, { tradeId: "t5" })],
    }
    // Bots that never stopped.
    const reference = aWorld()
    reference.feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0))
    for (const b of bots()) reference.bots.spawn(b)
    for (const batch of [events.before, events.unflushed, events.gap, events.after]) for (const e of batch) reference.feed(e)
    expect(tradesOf(reference.bots, "T")).toHaveLength(4)
    expect(tradesOf(reference.bots, "T").find((t) => t.market.contract.endsWith("C2"))?.status).toBe("closed")

    // The holder stores every bot and its mark after `before`, copies `unflushed` in memory, and dies.
    const { w, recent, feed } = aNode()
    feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0))
    for (const b of bots()) w.bots.spawn(b)
    for (const e of events.before) feed(e)
    const stored = storedNow(w, ["T", "S"])
    const floor = w.bots.through()
    for (const e of events.unflushed) feed(e)
    w.bots.stop()
    // No node runs the bots: the feed goes on, into the recent feed only.
    w.bots = new BotRegistry(w.reads)
    for (const e of events.gap) feed(e)

    const taker = new BotRegistry(w.reads)
    taker.restore(stored)
    let routed = 0
    if (run === null) routed = taker.catchUp(recent.snapshot().events, floor, marksOf(stored))
    else {
      // As the bots layer replays them, other work let in between runs.
      const replayed = taker.startCatchUp(recent.snapshot().events, floor)
      for (let i = 0; i < replayed.length; i += run) routed += taker.catchUpSome(replayed.slice(i, i + run), marksOf(stored))
      taker.endCatchUp()
    }
    expect(routed).toBe(recent.snapshot().events.filter((e) => e._tag === "TradeRecorded" ? e.trade.time > floor["venue_a"]! : "ts" in e && e.ts > floor["venue_a"]!).length)
    w.bots = taker
    for (const e of events.after) feed(e)
    for (const id of ["T", "S"]) expect(tradesOf(taker, id)).toEqual(tradesOf(reference.bots, id))
  })

  it("gives a bot stored after the flush (by an operation) only what came after its own save", () => {
    const { w, recent, feed } = aNode()
    feed(...aBookedMarket("C1", T0))
    for (const b of bots()) w.bots.spawn(b)
    feed(aTrade("C1", T0 + MIN, { tradeId: "t1" }))
    const floor = w.bots.through()
    const flushed = storedNow(w, ["S"])
    feed(aTrade("C1", T0 + 2 * MIN, { tradeId: "t2" }))
    // The trader bot is saved alone now (a PATCH), with the copy of t2.
    const saved = storedNow(w, ["T"])
    w.bots.stop()
    w.bots = new BotRegistry(w.reads)
    feed(aTrade("C1", T0 + 3 * MIN, { tradeId: "t3" }))

    const taker = new BotRegistry(w.reads)
    const stored = [...saved, ...flushed]
    taker.restore(stored)
    taker.catchUp(recent.snapshot().events, floor, marksOf(stored))
    expect(taker.context("T")!.trades.map((t) => t.openedAt)).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN])
    expect(taker.context("S")!.trades.map((t) => t.openedAt)).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN])
  })

  it("a bot stored without marks (before they were kept) takes the flush's", () => {
    const { w, recent, feed } = aNode()
    feed(...aBookedMarket("C1", T0))
    w.bots.spawn(aTraderBot({ id: "T" }))
    feed(aTrade("C1", T0 + MIN, { tradeId: "t1" }))
    const stored = storedNow(w, ["T"]).map((b) => ({ ...b, through: null }))
    const floor = w.bots.through()
    w.bots.stop()
    w.bots = new BotRegistry(w.reads)
    feed(aTrade("C1", T0 + 2 * MIN, { tradeId: "t2" }))
    const taker = new BotRegistry(w.reads)
    taker.restore(stored)
    taker.catchUp(recent.snapshot().events, floor, new Map())
    expect(taker.context("T")!.trades.map((t) => t.openedAt)).toEqual([T0 + MIN, T0 + 2 * MIN])
    // Its marks move on with what it is given: what a save now stores.
    expect(taker.through()).toEqual({ venue_a: T0 + 2 * MIN })
  })
})
