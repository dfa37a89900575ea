// Catch-up through the bots layer, on the store (src/actors/bots/bots-live.ts): the holder stores the feed
// mark with its flushes; a node that starts the bots later, its recent feed holding what came meanwhile,
// gives the restored bots the events after the mark (a whale trade while no node ran them is copied,
// once) and stores what that did. Without a recent feed (the embedded store) no mark is written.
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Bots, makeBotsLayer } from "../../src/actors/bots/bots-live.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { OrderedFeed, type OrderedEvent } from "../../src/intel/intel-bus.js"
import { RecentFeed, RecentFeedBuffer } from "../../src/intel/recent-feed.js"
import { FeedMark } from "../../src/store/feed-marks.js"
import { BotStore } from "../../src/store/bots.js"
import { TestDb } from "../support/db.js"
import { aBookedMarket, aTrade, aTraderBot, MIN, T0 } from "./builders.js"
import { aWorld } from "./world.js"

const dbRuntime = ManagedRuntime.make(TestDb)
afterAll(() => dbRuntime.dispose())

const until = async (what: string, probe: () => Promise<boolean>, ms = 10_000): Promise<void> => {
  const deadline = performance.now() + ms
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const setup = async (recentFeed: boolean) => {
  const db = await dbRuntime.runtime()
  const dbLayer = Layer.succeedContext(db.context)
  // The feed: markets and trades through the real market actors and intel pipeline (world.ts), published
  // as intel/live.ts does: into the recent feed, then on the OrderedFeed.
  const w = aWorld({ record: true })
  const ordered = await Effect.runPromise(PubSub.unbounded<OrderedEvent>())
  const recent = new RecentFeedBuffer(recentFeed ? 10 * MIN : 0, 10_000)
  let published = 0
  const feed = (...batch: ReadonlyArray<FeedEvent>) => {
    w.feed(...batch)
    for (const event of w.delivered.slice(published)) {
      recent.push(event)
      ordered.unsafeOffer(event)
    }
    published = w.delivered.length
  }
  feed(...aBookedMarket("C1", T0))
  const shared = Layer.mergeAll(dbLayer, Layer.succeed(Markets, marketsOf(w.markets)), Layer.succeed(OrderedFeed, ordered))
  /** The bots of one node, over its recent feed (by default the one `feed` fills). */
  const start = (own: RecentFeedBuffer = recent) =>
    ManagedRuntime.make(makeBotsLayer({ flushEveryMs: 20 }).pipe(Layer.provideMerge(Layer.merge(shared, Layer.succeed(RecentFeed, own)))))
  const run = <A>(e: Effect.Effect<A, never, Layer.Layer.Success<typeof dbLayer>>) => Effect.runPromise(e.pipe(Effect.provide(dbLayer)))
  const bot = aTraderBot({ id: `trader:cu-${recentFeed}`, accountId: `acct-cu-${recentFeed}` })
  await run(BotStore.insert({
    id: bot.id, accountId: bot.accountId, kind: "trader", name: bot.name, mode: "paper", status: "running", trader: bot.settings.trader.ref,
    settings: null, snapshot: JSON.parse(JSON.stringify(w.bots.preview(bot))) as unknown, through: {},
  }, new Date(T0), null))
  const openedAt = (node: ManagedRuntime.ManagedRuntime<Bots, never>) =>
    node.runPromise(Effect.map(Bots, (b) => b.registry.context(bot.id)?.trades.map((t) => t.openedAt) ?? []))
  const storedTrades = () => run(Effect.map(BotStore.load, (rows) => {
    const row = rows.find((r) => r.id === bot.id) as { readonly snapshot: { readonly context: { readonly trades: ReadonlyArray<{ readonly openedAt: number }> } } } | undefined
    return row?.snapshot.context.trades.map((t) => t.openedAt) ?? []
  }))
  return { feed, start, run, openedAt, storedTrades }
}

describe("catch-up through the bots layer", () => {
  it("a node starting the bots copies, once, the whale trade that came after the last holder's stored flush", async () => {
    const { feed, start, run, openedAt, storedTrades } = await setup(true)
    const holder = start()
    await holder.runPromise(Bots)
    feed(aTrade("C1", T0 + MIN, { tradeId: "t1" }))
    await until("the holder's copy and mark stored", async () =>
      (await storedTrades()).length === 1 && (await run(FeedMark.read))?.["venue_a"] === T0 + MIN)
    await holder.dispose()

    // Nobody runs the bots: this trade reaches the recent feed only.
    feed(aTrade("C1", T0 + 2 * MIN, { tradeId: "t2" }))
    const taker = start()
    expect(await openedAt(taker)).toEqual([T0 + MIN, T0 + 2 * MIN])
    feed(aTrade("C1", T0 + 3 * MIN, { tradeId: "t3" }))
    await until("the live copy", async () => (await openedAt(taker)).length === 3)
    await until("every copy stored", async () => (await storedTrades()).length === 3)
    expect(await storedTrades()).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN])
    expect((await run(FeedMark.read))?.["venue_a"]).toBe(T0 + 3 * MIN)
    await taker.dispose()

    // A node whose recent feed holds nothing yet (it has just started: a restarted holder taking its lease
    // back at once) starts the bots as stored, and says what it could not replay.
    feed(aTrade("C1", T0 + 4 * MIN, { tradeId: "t4" }))
    const restarted = start(new RecentFeedBuffer(10 * MIN, 10_000))
    expect(await openedAt(restarted)).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN])
    await restarted.dispose()
  })

  it("without a recent feed no mark is stored and nothing is replayed", async () => {
    const { feed, start, run, openedAt, storedTrades } = await setup(false)
    // (The file's tests share a database: the mark the other test may have stored must not move.)
    const mark = await run(FeedMark.read)
    const holder = start()
    await holder.runPromise(Bots)
    feed(aTrade("C1", T0 + MIN, { tradeId: "t1" }))
    await until("the holder's copy stored", async () => (await storedTrades()).length === 1)
    await holder.dispose()
    feed(aTrade("C1", T0 + 2 * MIN, { tradeId: "t2" }))
    const taker = start()
    expect(await openedAt(taker)).toEqual([T0 + MIN])
    await taker.dispose()
    expect(await run(FeedMark.read)).toEqual(mark)
  })
})
