// Catch-up of market alerts (src/actors/alerts/market-alerts.ts) where nodes share the paper lease: an
// alert restored armed is given what this node's recent feed kept after the bots' stored feed mark, so a
// price that crossed its bound while no node watched it fires it, at that price and feed time, and one at
// or before the mark does not. Without a recent feed (the embedded store), or without a mark, it is armed
// after the market's newest price, as before.
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { marketObjectOf } from "../../src/actors/accounts/registry.js"
import { MarketAlerts, makeMarketAlertsLayer } from "../../src/actors/alerts/market-alerts.js"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { OrderedFeed, type OrderedEvent } from "../../src/intel/intel-bus.js"
import { RecentFeed, RecentFeedBuffer } from "../../src/intel/recent-feed.js"
import { FeedMark } from "../../src/store/feed-marks.js"
import { MarketAlertsStore } from "../../src/store/market-alerts.js"
import { TestDb } from "../support/db.js"
import { aListing } from "../actors/market-builders.js"

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0)
const MIN = 60_000
const db = ManagedRuntime.make(TestDb)
afterAll(() => db.dispose())

const setup = async (account: string, contract: string) => {
  const context = (await db.runtime()).context
  const registry = new MarketRegistry(() => {})
  registry.deliver([aListing({ contract, t: T0 })])
  const markets = marketsOf(registry)
  const ref = markets.openRefs().find((r) => r.endsWith(contract)) as string
  const info = markets.info(ref)!
  const alert = await db.runPromise(MarketAlertsStore.insert({
    accountId: account, market: ref, marketObject: marketObjectOf(info), outcome: info.sides[0].name, side: 0,
    above: 0.7, below: null, note: null, createdAt: T0 + 10 * MIN,
  }, 50))
  const price = (ts: number, yesPrice: number): MarketEvent => ({ _tag: "PriceChanged", ts, ref, yesPrice })
  /** The watcher of one node over `recent`; its OrderedFeed brings nothing. */
  const start = (recent: RecentFeedBuffer) => ManagedRuntime.make(makeMarketAlertsLayer({ flushEveryMs: 10 }).pipe(Layer.provideMerge(Layer.mergeAll(
    Layer.succeedContext(context), Layer.succeed(Markets, markets), Layer.succeed(OrderedFeed, Effect.runSync(PubSub.unbounded<OrderedEvent>())),
    Layer.succeed(RecentFeed, recent),
  ))))
  const stored = async () => (await db.runPromise(MarketAlertsStore.byIds([alert!.id])))[0]!
  return { price, start, stored }
}

describe("market alerts catching up", () => {
  it("with a recent feed but no stored mark stay armed: nothing says what the old holder had seen", async () => {
    const { price, start, stored } = await setup("mac_c", "MAC3")
    const recent = new RecentFeedBuffer(30 * MIN, 1_000)
    recent.push(price(T0 + 12 * MIN, 0.75))
    const node = start(recent)
    await node.runPromise(Effect.flatMap(MarketAlerts, (a) => a.flush))
    expect(await stored()).toMatchObject({ status: "armed" })
    await node.dispose()
  })

  it("fire on the first price beyond the bound after the mark that the recent feed kept, not on one at or before it", async () => {
    const { price, start, stored } = await setup("mac_a", "MAC1")
    await db.runPromise(FeedMark.write({ venue_a: T0 + 10 * MIN }))
    const recent = new RecentFeedBuffer(30 * MIN, 1_000)
    for (const event of [price(T0 + 9 * MIN, 0.8), price(T0 + 10 * MIN, 0.9), price(T0 + 11 * MIN, 0.6), price(T0 + 12 * MIN, 0.75), price(T0 + 13 * MIN, 0.9)]) recent.push(event)
    const node = start(recent)
    await node.runPromise(Effect.flatMap(MarketAlerts, (a) => a.flush))
    expect(await stored()).toMatchObject({ status: "triggered", triggerPrice: 0.75, triggeredAt: T0 + 12 * MIN })
    await node.dispose()
  })

  it("without a recent feed stay armed after the market's newest price", async () => {
    const { price, start, stored } = await setup("mac_b", "MAC2")
    const off = new RecentFeedBuffer(0, 0)
    off.push(price(T0 + 12 * MIN, 0.75))
    const node = start(off)
    await node.runPromise(Effect.flatMap(MarketAlerts, (a) => a.flush))
    expect(await stored()).toMatchObject({ status: "armed" })
    await node.dispose()
  })
})
