// Webhook endpoints end to end on a running server over the suite's database (embedded, or a private
// schema on DATABASE_URL): create → list → delete, the secret shown once and stored for signing, the limit
// of 5 (also under concurrent requests), public-https-only URLs (host names through an injected resolver,
// since this machine resolves no public names), event types, scopes, ownership and durability.
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { createWebhook, deleteWebhook, HostResolver, listWebhooks } from "../../src/operations/webhooks.js"
import { Counters } from "../../src/store/counters.js"
import { Keys } from "../../src/store/keys.js"
import { type Answer, call } from "../support/http-client.js"
import { TestStore } from "../support/db.js"
import { WebhookSink } from "../../src/webhooks/sink.js"

/** What the fake resolver knows; every other name does not resolve. */
const DNS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "localhost": ["127.0.0.1", "::1"],
  "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "mixed.example.com": ["93.184.216.34", "10.0.0.7"],
  "ula.example.com": ["fd12:3456:789a::1"],
  "metadata.example.com": ["169.254.169.254"],
}
const FakeResolver = Layer.succeed(HostResolver, { lookup: (host) => Effect.succeed(DNS[host] ?? []) })
/** How often the operations told the webhooks layer that the endpoints changed. */
let endpointChanges = 0
const SpySink = Layer.succeed(WebhookSink, { publish: () => {}, endpointsChanged: () => void endpointChanges++ })

const operations = [createWebhook, listWebhooks, deleteWebhook] as const
const store = ManagedRuntime.make(TestStore)

interface Server {
  readonly url: string
  readonly close: () => Promise<void>
}

/** A new HTTP server on the shared store: a restart, as far as the data are concerned. */
const startServer = async (): Promise<Server> => {
  const context = (await store.runtime()).context
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([Counters.memory, Health.layer, CursorKey.layer("test-cursor-secret"), FakeResolver, SpySink]),
    Layer.provide(Layer.succeedContext(context)),
  )
  const runtime = ManagedRuntime.make(layer)
  const url = await runtime.runPromise(serverUrl)
  return { url, close: () => runtime.dispose() }
}

const newKey = (account: string, scopes: ReadonlyArray<"read" | "write"> = ["read", "write"]) =>
  store.runPromise(Effect.flatMap(Keys, (keys) => keys.create({ account, scopes, subscription: true }))).then((k) => k.key)

const query = <A extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  store.runPromise(Effect.flatMap(SqlClient.SqlClient, run).pipe(Effect.orDie))

let server: Server
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
  await store.dispose()
})

const create = (token: string, body: unknown) => call(server.url, "/v1/webhooks", { token, method: "POST", body })
const list = (token: string) => call(server.url, "/v1/webhooks", { token })
const remove = (token: string, id: string) =>
  call(server.url, `/v1/webhooks/${encodeURIComponent(id)}`, { token, method: "DELETE" })

const expectError = (answer: Answer, status: number, code: string) => {
  expect(answer.status).toBe(status)
  expect(answer.body).toEqual({ success: false, error: expect.any(String), code })
}

const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/

describe("create, list, delete", () => {
  it("a DELETE with a body (fields, or text that is not JSON) is VALIDATION and deletes nothing; with none it deletes", async () => {
    const token = await newKey("wh-delete-body")
    const created = await create(token, { url: "https://93.184.216.34/hook" })
    const path = `/v1/webhooks/${encodeURIComponent(created.body.data.id)}`
    for (const [rawBody, type] of [['{"x":1}', "application/json"], ["this is not json {{{", "text/plain"]] as const) {
      const refused = await call(server.url, path, { token, method: "DELETE", rawBody, headers: { "content-type": type } })
      expect(refused.status).toBe(400)
      expect(refused.body).toEqual({ success: false, code: "VALIDATION", error: "DELETE takes no body; give the input in the path and query string" })
    }
    expect((await list(token)).body.data).toHaveLength(1)
    expect((await call(server.url, path, { token, method: "DELETE", rawBody: "" })).status).toBe(200)
    expect((await list(token)).body.data).toHaveLength(0)
  })

  it("tells this node's webhooks layer when an endpoint is made or deleted, so it looks up who wants what at once; not when refused", async () => {
    const token = await newKey("wh-changes")
    const before = endpointChanges
    const created = await create(token, { url: "https://93.184.216.34/hook", events: ["paper.order.filled"] })
    expect(created.status).toBe(201)
    expect(endpointChanges).toBe(before + 1)
    expect((await create(token, { url: "https://10.0.0.7/hook" })).status).toBe(400)
    expect((await remove(token, "wh_missing")).status).toBe(404)
    expect(endpointChanges).toBe(before + 1)
    expect((await remove(token, created.body.data.id)).status).toBe(200)
    expect(endpointChanges).toBe(before + 2)
  })

  it("creates, lists without the secret, deletes, and lists nothing", async () => {
    const token = await newKey("wh-lifecycle")
    const created = await create(token, { url: "https://93.184.216.34/hook", events: ["trade.followed", "copy.executed"] })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      success: true,
      data: { id: expect.any(String), url: "https://93.184.216.34/hook", events: ["trade.followed", "copy.executed"], secret: expect.stringMatching(SECRET) },
    })
    const { id, secret } = created.body.data

    const all = await create(token, { url: "https://hooks.example.com/all" })
    expect(all.status).toBe(201)
    expect(all.body.data.events).toEqual([])
    expect(all.body.data.secret).not.toBe(secret)

    const listed = await list(token)
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual({
      success: true,
      data: [
        { id, url: "https://93.184.216.34/hook", events: ["trade.followed", "copy.executed"], createdAt: expect.any(String) },
        { id: all.body.data.id, url: "https://hooks.example.com/all", events: [], createdAt: expect.any(String) },
      ],
    })
    expect(JSON.stringify(listed.body)).not.toContain("whsec_")

    const deleted = await remove(token, id)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ success: true, data: { id, deleted: true } })
    expect((await list(token)).body.data.map((w: { id: string }) => w.id)).toEqual([all.body.data.id])
    expectError(await remove(token, id), 404, "NOT_FOUND")
    expect((await remove(token, all.body.data.id)).status).toBe(200)
    expect(await list(token).then((a) => a.body)).toEqual({ success: true, data: [] })
  })

  it("stores the secret for signing before answering", async () => {
    const token = await newKey("wh-secret")
    const created = await create(token, { url: "https://93.184.216.34/signed" })
    const rows = await query((sql) => sql<{ secret: string }>`SELECT secret FROM webhook_endpoints WHERE id = ${created.body.data.id}`)
    expect(rows).toEqual([{ secret: created.body.data.secret }])
  })

  it("deleting an endpoint removes its pending deliveries", async () => {
    const token = await newKey("wh-deliveries")
    const { id } = (await create(token, { url: "https://93.184.216.34/d" })).body.data
    await query((sql) => sql`
      INSERT INTO webhook_deliveries (id, endpoint_id, event_type, body)
      VALUES ('dl_1', ${id}, 'trade.whale', '{"n":1}'::jsonb), ('dl_2', ${id}, 'move.detected', '{"n":2}'::jsonb)`)
    expect(await query((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${id}`))
      .toEqual([{ n: 2 }])
    expect((await remove(token, id)).status).toBe(200)
    expect(await query((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${id}`))
      .toEqual([{ n: 0 }])
  })

  it("data survive a new server on the same store", async () => {
    const token = await newKey("wh-durable")
    const created = await create(token, { url: "https://93.184.216.34/durable", events: ["bot.trade"] })
    expect(created.status).toBe(201)
    await server.close()
    server = await startServer()
    const listed = await list(token)
    expect(listed.body.data).toEqual([
      { id: created.body.data.id, url: "https://93.184.216.34/durable", events: ["bot.trade"], createdAt: expect.any(String) },
    ])
  })
})

describe("the limit of 5 endpoints", () => {
  it("the 5th passes, the 6th is VALIDATION, and a deletion frees a place", async () => {
    const token = await newKey("wh-limit")
    const ids: Array<string> = []
    for (let i = 1; i <= 5; i++) {
      const a = await create(token, { url: `https://93.184.216.34/${i}` })
      expect(a.status).toBe(201)
      ids.push(a.body.data.id)
    }
    const sixth = await create(token, { url: "https://93.184.216.34/6" })
    expectError(sixth, 400, "VALIDATION")
    expect(sixth.body.error).toBe("at most 5 webhook endpoints per account")
    // Another account is not affected.
    expect((await create(await newKey("wh-limit-other"), { url: "https://93.184.216.34/x" })).status).toBe(201)
    expect((await remove(token, ids[0]!)).status).toBe(200)
    expect((await create(token, { url: "https://93.184.216.34/again" })).status).toBe(201)
    expect((await list(token)).body.data).toHaveLength(5)
  })

  it("concurrent creations never pass 5", async () => {
    const token = await newKey("wh-race")
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(token, { url: `https://93.184.216.34/race/${i}` })),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5)
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 400, "VALIDATION")
    expect((await list(token)).body.data).toHaveLength(5)
    const [account] = await query((sql) => sql<{ n: number }>`
      SELECT count(*)::int AS n FROM webhook_endpoints w JOIN accounts a ON a.id = w.account_id WHERE a.name = 'wh-race'`)
    expect(account).toEqual({ n: 5 })
  })
})

describe("the url", () => {
  let token: string
  beforeAll(async () => {
    token = await newKey("wh-urls")
  })

  const refused: ReadonlyArray<readonly [string, string]> = [
    ["http://93.184.216.34/hook", "plain http"],
    ["ftp://93.184.216.34/hook", "another scheme"],
    ["https://user:pass@93.184.216.34/hook", "userinfo"],
    ["https://127.0.0.1/x", "IPv4 loopback"],
    ["https://2130706433/x", "loopback written as one number"],
    ["https://[::1]/x", "IPv6 loopback"],
    ["https://[::ffff:127.0.0.1]/x", "IPv4-mapped loopback"],
    ["https://10.0.0.1/x", "10/8"],
    ["https://192.168.1.10/x", "192.168/16"],
    ["https://172.16.0.1/x", "172.16/12"],
    ["https://172.31.255.255/x", "end of 172.16/12"],
    ["https://169.254.169.254/latest/meta-data", "link-local"],
    ["https://100.64.0.1/x", "CGNAT"],
    ["https://0.0.0.0/x", "unspecified"],
    ["https://[::]/x", "IPv6 unspecified"],
    ["https://224.0.0.1/x", "multicast"],
    ["https://[fd00::1]/x", "unique-local"],
    ["https://[fe80::1]/x", "IPv6 link-local"],
    ["https://[ff02::1]/x", "IPv6 multicast"],
    ["https://localhost/x", "localhost through the resolver"],
    ["https://mixed.example.com/x", "one private address among public ones"],
    ["https://ula.example.com/x", "a name resolving to unique-local"],
    ["https://metadata.example.com/x", "a name resolving to link-local"],
    ["https://nowhere.invalid/x", "a name that does not resolve"],
    ["not a url", "not a URL"],
  ]

  it.each(refused)("refuses %s (%s)", async (url) => {
    const a = await create(token, { url })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toMatch(/^url /)
  })

  it("says a name must resolve to a public address", async () => {
    expect((await create(token, { url: "https://nowhere.invalid/x" })).body.error).toBe("url must resolve to a public address")
    expect((await create(token, { url: "https://localhost/x" })).body.error).toMatch(/^url must resolve to a public address/)
  })

  it("accepts a public IPv4 literal, a public IPv6 literal and a name with only public addresses", async () => {
    for (const url of ["https://93.184.216.34/hook", "https://[2606:2800:220:1:248:1893:25c8:1946]/hook", "https://hooks.example.com:8443/in?x=1"]) {
      const a = await create(token, { url })
      expect(a.status, url).toBe(201)
      expect(a.body.data.url).toBe(url)
    }
    expect((await list(token)).body.data).toHaveLength(3)
  })
})

describe("the body", () => {
  let token: string
  beforeAll(async () => {
    token = await newKey("wh-body")
  })

  it("refuses an unknown event type, naming it", async () => {
    const a = await create(token, { url: "https://93.184.216.34/e", events: ["trade.followed", "trade.teleported"] })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("trade.teleported")
  })

  it("refuses an unknown field, naming it", async () => {
    const a = await create(token, { url: "https://93.184.216.34/e", extra: 1 })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("`extra`")
  })

  it("refuses a missing url", async () => {
    const a = await create(token, { events: [] })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("`url`")
  })

  it("drops repeated event types", async () => {
    const a = await create(token, { url: "https://93.184.216.34/e", events: ["move.detected", "move.detected", "trade.whale"] })
    expect(a.status).toBe(201)
    expect(a.body.data.events).toEqual(["move.detected", "trade.whale"])
  })
})

describe("scopes and ownership", () => {
  it("a read key lists but gets SCOPE_REQUIRED on POST and DELETE", async () => {
    const writer = await newKey("wh-scopes")
    const reader = await newKey("wh-scopes", ["read"])
    const { id } = (await create(writer, { url: "https://93.184.216.34/s" })).body.data
    expectError(await create(reader, { url: "https://93.184.216.34/r" }), 403, "SCOPE_REQUIRED")
    expectError(await remove(reader, id), 403, "SCOPE_REQUIRED")
    const listed = await list(reader)
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([id])
  })

  it("another account's endpoint is NOT_FOUND, exactly like an unknown id, and stays", async () => {
    const owner = await newKey("wh-owner")
    const stranger = await newKey("wh-stranger")
    const { id } = (await create(owner, { url: "https://93.184.216.34/o" })).body.data
    const theirs = await remove(stranger, id)
    expectError(theirs, 404, "NOT_FOUND")
    const unknownId = `wh_${"0".repeat(16)}`
    const unknown = await remove(stranger, unknownId)
    expectError(unknown, 404, "NOT_FOUND")
    expect(theirs.body.error.replace(id, "<id>")).toBe(unknown.body.error.replace(unknownId, "<id>"))
    expect((await list(stranger)).body.data).toEqual([])
    expect((await list(owner)).body.data.map((w: { id: string }) => w.id)).toEqual([id])
  })
})
