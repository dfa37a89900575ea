// Market alerts and the inbox (set_market_alert, get_market_alerts, delete_market_alert, get_alerts) end to
// end through the HTTP door, over real market actors fed builder events (their prices reach the watcher
// on the OrderedFeed, as IntelLive publishes them), the suite's database and a manual Clock: firing once
// on feed time at or beyond a bound, on either side, ending with the market, every bound at its edge, the
// 50-alert limit, paging, the webhook fact, the inbox with bot notices, and a restart that re-arms. They run
// under a write fence, as on a node holding the paper lease: every write is checked against a lease row,
// and the last tests move that row to another node to see the writes refused (src/actors/write-fence.ts).
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MarketAlerts, makeMarketAlertsLayer } from "../../src/actors/alerts/market-alerts.js"
import { MarketBus, Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { MAX_ALERT_NOTE, MAX_MARKET_ALERTS } from "../../src/domain/limits.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { carriedInOrder, OrderedFeed, type OrderedEvent } from "../../src/intel/intel-bus.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { deleteMarketAlert, getAlerts, getMarketAlerts, setMarketAlert } from "../../src/operations/v1-alerts.js"
import { Counters } from "../../src/store/counters.js"
import { WriteFence } from "../../src/actors/write-fence.js"
import { type AccountFact, WebhookSink } from "../../src/webhooks/sink.js"
import { TestDb } from "../support/db.js"
import { leaseRow, testFence } from "../support/lease-row.js"
import { drained } from "../support/eventually.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { aListing, aPrint, aSettlement } from "../actors/market-builders.js"

const NOW = Date.UTC(2026, 5, 1, 12, 0, 10)
const clock = manualClock(NOW)
const operations = [setMarketAlert, getMarketAlerts, deleteMarketAlert, getAlerts] as unknown as ReadonlyArray<Operation<any, any, never>>
const keys = memoryKeys({
  alice: aPrincipal({ accountId: "ma_alice" }),
  bob: aPrincipal({ accountId: "ma_bob" }),
  reader: aPrincipal({ accountId: "ma_alice", scopes: ["read"] }),
  many: aPrincipal({ accountId: "ma_many" }),
  pager: aPrincipal({ accountId: "ma_pager" }),
  carol: aPrincipal({ accountId: "ma_carol" }),
  eventer: aPrincipal({ accountId: "ma_eventer" }),
  fencer: aPrincipal({ accountId: "ma_fencer" }),
})
const facts: Array<AccountFact> = []
const sink = Layer.succeed(WebhookSink, { publish: (f) => void facts.push(...f) })
const db = ManagedRuntime.make(TestDb)
const sql = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  db.runPromise(Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie))
const bus = Effect.runSync(PubSub.sliding<MarketEvent>(MarketBus.capacity))
const ordered = Effect.runSync(PubSub.unbounded<OrderedEvent>())
/** Events kept back from the OrderedFeed while not null (as intel/live.ts keeps live events during a backfill). */
let held: Array<OrderedEvent> | null = null
const registry = new MarketRegistry((e) => {
  bus.unsafeOffer(e)
  if (!carriedInOrder(e)) return
  if (held !== null) held.push(e)
  else ordered.unsafeOffer(e)
})
const release = () => {
  const kept = held ?? []
  held = null
  for (const e of kept) ordered.unsafeOffer(e)
}
const lease = `fence_alerts_${process.pid}`
/** The epoch this "node" writes at; the lease row names it at epoch 1 unless a test moves it. */
const fence = Layer.succeed(WriteFence, testFence(lease, () => 1))
const moveLease = (nodeId: string, epoch: number) => sql((sql) => leaseRow(sql, lease, nodeId, epoch))
let server: ManagedRuntime.ManagedRuntime<MarketAlerts, unknown> | undefined
let url = ""

const start = async () => {
  const context = (await db.runtime()).context
  const watcher = makeMarketAlertsLayer({ flushEveryMs: 10 })
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provideMerge(watcher),
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("alerts-test"), sink, fence]),
    Layer.provide([
      Layer.succeedContext(context), clock.layer, Layer.succeed(MarketBus, bus), Layer.succeed(OrderedFeed, ordered),
      Layer.succeed(Markets, marketsOf(registry)),
    ]),
  )
  const runtime = ManagedRuntime.make(layer)
  url = await runtime.runPromise(serverUrl)
  server = runtime
}

let t = NOW
const feed = (...events: ReadonlyArray<FeedEvent>) => registry.deliver(events)
const market = (contract: string) => {
  feed(aListing({ contract, t: (t += 1_000), title: `Will ${contract} pass?` }))
  return `venue_a:${contract}`
}
const print = (contract: string, price: number, outcome = "yes") => feed(aPrint({ contract, t: (t += 1_000), price, outcome }))
/** Lets the watcher take every event fed so far, then writes what stopped (a flush waits for one running). */
const settle = async () => {
  await drained(() => Effect.runSync(PubSub.size(ordered)))
  await server!.runPromise(Effect.flatMap(MarketAlerts, (a) => a.flush))
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

const set = (token: string, body: unknown) => call(url, "/v1/market-alerts", { method: "POST", body, token })
const list = (token: string, query = "") => call(url, `/v1/market-alerts${query}`, { token })
const inbox = (token: string, query = "") => call(url, `/v1/alerts${query}`, { token })

describe("POST /v1/market-alerts", () => {
  it("arms an alert that fires once, on feed time, at the first price at or above its bound", async () => {
    const ref = market("A1")
    print("A1", 0.5)
    const created = await set("alice", { market: ref, above: 0.6, note: "breakout" })
    expect(created.status).toBe(201)
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^ma_[0-9a-f]{16}$/), market: expect.objectContaining({ ref, contract: ref, title: "Will A1 pass?" }),
      outcome: "Yes", above: 0.6, below: null, note: "breakout", status: "armed", createdAt: new Date(NOW).toISOString(),
      triggeredAt: null, triggerPrice: null, endedAt: null,
    })
    print("A1", 0.59)
    await settle()
    expect((await list("alice")).body.data[0].status).toBe("armed")
    print("A1", 0.6)
    const firedAt = t
    print("A1", 0.7)
    await settle()
    const [fired] = (await list("alice")).body.data
    expect(fired).toMatchObject({ id: created.body.data.id, status: "triggered", triggerPrice: 0.6, triggeredAt: new Date(firedAt).toISOString() })
    expect(facts).toEqual([{ _tag: "MarketAlertFired", alert: expect.objectContaining({ id: created.body.data.id, status: "triggered", triggerPrice: 0.6 }) }])
    print("A1", 0.4)
    print("A1", 0.65)
    await settle()
    expect((await list("alice")).body.data[0]).toEqual(fired)
    expect(facts).toHaveLength(1)
  })

  it("watches the side it names: `below` on No fires on the No price (1 − the Yes price)", async () => {
    const ref = market("A2")
    const created = (await set("alice", { market: ref, outcome: "NO", below: 0.25 })).body.data
    expect(created.outcome).toBe("No")
    print("A2", 0.7) // No at 0.3
    await settle()
    expect((await list("alice", `?market=${ref}`)).body.data[0].status).toBe("armed")
    print("A2", 0.8) // No at 0.2
    await settle()
    expect((await list("alice", `?market=${ref}`)).body.data[0]).toMatchObject({ status: "triggered", triggerPrice: 0.2 })
  })

  it("does not fire on a price its market reported before it was set, still on its way (a backfill's hand-over)", async () => {
    const ref = market("A9")
    print("A9", 0.5)
    await settle()
    held = []
    print("A9", 0.7) // the market actors have it; the OrderedFeed does not yet
    const created = (await set("carol", { market: ref, above: 0.7 })).body.data
    release()
    await settle()
    expect((await list("carol", `?market=${ref}`)).body.data[0]).toMatchObject({ id: created.id, status: "armed" })
    print("A9", 0.71)
    await settle()
    expect((await list("carol", `?market=${ref}`)).body.data[0]).toMatchObject({ id: created.id, status: "triggered", triggerPrice: 0.71 })
  })

  it("an alert whose market settles first ends", async () => {
    const ref = market("A3")
    const created = (await set("alice", { market: ref, above: 0.9 })).body.data
    feed(aSettlement({ contract: "A3", t: (t += 1_000), winner: "no" }))
    const endedAt = t
    await settle()
    expect((await list("alice", `?market=${ref}`)).body.data[0]).toMatchObject({
      id: created.id, status: "ended", endedAt: new Date(endedAt).toISOString(), triggeredAt: null,
    })
    const closed = await set("alice", { market: ref, above: 0.9 })
    expect(closed.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("not open") })
  })

  it("refuses bad bounds, outcomes, notes and fields with VALIDATION naming the field; unknown markets are NOT_FOUND", async () => {
    const ref = market("A4")
    const expectError = async (body: unknown, field: string) => {
      const answer = await set("alice", body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body).toMatchObject({ success: false, code: "VALIDATION", error: expect.stringContaining(field) })
    }
    await expectError({ market: ref }, "above")
    await expectError({ market: ref, above: 0.5, below: 0.5 }, "below")
    await expectError({ market: ref, above: 1.01 }, "above")
    await expectError({ market: ref, below: -0.01 }, "below")
    await expectError({ market: ref, above: 0.5, outcome: "maybe" }, "outcome")
    await expectError({ market: ref, above: 0.5, note: "n".repeat(MAX_ALERT_NOTE + 1) }, "note")
    await expectError({ market: ref, above: 0.5, bogus: 1 }, "bogus")
    expect((await set("alice", { market: ref, above: 1, below: 0, note: "n".repeat(MAX_ALERT_NOTE) })).status).toBe(201)
    const unknown = await set("alice", { market: "venue_a:NOPE", above: 0.5 })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("NOT_FOUND")
    feed(
      aListing({ contract: "E1a", event: "E1", t: (t += 1_000) }),
      aListing({ contract: "E1b", event: "E1", t: (t += 1_000) }),
    )
    await expectError({ market: "venue_a:event:E1", above: 0.5 }, "several contracts")
    expect((await set("reader", { market: ref, above: 0.5 })).body.code).toBe("SCOPE_REQUIRED")
  })

  it(`holds ${MAX_MARKET_ALERTS} armed alerts per account; deleting one (or one firing) frees a place`, async () => {
    const ref = market("A5")
    const ids: Array<string> = []
    for (let i = 0; i < MAX_MARKET_ALERTS; i++) {
      const created = await set("many", { market: ref, above: 0.5 + i / 1_000 })
      expect(created.status).toBe(201)
      ids.push(created.body.data.id)
    }
    const over = await set("many", { market: ref, above: 0.9 })
    expect(over.status).toBe(400)
    expect(over.body).toEqual({ success: false, error: `at most ${MAX_MARKET_ALERTS} armed market alerts per account`, code: "VALIDATION" })
    const deleted = await call(url, `/v1/market-alerts/${ids[0]}`, { method: "DELETE", token: "many" })
    expect(deleted.body).toEqual({ success: true, data: { id: ids[0], deleted: true } })
    expect((await call(url, `/v1/market-alerts/${ids[0]}`, { method: "DELETE", token: "many" })).status).toBe(404)
    expect((await call(url, `/v1/market-alerts/${ids[1]}`, { method: "DELETE", token: "bob" })).status).toBe(404)
    expect((await set("many", { market: ref, above: 0.9 })).status).toBe(201)
    // The deleted alert no longer fires; the one at 0.5 + 1/1000 does.
    print("A5", 0.501)
    await settle()
    const statuses = (await list("many", "?limit=200")).body.data.map((a: { id: string; status: string }) => [a.id, a.status])
    expect(statuses.filter(([, s]: [string, string]) => s === "triggered").map(([id]: [string, string]) => id)).toEqual([ids[1]])
    expect((await set("many", { market: ref, above: 0.95 })).status).toBe(201)
  })
})

describe("GET /v1/market-alerts", () => {
  it("lists newest first, filters by market and status, and pages by cursor", async () => {
    const a = market("P1")
    const b = market("P2")
    const made: Array<string> = []
    for (const [ref, above] of [[a, 0.7], [b, 0.7], [a, 0.8], [b, 0.9]] as const) {
      clock.advance(1_000)
      made.push((await set("pager", { market: ref, above })).body.data.id)
    }
    print("P1", 0.75)
    await settle()
    const first = await list("pager", "?limit=3")
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([made[3], made[2], made[1]])
    const next = await list("pager", `?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`)
    expect(next.body).toEqual({ success: true, data: [expect.objectContaining({ id: made[0] })], nextCursor: null })
    expect((await list("pager", `?market=${a}`)).body.data.map((x: { id: string }) => x.id)).toEqual([made[2], made[0]])
    expect((await list("pager", "?status=triggered")).body.data.map((x: { id: string }) => x.id)).toEqual([made[0]])
    expect((await list("pager", "?status=maybe")).body.code).toBe("VALIDATION")
    expect((await list("pager", "?limit=201")).body.code).toBe("VALIDATION")
    expect((await list("pager", "?limit=200")).status).toBe(200)
  })

  it("filters by an event ref: the alerts on the event's contracts, and the `market.ref` a row shows finds it", async () => {
    feed(
      aListing({ contract: "EVa", event: "EV", t: (t += 1_000) }),
      aListing({ contract: "EVb", event: "EV", t: (t += 1_000) }),
      aListing({ contract: "ES1", event: "ES", t: (t += 1_000) }),
    )
    const other = market("EVx")
    const made: Array<string> = []
    for (const ref of ["venue_a:EVa", other, "venue_a:EVb", "venue_a:event:ES"]) {
      clock.advance(1_000)
      made.push((await set("eventer", { market: ref, above: 0.9 })).body.data.id)
    }
    const ids = async (query: string) => (await list("eventer", query)).body.data.map((x: { id: string }) => x.id)
    expect(await ids("?market=venue_a:event:EV")).toEqual([made[2], made[0]])
    expect(await ids("?market=venue_a:EVa")).toEqual([made[0]])
    // An event of one contract: the alert set on the event's ref is that contract's, found by either ref.
    expect(await ids("?market=venue_a:event:ES")).toEqual([made[3]])
    expect(await ids("?market=venue_a:ES1")).toEqual([made[3]])
    const [row] = (await list("eventer", "?market=venue_a:EVb")).body.data
    expect(row.market).toMatchObject({ ref: "venue_a:event:EV", contract: "venue_a:EVb" })
    expect(await ids(`?market=${row.market.ref}&status=armed`)).toEqual([made[2], made[0]])
    expect(await ids("?market=venue_a:event:NONE")).toEqual([])
    expect((await list("eventer", "?market=")).body).toMatchObject({
      success: false, code: "VALIDATION", error: expect.stringContaining("market"),
    })
  })
})

describe("GET /v1/alerts", () => {
  it("gives fired alerts and the trades of bots with alerts on, newest first, each with a sentence; since and paging", async () => {
    const opened = NOW + 500_000
    await sql((s) => s`
      INSERT INTO bots (id, account_id, kind, name, mode, status, trader, settings, snapshot, created_at) VALUES
        ('bot_on', 'ma_alice', 'signal', 'Whale buys', 'paper', 'running', NULL, '{"alerts": true}'::jsonb, '{}'::jsonb, now()),
        ('bot_off', 'ma_alice', 'signal', 'Quiet', 'paper', 'running', NULL, '{"alerts": false}'::jsonb, '{}'::jsonb, now())
      RETURNING id`)
    await sql((s) => s`
      INSERT INTO bot_trades (id, bot_id, seq, market, contract, title, venue, outcome, contracts, cost, fee, entry_price, exit_price,
        profit, status, result, opened_at_ms, closed_at_ms) VALUES
        ('bt1', 'bot_on', 1, 'venue_a:X', 'venue_a:X', 'Will X pass?', 'venue_a', 'Yes', 20, 10, 0.1, 0.5, 1, 10, 'closed', 'win', ${opened}, ${opened + 60_000}),
        ('bt2', 'bot_off', 1, 'venue_a:X', 'venue_a:X', 'Will X pass?', 'venue_a', 'Yes', 20, 10, 0.1, 0.5, NULL, NULL, 'open', NULL, ${opened}, NULL)
      RETURNING id`)
    const all = await inbox("alice")
    expect(all.status).toBe(200)
    const rows = all.body.data as Array<{ id: string; type: string; at: string; message: string; data: any }>
    expect(rows.slice(0, 2).map((r) => [r.id, r.type])).toEqual([["bot.trade:bt1:closed", "bot.trade"], ["bot.trade:bt1:open", "bot.trade"]])
    expect(rows[0]!.message).toBe("Whale buys closed Yes on Will X pass?: win, profit $10.00")
    expect(rows[1]!.message).toBe("Whale buys bought 20 Yes on Will X pass? at 0.5 ($10.00)")
    expect(rows[1]!.data).toMatchObject({ bot: { id: "bot_on", name: "Whale buys" }, trade: { id: "bt1", openedAt: new Date(opened).toISOString() } })
    const alerts = rows.slice(2)
    expect(alerts.map((r) => r.type)).toEqual(["market.alert", "market.alert"])
    expect(alerts.map((r) => r.data.triggerPrice)).toEqual([0.2, 0.6])
    expect(alerts[1]!.message).toBe("Will A1 pass?: Yes was at 0.6 (alert at or above 0.6): breakout")
    expect(alerts.every((r, i) => i === 0 || r.at <= alerts[i - 1]!.at)).toBe(true)
    const page = await inbox("alice", "?limit=1")
    const second = await inbox("alice", `?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`)
    expect([page.body.data[0].id, second.body.data[0].id]).toEqual([rows[0]!.id, rows[1]!.id])
    const since = await inbox("alice", `?since=${encodeURIComponent(new Date(opened + 1).toISOString())}`)
    expect(since.body.data.map((r: { id: string }) => r.id)).toEqual(["bot.trade:bt1:closed"])
    expect((await inbox("bob")).body.data).toEqual([])
    // Page size 1 to 200 (Limits: all listings).
    expect((await inbox("alice", "?limit=200")).status).toBe(200)
    expect((await inbox("alice", "?limit=201")).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("limit") })
    expect((await inbox("alice", "?limit=0")).body.code).toBe("VALIDATION")
    expect((await inbox("alice", "?since=yesterday")).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("since") })
  })
})

describe("restart", () => {
  it("re-arms the stored armed alerts: one set before the restart fires after it", async () => {
    const ref = market("R1")
    const created = (await set("bob", { market: ref, below: 0.3 })).body.data
    await server?.dispose()
    await start()
    print("R1", 0.25)
    await settle()
    expect((await list("bob", `?market=${ref}`)).body.data[0]).toMatchObject({ id: created.id, status: "triggered", triggerPrice: 0.25 })
  })

  it("an alert whose market settled while the service was down ends at the restart, at the settlement's time", async () => {
    const ref = market("R2")
    const created = (await set("bob", { market: ref, above: 0.9 })).body.data
    await server?.dispose()
    held = [] // the settlement reaches the market actors (a backfill) but no watcher is running
    feed(aSettlement({ contract: "R2", t: (t += 1_000), winner: "yes" }))
    const settledAt = t
    held = null
    await start()
    await settle()
    expect((await list("bob", `?market=${ref}`)).body.data[0]).toMatchObject({ id: created.id, status: "ended", endedAt: new Date(settledAt).toISOString() })
  })
})

describe("the write fence", () => {
  it("refused by the store (another node took the lease): setting or deleting an alert fails unwritten, and one that fires stays armed in the store until the lease is back", async () => {
    const ref = market("F1")
    print("F1", 0.5)
    const kept = (await set("fencer", { market: ref, above: 0.6 })).body.data
    await moveLease("other-node", 2)
    const refused = await set("fencer", { market: ref, below: 0.2 })
    expect(refused.status).toBe(500)
    expect(refused.body.code).toBe("INTERNAL")
    expect((await call(url, `/v1/market-alerts/${kept.id}`, { method: "DELETE", token: "fencer" })).status).toBe(500)
    const stored = () => sql<{ id: string; status: string }>((sql) => sql`SELECT id, status FROM market_alerts WHERE account_id = 'ma_fencer' ORDER BY id`)
    expect(await stored()).toEqual([{ id: kept.id, status: "armed" }])
    // It fires here, but the end is not written while the lease is another node's; it is kept for the next round.
    print("F1", 0.65)
    await settle()
    expect(await stored()).toEqual([{ id: kept.id, status: "armed" }])
    await moveLease("this-node", 1)
    await settle()
    expect(await stored()).toEqual([{ id: kept.id, status: "triggered" }])
  })
})
