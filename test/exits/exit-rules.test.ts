// Exit rules and the portfolio (set_exit_rule, list_exit_rules, delete_exit_rule, get_portfolio) end to end
// through the HTTP door over real market actors (their prices reach the watcher on the OrderedFeed, as
// IntelLive publishes them), the real accounts layer and the suite's database: each level firing once at
// feed time and selling the hand-held position as a paper order against the bids, a trailing stop off the
// high, replacing, cancelling (nothing held, market over, deleted), no bid (stays armed), every bound at its
// edge, the portfolio, and a restart that re-arms. They run under a write fence, as on a node holding the
// paper lease (src/actors/write-fence.ts); the last tests move the lease row to another node to see the
// writes refused.
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAccountsLayer } from "../../src/actors/accounts/registry.js"
import { ExitRulesLive } from "../../src/actors/exits/exit-rules.js"
import { MarketBus, Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { carriedInOrder, OrderedFeed, type OrderedEvent } from "../../src/intel/intel-bus.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { getPaperAccount } from "../../src/operations/paper.js"
import { placePaperOrder } from "../../src/operations/paper-orders.js"
import { deleteExitRule, listExitRules, setExitRule } from "../../src/operations/v1-exits.js"
import { getPortfolio, LIVE_BLOCKERS } from "../../src/operations/v1-portfolio.js"
import { WriteFence } from "../../src/actors/write-fence.js"
import { Counters } from "../../src/store/counters.js"
import { FeedMark } from "../../src/store/feed-marks.js"
import { RecentFeed, RecentFeedBuffer } from "../../src/intel/recent-feed.js"
import { TestDb } from "../support/db.js"
import { leaseRow, testFence } from "../support/lease-row.js"
import { drained, eventually } from "../support/eventually.js"
import { call } from "../support/http-client.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { aClose, aListing, aPrint, aSettlement, aSnapshot } from "../actors/market-builders.js"

const operations = [placePaperOrder, getPaperAccount, setExitRule, listExitRules, deleteExitRule, getPortfolio] as unknown as ReadonlyArray<Operation<any, any, never>>
const keys = memoryKeys({
  alice: aPrincipal({ accountId: "ex_alice" }),
  bob: aPrincipal({ accountId: "ex_bob" }),
  reader: aPrincipal({ accountId: "ex_alice", scopes: ["read"] }),
  carol: aPrincipal({ accountId: "ex_carol" }),
  dana: aPrincipal({ accountId: "ex_dana" }),
  erin: aPrincipal({ accountId: "ex_erin" }),
  fay: aPrincipal({ accountId: "ex_fay" }),
  gus: aPrincipal({ accountId: "ex_gus" }),
  hal: aPrincipal({ accountId: "ex_hal" }),
  ivy: aPrincipal({ accountId: "ex_ivy" }),
})
const db = ManagedRuntime.make(TestDb)
const bus = Effect.runSync(PubSub.sliding<MarketEvent>(MarketBus.capacity))
const ordered = Effect.runSync(PubSub.unbounded<OrderedEvent>())
/** What a node sharing the paper lease keeps of the OrderedFeed (given to the watcher by `start(recent)` only). */
const recent = new RecentFeedBuffer(24 * 3_600_000, 100_000)
const registry = new MarketRegistry((e) => {
  bus.unsafeOffer(e)
  if (!carriedInOrder(e)) return
  recent.push(e)
  ordered.unsafeOffer(e)
})
const lease = `fence_exits_${process.pid}`
const fence = Layer.succeed(WriteFence, testFence(lease, () => 1))
/** Where the lease row stands: this node's at epoch 1, or another's. */
const moveLease = (nodeId: string, epoch: number) =>
  db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => leaseRow(sql, lease, nodeId, epoch)))
let server: ManagedRuntime.ManagedRuntime<never, unknown> | undefined
let url = ""

const start = async (withRecent = false) => {
  const context = (await db.runtime()).context
  const shared = Layer.mergeAll(
    Layer.succeedContext(context), Layer.succeed(MarketBus, bus), Layer.succeed(OrderedFeed, ordered), Layer.succeed(Markets, marketsOf(registry)),
    withRecent ? Layer.succeed(RecentFeed, recent) : RecentFeed.off,
  )
  const accounts = makeAccountsLayer()
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide(Layer.merge(accounts, ExitRulesLive.pipe(Layer.provide(accounts))).pipe(Layer.provide(fence))),
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("exits-test")]),
    Layer.provide(shared),
  )
  const runtime = ManagedRuntime.make(layer)
  url = await runtime.runPromise(serverUrl)
  server = runtime
}

let t = Date.UTC(2026, 5, 1)
const feed = (...events: ReadonlyArray<FeedEvent>) => registry.deliver(events)
/** An open market with deep asks at 0.5 and bids at `bid` on Yes. */
const market = (contract: string, bid: number | null = 0.45) => {
  feed(
    aListing({ contract, t: (t += 1_000), title: `Will ${contract} pass?` }),
    aSnapshot({ contract, t: (t += 1_000), outcome: "yes", asks: [[0.5, 10_000]], bids: bid === null ? [] : [[bid, 10_000]] }),
  )
  return `venue_a:${contract}`
}
const print = (contract: string, price: number) => feed(aPrint({ contract, t: (t += 1_000), price }))
const bids = (contract: string, bid: number) =>
  feed(aSnapshot({ contract, t: (t += 1_000), outcome: "yes", asks: [[0.5, 10_000]], bids: [[bid, 10_000]] }))
/** Lets the watcher take every event fed so far (what it then sells and records is awaited with `eventually`). */
const settle = async () => {
  await drained(() => Effect.runSync(PubSub.size(ordered)))
  await new Promise((r) => setTimeout(r, 20))
}

beforeAll(async () => {
  await moveLease("this-node", 1)
  await start()
}, 60_000)
afterAll(async () => {
  await server?.dispose()
  registry.stop()
  await db.dispose()
})

const buy = async (token: string, ref: string, usd = 50) => {
  const answer = await call(url, "/v2/paper-orders", { method: "POST", body: { market: ref, outcome: "yes", action: "buy", usd }, token })
  expect(answer.status).toBe(201)
  return answer.body.data
}
const setRule = (token: string, body: unknown) => call(url, "/v1/exits", { method: "POST", body, token })
const rules = (token: string, query = "") => call(url, `/v1/exits${query}`, { token })
const handYes = async (token: string, ref: string) =>
  ((await call(url, `/v2/paper?market=${encodeURIComponent(ref)}&source=hand`, { token })).body.data.positions.data as Array<{ contracts: number }>)[0]

describe("POST /v1/exits", () => {
  it("take-profit sells the whole hand-held position once, against the bids, at the firing price's feed time", async () => {
    const ref = market("X1", 0.6)
    const bought = await buy("alice", ref)
    const created = await setRule("alice", { market: ref, outcome: "yes", stopLoss: 0.4, takeProfit: 0.7 })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      id: expect.stringMatching(/^ex_[0-9a-f]{16}$/), outcome: "Yes", stopLoss: 0.4, takeProfit: 0.7, trailingStop: null, trailHigh: null, status: "armed",
      doneAt: null, reason: null, orderId: null,
    })
    print("X1", 0.45)
    print("X1", 0.69)
    await settle()
    expect((await rules("alice")).body.data[0].status).toBe("armed")
    print("X1", 0.7)
    const firedAt = t
    print("X1", 0.3)
    await settle()
    const rule = await eventually(async () => {
      const [latest] = (await rules("alice")).body.data
      expect(latest).toMatchObject({ status: "executed", reason: "takeProfit", doneAt: new Date(firedAt).toISOString(), orderId: expect.stringMatching(/^po_/) })
      return latest
    })
    expect(await handYes("alice", ref)).toBeUndefined()
    const orders = (await call(url, "/v2/paper?include=orders&status=all", { token: "alice" })).body.data.orders.data
    // The sale is a hand order of the account, filled at feed time (this test's Clock is the wall's, its feed older).
    const sale = orders.find((o: { id: string }) => o.id === rule.orderId)
    expect(sale).toMatchObject({ action: "sell", contracts: bought.contracts, filledAt: new Date(firedAt).toISOString() })
    expect(sale.avgPrice).toBeLessThanOrEqual(0.6)
  })

  it("sells against the bids as of the price that fired it, not the book the watcher finds when it gets there", async () => {
    const ref = market("X9", 0.6)
    const bought = await buy("erin", ref)
    expect((await setRule("erin", { market: ref, outcome: "yes", takeProfit: 0.7 })).status).toBe(201)
    // Both fed before the watcher's fiber runs: the firing price with bids at 0.6, then bids at 0.2.
    print("X9", 0.7)
    bids("X9", 0.2)
    await settle()
    const rule = await eventually(async () => {
      const [latest] = (await rules("erin")).body.data
      expect(latest).toMatchObject({ status: "executed", reason: "takeProfit" })
      return latest
    })
    const orders = (await call(url, "/v2/paper?include=orders&status=all", { token: "erin" })).body.data.orders.data
    const sale = orders.find((o: { id: string }) => o.id === rule.orderId)
    expect(sale).toMatchObject({ action: "sell", contracts: bought.contracts })
    // 0.6 less venue_a's taker fee; at the later bids it would be under 0.2.
    expect(sale.avgPrice).toBeGreaterThan(0.55)
    expect(sale.avgPrice).toBeLessThanOrEqual(0.6)
  })

  it("a price that fired before the market closed sells, though the market actors applied the close first", async () => {
    const ref = market("X10", 0.6)
    await buy("fay", ref)
    expect((await setRule("fay", { market: ref, outcome: "yes", takeProfit: 0.7 })).status).toBe(201)
    // Both fed before the watcher's fiber runs: the market is closed when it gets to the price.
    print("X10", 0.7)
    feed(aClose({ contract: "X10", t: (t += 1_000) }))
    await settle()
    await eventually(async () => expect((await rules("fay")).body.data[0]).toMatchObject({ status: "executed", reason: "takeProfit" }))
    expect(await handYes("fay", ref)).toBeUndefined()
  })

  it("a trailing stop fires trailingStop points below the highest price since it was set", async () => {
    const ref = market("X2")
    await buy("alice", ref)
    // Set with the market's price then (the mid of 0.45 and 0.5: no trade yet) as the high.
    expect((await setRule("alice", { market: ref, outcome: "yes", trailingStop: 0.1 })).body.data).toMatchObject({ trailingStop: 0.1, trailHigh: 0.475 })
    for (const p of [0.5, 0.6, 0.65, 0.56]) print("X2", p)
    await settle()
    expect((await rules("alice", "?armed=true")).body.data.map((r: { market: { ref: string }; trailHigh: number }) => [r.market.ref, r.trailHigh]))
      .toEqual([[ref, 0.65]])
    print("X2", 0.55)
    await settle()
    await eventually(async () => expect((await rules("alice")).body.data[0]).toMatchObject({ status: "executed", reason: "trailingStop" }))
    expect(await handYes("alice", ref)).toBeUndefined()
  })

  it("a trailing rule that fires records the high it fired from, though the rise and the fall came in one burst", async () => {
    const ref = market("X11", 0.5)
    await buy("gus", ref)
    expect((await setRule("gus", { market: ref, outcome: "yes", trailingStop: 0.1 })).status).toBe(201)
    // Fed before the watcher runs (and before the highs' timer could store the rise).
    for (const p of [0.6, 0.7, 0.59]) print("X11", p)
    await settle()
    await eventually(async () => expect((await rules("gus")).body.data[0]).toMatchObject({ status: "executed", reason: "trailingStop", trailHigh: 0.7 }))
  })

  it("setting again replaces the armed rule; a rule with nothing held when it fires, or whose market ends, is cancelled", async () => {
    const ref = market("X3")
    await buy("bob", ref)
    const first = (await setRule("bob", { market: ref, outcome: "yes", stopLoss: 0.3 })).body.data
    const second = (await setRule("bob", { market: ref, outcome: "yes", stopLoss: 0.35 })).body.data
    expect((await rules("bob")).body.data.map((r: { id: string; status: string; reason: string | null }) => [r.id, r.status, r.reason]))
      .toEqual([[second.id, "armed", null], [first.id, "cancelled", "replaced"]])
    expect((await call(url, "/v2/paper-orders", { method: "POST", body: { market: ref, outcome: "yes", action: "sell", contracts: "all" }, token: "bob" })).status).toBe(201)
    print("X3", 0.3)
    await settle()
    await eventually(async () => expect((await rules("bob")).body.data[0]).toMatchObject({ id: second.id, status: "cancelled", reason: "nothing held by hand" }))
    const ended = market("X4")
    await buy("bob", ended)
    await setRule("bob", { market: ended, outcome: "yes", takeProfit: 0.9 })
    feed(aSettlement({ contract: "X4", t: (t += 1_000), winner: "yes" }))
    const settledAt = t
    await settle()
    await eventually(async () =>
      expect((await rules("bob")).body.data[0]).toMatchObject({ status: "cancelled", reason: "market settled", doneAt: new Date(settledAt).toISOString() }))
  })

  it("ten rules set at once on one position: each answered 201, one left armed (the one armed here too), the rest replaced; it sells once", async () => {
    const key = "bob"
    const ref = market("X9")
    await buy(key, ref)
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => setRule(key, { market: ref, outcome: "yes", stopLoss: 0.3 + i / 100 })))
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 201))
    const listed = (await rules(key)).body.data as Array<{ id: string; status: string; reason: string | null }>
    const mine = listed.filter((r) => answers.some((a) => a.body.data.id === r.id))
    expect(mine.filter((r) => r.status === "armed")).toHaveLength(1)
    expect(mine.filter((r) => r.status === "cancelled" && r.reason === "replaced")).toHaveLength(9)
    const armed = mine.find((r) => r.status === "armed")
    print("X9", 0.2)
    await settle()
    await eventually(async () => expect((await rules(key)).body.data.find((r: { id: string }) => r.id === armed?.id))
      .toMatchObject({ status: "executed", reason: "stopLoss" }))
    expect(await handYes(key, ref)).toBeUndefined()
    const sales = ((await call(url, "/v2/paper?include=orders&status=all", { token: key })).body.data.orders.data as Array<{ market: { ref: string }; action: string }>)
      .filter((o) => o.market.ref === ref && o.action === "sell")
    expect(sales).toHaveLength(1)
  })

  it("with no bid to sell into it stays armed and sells at the next price that fires it", async () => {
    const ref = market("X5", null)
    const bought = await buy("carol", ref)
    await setRule("carol", { market: ref, outcome: "yes", stopLoss: 0.4 })
    print("X5", 0.4)
    await settle()
    expect((await rules("carol")).body.data[0].status).toBe("armed")
    expect((await handYes("carol", ref))?.contracts).toBe(bought.contracts)
    bids("X5", 0.38)
    print("X5", 0.38)
    await settle()
    await eventually(async () => expect((await rules("carol")).body.data[0]).toMatchObject({ status: "executed", reason: "stopLoss" }))
  })

  it("with bids too thin for the whole position it sells none of it and stays armed (all or nothing, as a bot's sale)", async () => {
    const ref = market("X6")
    const bought = await buy("dana", ref) // 50 USD at 0.5 plus fee: some 95 contracts
    await setRule("dana", { market: ref, outcome: "yes", stopLoss: 0.4 })
    feed(aSnapshot({ contract: "X6", t: (t += 1_000), outcome: "yes", asks: [[0.5, 10_000]], bids: [[0.39, 10]] }))
    print("X6", 0.39)
    await settle()
    expect((await rules("dana")).body.data[0]).toMatchObject({ status: "armed", orderId: null })
    expect((await handYes("dana", ref))?.contracts).toBe(bought.contracts)
    bids("X6", 0.38)
    print("X6", 0.38)
    await settle()
    await eventually(async () => expect((await rules("dana")).body.data[0]).toMatchObject({ status: "executed", reason: "stopLoss" }))
    expect(await handYes("dana", ref)).toBeUndefined()
  })

  it("refuses bad levels, positions not held and unknown fields with VALIDATION naming the field; needs write", async () => {
    const ref = market("X6")
    const expectError = async (token: string, body: unknown, field: string) => {
      const answer = await setRule(token, body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body).toMatchObject({ success: false, code: "VALIDATION", error: expect.stringContaining(field) })
    }
    await expectError("alice", { market: ref, outcome: "yes", stopLoss: 0.3 }, "nothing held by hand")
    await buy("alice", ref)
    await expectError("alice", { market: ref, outcome: "yes" }, "stopLoss")
    await expectError("alice", { market: ref, outcome: "yes", stopLoss: 0.5, takeProfit: 0.5 }, "takeProfit")
    await expectError("alice", { market: ref, outcome: "yes", stopLoss: 1.01 }, "stopLoss")
    await expectError("alice", { market: ref, outcome: "yes", trailingStop: 0 }, "trailingStop")
    await expectError("alice", { market: ref, outcome: "yes", trailingStop: 1 }, "trailingStop")
    await expectError("alice", { market: ref, outcome: "maybe", stopLoss: 0.3 }, "outcome")
    await expectError("alice", { market: ref, outcome: "yes", stopLoss: 0.3, trailing: 0.1 }, "trailing")
    await expectError("alice", { market: ref, outcome: "no", stopLoss: 0.3 }, "nothing held by hand")
    expect((await setRule("alice", { market: "venue_a:NOPE", outcome: "yes", stopLoss: 0.3 })).status).toBe(404)
    expect((await setRule("reader", { market: ref, outcome: "yes", stopLoss: 0.3 })).body.code).toBe("SCOPE_REQUIRED")
    const edge = await setRule("alice", { market: ref, outcome: "yes", stopLoss: 0, takeProfit: 1, trailingStop: 0.99 })
    expect(edge.status).toBe(201)
    const deleted = await call(url, `/v1/exits/${edge.body.data.id}`, { method: "DELETE", token: "alice" })
    expect(deleted.body.data).toMatchObject({ id: edge.body.data.id, status: "cancelled", reason: "deleted" })
    expect((await call(url, `/v1/exits/${edge.body.data.id}`, { method: "DELETE", token: "alice" })).status).toBe(404)
    print("X6", 0.99)
    await settle()
    expect((await handYes("alice", ref))?.contracts).toBeGreaterThan(0)
  })
})

describe("GET /v1/portfolio", () => {
  it("gives totals, open positions and hand orders as GET /v2/paper does, the armed exit rules and autopilot readiness", async () => {
    const ref = market("P1")
    await buy("carol", ref, 20)
    const rule = (await setRule("carol", { market: ref, outcome: "yes", takeProfit: 0.9 })).body.data
    const answer = await call(url, "/v1/portfolio", { token: "carol" })
    expect(answer.status).toBe(200)
    const paper = (await call(url, "/v2/paper?include=orders&limit=200", { token: "carol" })).body.data
    expect(answer.body).toEqual({
      success: true,
      data: {
        totals: paper.totals, positions: paper.positions, orders: paper.orders, exitRules: [rule],
        autopilot: {
          paper: { ready: true, venues: ["venue_a", "venue_b"], blockers: [] },
          live: { ready: false, venues: [], blockers: [...LIVE_BLOCKERS] },
        },
      },
    })
    expect((await call(url, "/v1/portfolio?x=1", { token: "carol" })).body.code).toBe("VALIDATION")
    // GET /v1/exits: page size 1 to 200 (Limits: all listings), paged by cursor.
    expect((await rules("carol", "?limit=200")).status).toBe(200)
    expect((await rules("carol", "?limit=201")).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("limit") })
    const first = await rules("carol", "?limit=1")
    const next = await rules("carol", `?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`)
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id)
    expect((await rules("carol", "?armed=maybe")).body.code).toBe("VALIDATION")
  })
})

describe("restart", () => {
  it("re-arms the stored armed rules: one set before the restart sells after it", async () => {
    const ref = market("R1")
    await buy("bob", ref)
    await setRule("bob", { market: ref, outcome: "yes", stopLoss: 0.3 })
    await server?.dispose()
    await start()
    print("R1", 0.29)
    await settle()
    await eventually(async () => expect((await rules("bob")).body.data[0]).toMatchObject({ status: "executed", reason: "stopLoss" }))
    expect(await handYes("bob", ref)).toBeUndefined()
  })

  it("resumes a trailing stop from the high stored before the restart", async () => {
    const ref = market("R2")
    await buy("carol", ref)
    const rule = (await setRule("carol", { market: ref, outcome: "yes", trailingStop: 0.1 })).body.data
    for (const p of [0.6, 0.72, 0.7]) print("R2", p)
    await settle()
    // The watcher writes the highs that rose at most a second behind.
    const stored = () => db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ trail_high: number }>`SELECT trail_high FROM exit_rules WHERE id = ${rule.id}`))
    await eventually(async () => expect((await stored())[0]?.trail_high).toBe(0.72), 5_000)
    await server?.dispose()
    await start()
    expect((await rules("carol", "?armed=true")).body.data[0]).toMatchObject({ id: rule.id, trailHigh: 0.72 })
    // 0.62 is the trail off 0.72; a trail restarted from the first price after the restart would not fire.
    print("R2", 0.62)
    await settle()
    await eventually(async () => expect((await rules("carol")).body.data[0]).toMatchObject({ id: rule.id, status: "executed", reason: "trailingStop" }))
  })

  it("marks executed a rule whose sale was recorded before a crash stopped the watcher marking it", async () => {
    const ref = market("R3")
    await buy("bob", ref)
    const rule = (await setRule("bob", { market: ref, outcome: "yes", stopLoss: 0.3 })).body.data
    // The sale as the watcher records it (its key names the rule and the level), with the rule still armed.
    const sale = await call(url, "/v2/paper-orders", {
      method: "POST", body: { market: ref, outcome: "yes", action: "sell", contracts: "all" }, token: "bob",
      headers: { "Idempotency-Key": `exit:${rule.id}:stopLoss` },
    })
    expect(sale.status).toBe(201)
    expect((await rules("bob", "?armed=true")).body.data.map((r: { id: string }) => r.id)).toContain(rule.id)
    await server?.dispose()
    await start()
    const [latest] = (await rules("bob")).body.data.filter((r: { id: string }) => r.id === rule.id)
    expect(latest).toMatchObject({ status: "executed", reason: "stopLoss", orderId: sale.body.data.id, doneAt: sale.body.data.filledAt })
  })

  it("catching up where nodes share the lease: a price that fired a rule while no node watched it sells when the watcher starts; one at or before the bots' feed mark does not", async () => {
    const ref = market("R9")
    await buy("ivy", ref)
    await setRule("ivy", { market: ref, outcome: "yes", stopLoss: 0.3 })
    await server?.dispose()
    // No node watches: these reach the recent feed only. The old holder had been given the first.
    print("R9", 0.28)
    await db.runPromise(FeedMark.write({ venue_a: t }))
    print("R9", 0.29)
    const firedAt = t
    await start(true)
    await eventually(async () => expect((await rules("ivy")).body.data[0]).toMatchObject({ status: "executed", reason: "stopLoss", doneAt: new Date(firedAt).toISOString() }))
    expect(await handYes("ivy", ref)).toBeUndefined()
    await server?.dispose()
    await start()
  })
})

describe("the write fence", () => {
  it("refused by the store (another node took the lease): setting or deleting a rule fails unwritten, and one that fires sells nothing and stays armed until the lease is back", async () => {
    const ref = market("F1")
    const held = await buy("hal", ref)
    await moveLease("other-node", 2)
    const refused = await setRule("hal", { market: ref, outcome: "yes", stopLoss: 0.3 })
    expect(refused.status).toBe(500)
    expect(refused.body.code).toBe("INTERNAL")
    expect((await rules("hal")).body.data).toEqual([])
    await moveLease("this-node", 1)
    const rule = (await setRule("hal", { market: ref, outcome: "yes", stopLoss: 0.3 })).body.data
    await moveLease("other-node", 3)
    expect((await call(url, `/v1/exits/${rule.id}`, { method: "DELETE", token: "hal" })).status).toBe(500)
    // It fires here, but the sale is not recorded while the lease is another node's: nothing sold, still armed.
    print("F1", 0.29)
    await settle()
    await new Promise((r) => setTimeout(r, 100))
    expect((await handYes("hal", ref))?.contracts).toBe(held.contracts)
    expect((await rules("hal")).body.data).toMatchObject([{ id: rule.id, status: "armed" }])
    await moveLease("this-node", 1)
    print("F1", 0.28)
    await settle()
    await eventually(async () => expect((await rules("hal")).body.data).toMatchObject([{ id: rule.id, status: "executed", reason: "stopLoss" }]))
    expect(await handYes("hal", ref)).toBeUndefined()
  })
})
