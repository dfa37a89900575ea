// A bot's fill reaches its paper account exactly once across a crash (kill -9 between the bot's save and its
// paper order: the crash audit left 140 bot trades no account ever saw). What a crash leaves in the outbox is
// recorded at the next start; a fill whose paper order was written before the crash is not recorded again.
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Accounts, makeAccountsLayer } from "../../src/actors/accounts/registry.js"
import { makeBotsLayer } from "../../src/actors/bots/bots-live.js"
import { MarketBus, Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { walkBuy } from "../../src/domain/fill.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { OrderedFeed } from "../../src/intel/intel-bus.js"
import { BotFills } from "../../src/store/bot-fills.js"
import { TestDb } from "../support/db.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"

const dbRuntime = ManagedRuntime.make(TestDb)
afterAll(() => dbRuntime.dispose())

const setup = async () => {
  const db = await dbRuntime.runtime()
  const dbLayer = Layer.succeedContext(db.context)
  const bus = await Effect.runPromise(PubSub.sliding<MarketEvent>(MarketBus.capacity))
  const markets = new MarketRegistry((e) => void bus.unsafeOffer(e))
  markets.deliver([aListing({ contract: "OB1", t: 1_000 }), aSnapshot({ contract: "OB1", t: 1_001, asks: [[0.4, 1_000]], bids: [[0.38, 1_000]] })])
  const shared = Layer.mergeAll(dbLayer, Layer.succeed(MarketBus, bus), Layer.succeed(Markets, marketsOf(markets)), OrderedFeed.layer)
  /** The bots and accounts of one run of the service on the shared database. */
  const start = () => ManagedRuntime.make(makeBotsLayer({ flushEveryMs: 60_000 }).pipe(Layer.provideMerge(makeAccountsLayer()), Layer.provideMerge(shared)))
  const sql = <A extends object>(q: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
    Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, q).pipe(Effect.provide(dbLayer), Effect.orDie))
  return { markets, start, sql, dbLayer }
}

const aFill = (ref: string) => {
  const fill = walkBuy([{ price: 0.4, size: 1_000 }], { usd: 20 }, { venue: "venue_a", feeRate: null })
  if (fill._tag !== "Filled") throw new Error("no fill")
  return { bot: { id: "signal:outbox", name: "outbox bot" }, market: ref, outcome: "Yes", fill, at: 5_000 }
}

describe("bot fill outbox", () => {
  it("records at start what a crash left in the outbox, once, and never a fill already recorded", async () => {
    const { markets, start, sql, dbLayer } = await setup()
    const ref = markets.records().find((r) => r.info.contract === "OB1")?.info.ref ?? ""
    expect(ref).not.toBe("")
    // Run 1 stored two bots' fills with their bots, then died: one before its paper order, one after it.
    const first = start()
    await first.runPromise(Effect.flatMap(Accounts, (a) => a.recordBotFill("acct-ob", { ...aFill(ref), fillId: "fill-recorded" })))
    await first.dispose()
    await Effect.runPromise(BotFills.insert([
      { id: "fill-recorded", accountId: "acct-ob", fill: aFill(ref) },
      { id: "fill-lost", accountId: "acct-ob", fill: aFill(ref) },
    ]).pipe(Effect.provide(dbLayer)))

    const second = start()
    const holdings = await second.runPromise(Effect.map(Accounts, (a) => a.botHoldings("acct-ob", "signal:outbox")))
    const orders = await sql((s) => s<{ bot_fill_id: string }>`SELECT bot_fill_id FROM paper_orders WHERE account_id = 'acct-ob' ORDER BY seq`)
    expect(orders.map((o) => o.bot_fill_id)).toEqual(["fill-recorded", "fill-lost"])
    expect(holdings.reduce((n, h) => n + h.contracts, 0)).toBeCloseTo(2 * aFill(ref).fill.contracts, 6)
    expect(await sql((s) => s`SELECT id FROM bot_fill_outbox`)).toEqual([])
    await second.dispose()

    // Another start finds nothing left: no third order.
    const third = start()
    await third.runPromise(Accounts)
    expect(await sql((s) => s`SELECT id FROM paper_orders WHERE account_id = 'acct-ob'`)).toHaveLength(2)
    await third.dispose()
    markets.stop()
  })
})
