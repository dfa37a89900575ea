// Follows (set_follow, list_follows) end to end through the HTTP door over the suite's database and a
// manual Clock: follow, follow again, unfollow, the platform and trader checks, the 100-follow limit at
// its edge, the write scope, and that a follow by hand makes the account a `trade.followed` audience.
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_FOLLOWS } from "../../src/domain/limits.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { listFollows, setFollow } from "../../src/operations/v1-follows.js"
import { Counters } from "../../src/store/counters.js"
import { WebhookDeliveries } from "../../src/store/webhook-deliveries.js"
import { Webhooks } from "../../src/store/webhooks.js"
import { TestDb } from "../support/db.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"

const NOW = Date.UTC(2026, 5, 1, 12, 0, 10)
const clock = manualClock(NOW)
const operations = [setFollow, listFollows] as unknown as ReadonlyArray<Operation<any, any, never>>
const keys = memoryKeys({
  alice: aPrincipal({ accountId: "fa_alice" }),
  bob: aPrincipal({ accountId: "fa_bob" }),
  reader: aPrincipal({ accountId: "fa_alice", scopes: ["read"] }),
  many: aPrincipal({ accountId: "fa_many" }),
  carol: aPrincipal({ accountId: "fa_carol" }),
})
const db = ManagedRuntime.make(TestDb)
const sql = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  db.runPromise(Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie))
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
let url = ""

/** A stored trade of `trader` (what makes a trader known), with the venue's public name. */
const knownTrader = (trader: string, name: string | null, i: number) => sql((s) => s`
  INSERT INTO named_trades (id, seq, trade_id, time_ms, venue, trader, trader_name, market, contract, outcome, outcome_label,
    action, price, usd, contracts, whale, result)
  VALUES (${`nt${i}`}, ${i}, ${`tr${i}`}, ${NOW - 1_000 + i}, ${trader.split(":")[0]!}, ${trader}, ${name}, 'm', 'm', 'Yes', 'Yes',
    'buy', 0.5, 10, 20, false, 'open')
  RETURNING id`)

beforeAll(async () => {
  const context = (await db.runtime()).context
  await knownTrader("venue_a:ann", "Ann", 0)
  await knownTrader("venue_b:0xwhale", null, 1)
  await knownTrader(`venue_b:${WALLET}`, null, 2)
  for (let i = 0; i <= MAX_FOLLOWS; i++) await knownTrader(`venue_a:t${i}`, null, 10 + i)
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("follows-test")]),
    Layer.provide([Layer.succeedContext(context), clock.layer]),
  )
  const runtime = ManagedRuntime.make(layer)
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
}, 60_000)
afterAll(async () => {
  await server?.dispose()
  await db.dispose()
})

const WALLET = "0x3cabc5f2a0f21e33b7d1c0aa4e6f9e0b11c2d3f1"
const follow = (token: string, path: string, body: unknown = {}) => call(url, `/v1/traders/${path}/follow`, { method: "POST", body, token })
const list = (token: string) => call(url, "/v1/follows", { token })

describe("POST /v1/traders/{platform}/{traderId}/follow", () => {
  it("follows a named trader, keeps the first `since` when followed again, and lists the follows", async () => {
    const first = await follow("alice", "venue_a/ann")
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      success: true,
      data: { trader: "venue_a:ann", platform: "venue_a", traderId: "ann", name: "Ann", following: true, since: new Date(NOW).toISOString() },
    })
    clock.advance(5_000)
    expect((await follow("alice", "venue_a/ann", { follow: true })).body.data.since).toBe(new Date(NOW).toISOString())
    const whale = await follow("alice", "venue_b/0xwhale")
    expect(whale.body.data).toMatchObject({ trader: "venue_b:0xwhale", name: null, following: true, since: new Date(NOW + 5_000).toISOString() })
    expect((await list("alice")).body).toEqual({
      success: true,
      data: [
        { trader: "venue_a:ann", platform: "venue_a", traderId: "ann", since: new Date(NOW).toISOString() },
        { trader: "venue_b:0xwhale", platform: "venue_b", traderId: "0xwhale", since: new Date(NOW + 5_000).toISOString() },
      ],
    })
    expect((await list("bob")).body.data).toEqual([])
  })

  it("answers a venue_b wallet given in upper case in lower case, as its ref and the list do", async () => {
    const upper = WALLET.toUpperCase().replace("0X", "0x")
    const on = await follow("carol", `venue_b/${upper}`)
    expect(on.body.data).toMatchObject({ trader: `venue_b:${WALLET}`, traderId: WALLET, following: true })
    expect((await list("carol")).body.data).toMatchObject([{ trader: `venue_b:${WALLET}`, traderId: WALLET }])
    expect((await follow("carol", `venue_b/${upper}`, { follow: false })).body.data).toMatchObject({ traderId: WALLET, following: false })
  })

  it("stops with follow: false, and stopping again is not an error", async () => {
    const stopped = await follow("alice", "venue_b/0xwhale", { follow: false })
    expect(stopped.body.data).toEqual({ trader: "venue_b:0xwhale", platform: "venue_b", traderId: "0xwhale", name: null, following: false, since: null })
    expect((await follow("alice", "venue_b/0xwhale", { follow: false })).status).toBe(200)
    expect((await list("alice")).body.data.map((f: { trader: string }) => f.trader)).toEqual(["venue_a:ann"])
  })

  it("refuses platforms that name no trader, unknown platforms and fields (VALIDATION), unknown traders (NOT_FOUND)", async () => {
    const unnamed = await follow("alice", "venue_d/someone")
    expect(unnamed.status).toBe(400)
    expect(unnamed.body).toEqual({ success: false, error: "platform: only venue_a and venue_b name traders, not venue_d", code: "VALIDATION" })
    const bogus = await follow("alice", "venue_z/ann")
    expect(bogus.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("platform") })
    const spaced = await follow("alice", "venue_a/a%20b")
    expect(spaced.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("traderId") })
    const field = await follow("alice", "venue_a/ann", { follow: true, copy: true })
    expect(field.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("copy") })
    const unknown = await follow("alice", "venue_a/nobody")
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ success: false, error: "No trader has ref venue_a:nobody", code: "NOT_FOUND" })
  })

  it("needs the write scope", async () => {
    expect((await follow("reader", "venue_a/ann")).body.code).toBe("SCOPE_REQUIRED")
    expect((await list("reader")).status).toBe(200)
  })

  it(`holds ${MAX_FOLLOWS} follows per account: the next is VALIDATION until one is dropped`, async () => {
    for (let i = 0; i < MAX_FOLLOWS; i++) expect((await follow("many", `venue_a/t${i}`)).status).toBe(200)
    const over = await follow("many", `venue_a/t${MAX_FOLLOWS}`)
    expect(over.status).toBe(400)
    expect(over.body).toEqual({ success: false, error: `at most ${MAX_FOLLOWS} followed traders per account`, code: "VALIDATION" })
    // Following one already followed is not a new place.
    expect((await follow("many", "venue_a/t0")).status).toBe(200)
    expect((await follow("many", "venue_a/t0", { follow: false })).status).toBe(200)
    expect((await follow("many", `venue_a/t${MAX_FOLLOWS}`)).status).toBe(200)
    expect((await list("many")).body.data).toHaveLength(MAX_FOLLOWS)
  })
})

describe("follows and webhooks", () => {
  it("a follow by hand makes the account an audience of the trader's trade.followed events, until it stops", async () => {
    await sql((s) => s`INSERT INTO accounts (id, name, subscription_active) VALUES ('fa_alice', 'alice', true) RETURNING id`)
    const created = await db.runPromise(Webhooks.create({ accountId: "fa_alice", url: "https://alice.example.com/hook", events: ["trade.followed"], max: 5 }))
    if (created._tag === "None") throw new Error("endpoint not created")
    const interest = await db.runPromise(WebhookDeliveries.interest())
    expect([...interest.followed]).toEqual(["venue_a:ann"])
    const event = (id: string) => ({ key: `trade.followed:${id}`, type: "trade.followed", audience: { _tag: "followers" as const, trader: "venue_a:ann" }, body: "{}" })
    await db.runPromise(WebhookDeliveries.enqueue([event("x1")], NOW))
    const deliveries = () => sql<{ endpoint_id: string; event_type: string }>((s) => s`SELECT endpoint_id, event_type FROM webhook_deliveries ORDER BY id`)
    expect(await deliveries()).toEqual([{ endpoint_id: created.value.id, event_type: "trade.followed" }])
    expect((await follow("alice", "venue_a/ann", { follow: false })).body.data.following).toBe(false)
    await db.runPromise(WebhookDeliveries.enqueue([event("x2")], NOW))
    expect(await deliveries()).toHaveLength(1)
    expect([...(await db.runPromise(WebhookDeliveries.interest())).followed]).toEqual([])
  })
})
