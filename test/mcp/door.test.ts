// The MCP door (/mcp) on a test server with the test operations, through the SDK's own client: the
// tools are the operations (same Schema, same handler), the key authenticates before the protocol,
// scopes decide what is listed, and a tool answers the REST route's body or its error envelope.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { argumentsSchema, HEADERS_META, toolOf } from "../../src/mcp/door.js"
import { registry } from "../../src/operations/registry.js"
import { call } from "../support/http-client.js"
import { startServer, type RunningServer } from "../support/http-server.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { testOperations } from "../support/test-operations.js"

const keys = memoryKeys({
  rw: aPrincipal(),
  ro: aPrincipal({ scopes: ["read"] }),
  lapsed: aPrincipal({ subscriptionActive: false }),
  meter: aPrincipal(),
  busy: aPrincipal(),
  batch: aPrincipal(),
})
// Ten seconds into a minute (the rate window resets 50 s later); the clock does not move by itself.
const clock = manualClock(Date.UTC(2030, 0, 1, 0, 0, 10))
let server: RunningServer
const clients: Array<Client> = []

beforeAll(async () => {
  server = await startServer({ operations: testOperations, keys, mcp: true, clock: clock.layer })
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await server.close()
})

const connect = async (token: string | null): Promise<Client> => {
  const client = new Client({ name: "door-test", version: "1.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: token === null ? {} : { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

/** One JSON-RPC message POSTed by hand (to see the HTTP status and headers). */
const rpc = (token: string | null, message: unknown) =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(message),
  })

const bodyOf = (result: Awaited<ReturnType<Client["callTool"]>>): unknown => {
  const content = result.content as Array<{ type: string; text: string }>
  expect(content[0]?.type).toBe("text")
  const parsed = JSON.parse(content[0]!.text) as unknown
  expect(result.structuredContent).toEqual(parsed)
  return parsed
}

describe("MCP door: tools", () => {
  it("lists every operation as a tool with an object schema; a read key sees only the read tools", async () => {
    const all = await (await connect("rw")).listTools()
    expect(all.tools.map((t) => t.name).sort()).toEqual(testOperations.map((op) => op.tool).sort())
    for (const tool of all.tools) expect(tool.inputSchema.type).toBe("object")
    const read = await (await connect("ro")).listTools()
    expect(read.tools.map((t) => t.name).sort()).toEqual(testOperations.filter((op) => op.scope === "read").map((op) => op.tool).sort())
    expect(read.tools.map((t) => t.name)).not.toContain("create_thing")
  })

  it("marks every read-scope tool read-only, POST queries and backtests included, and DELETEs destructive", () => {
    for (const op of registry) {
      expect(toolOf(op).annotations).toEqual({ readOnlyHint: op.scope === "read", destructiveHint: op.method === "DELETE", openWorldHint: false })
    }
    const hints = Object.fromEntries(registry.map((op) => [op.tool, toolOf(op).annotations?.readOnlyHint]))
    expect(hints["run_backtest"]).toBe(true)
    expect(hints["place_paper_order"]).toBe(false)
  })

  it("answers a listing with the REST route's body, and the cursors work across both doors", async () => {
    const client = await connect("rw")
    const first = bodyOf(await client.callTool({ name: "list_test_rows", arguments: { color: ["red", "blue"], limit: 5 } })) as {
      data: Array<{ id: number; color: string }>
      nextCursor: string
    }
    const rest = await call(server.url, "/v2/test-rows?color=red&color=blue&limit=5", { token: "rw" })
    expect(rest.status).toBe(200)
    expect(first).toEqual(rest.body)
    expect(first.data.map((r) => r.id)).toEqual([1, 3, 4, 6, 7])
    // The next page: the MCP cursor over REST, and over MCP (query values as strings work too).
    const restNext = await call(server.url, `/v2/test-rows?color=red&color=blue&limit=5&cursor=${encodeURIComponent(first.nextCursor)}`, { token: "rw" })
    const mcpNext = bodyOf(await client.callTool({ name: "list_test_rows", arguments: { color: ["red", "blue"], limit: "5", cursor: first.nextCursor } }))
    expect(mcpNext).toEqual(restNext.body)
    // A cursor of another listing is VALIDATION on both doors.
    const misused = await client.callTool({ name: "list_other_rows", arguments: { cursor: first.nextCursor } })
    expect(misused.isError).toBe(true)
    expect(bodyOf(misused)).toEqual({ success: false, error: expect.any(String), code: "VALIDATION" })
  })

  it("takes path segments as arguments, and answers the route's errors as error results with the envelope", async () => {
    const client = await connect("rw")
    expect(bodyOf(await client.callTool({ name: "get_thing", arguments: { id: "1" } }))).toEqual({ data: { id: "1" } })
    const missing = await client.callTool({ name: "get_thing", arguments: { id: "2" } })
    expect(missing.isError).toBe(true)
    const rest = await call(server.url, "/v2/test-things/2", { token: "rw" })
    expect(rest.status).toBe(404)
    expect(bodyOf(missing)).toEqual(rest.body)
    expect(bodyOf(missing)).toEqual({ success: false, error: "No thing has id 2", code: "NOT_FOUND" })
  })

  it("refuses unknown and missing arguments with VALIDATION naming the field", async () => {
    const client = await connect("rw")
    const unknown = await client.callTool({ name: "create_thing", arguments: { label: "x", bogus: 1 } })
    expect(unknown.isError).toBe(true)
    expect(bodyOf(unknown)).toEqual({ success: false, error: "Unknown field `bogus`", code: "VALIDATION" })
    const nested = await client.callTool({ name: "create_thing", arguments: { label: "x", nested: { n: 1, extra: true } } })
    expect(bodyOf(nested)).toEqual({ success: false, error: "Unknown field `nested.extra`", code: "VALIDATION" })
    const missing = await client.callTool({ name: "create_thing", arguments: {} })
    expect(bodyOf(missing)).toEqual({ success: false, error: "`label` is required", code: "VALIDATION" })
    // A tool without arguments refuses any (its input is an empty Struct, which alone would take anything);
    // its route is a GET, so the argument is named as REST names a query parameter.
    const extra = await client.callTool({ name: "dies", arguments: { x: 1 } })
    expect(bodyOf(extra)).toEqual({ success: false, error: "Unknown query parameter `x`", code: "VALIDATION" })
    const tooLong = await client.callTool({ name: "create_thing", arguments: { label: "x".repeat(21) } })
    expect((bodyOf(tooLong) as { code: string }).code).toBe("VALIDATION")
    expect(bodyOf(await client.callTool({ name: "create_thing", arguments: { label: "x".repeat(20) } })))
      .toEqual({ data: { label: "x".repeat(20), n: null } })
  })

  it("refuses text no store can hold and absurd nesting in the arguments with VALIDATION naming the field", async () => {
    const client = await connect("rw")
    const nul = await client.callTool({ name: "create_thing", arguments: { label: "a\u0000b" } })
    expect(bodyOf(nul)).toEqual({ success: false, error: "label must not hold a NUL character or an unpaired UTF-16 surrogate", code: "VALIDATION" })
    const lone = await client.callTool({ name: "create_thing", arguments: { label: "x", nested: { n: 1, tags: ["\ud800"] } } })
    expect((bodyOf(lone) as { error: string }).error).toBe("nested.tags[0] must not hold a NUL character or an unpaired UTF-16 surrogate")
    let deep: unknown = 1
    for (let i = 0; i < 100; i++) deep = { a: deep }
    const nested = await client.callTool({ name: "create_thing", arguments: { label: "x", nested: deep as object } })
    expect((bodyOf(nested) as { error: string }).error).toMatch(/^nested(\.a)* is nested more than 32 levels deep$/)
  })

  it("answers malformed tool calls and an empty batch with JSON-RPC's own errors (no internal error, no schema dump)", async () => {
    const cases: ReadonlyArray<readonly [unknown, number]> = [
      [[], -32600],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_thing", arguments: "label=x" } }, -32602],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_thing", arguments: [1] } }, -32602],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { arguments: {} } }, -32602],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: "x" }, -32602],
    ]
    for (const [message, code] of cases) {
      const answer = await rpc("rw", message)
      expect(answer.status, JSON.stringify(message)).toBe(400)
      const body = (await answer.json()) as { id: unknown; error: { code: number; message: string } }
      expect(body.error.code, JSON.stringify(message)).toBe(code)
      expect(body.id).toBe(Array.isArray(message) ? null : 7)
    }
    // A batch holding a malformed call is refused whole: that call's invalid params, the others not run.
    const batch = await rpc("rw", [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_thing", arguments: { label: "y" } } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_thing", arguments: "label=x" } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ])
    expect(batch.status).toBe(400)
    expect(((await batch.json()) as Array<{ id: unknown; error: { code: number } }>).map((r) => [r.id, r.error.code])).toEqual([[1, -32600], [2, -32602]])
    // A well-formed call still goes through.
    const ok = await rpc("rw", { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "create_thing", arguments: { label: "x" } } })
    expect(((await ok.json()) as any).result.structuredContent).toEqual({ data: { label: "x", n: null } })
  })

  it("a write tool with a read key is SCOPE_REQUIRED, an unknown tool NOT_FOUND, a defect INTERNAL without details", async () => {
    const read = await connect("ro")
    const scoped = await read.callTool({ name: "create_thing", arguments: { label: "x" } })
    expect(scoped.isError).toBe(true)
    expect((bodyOf(scoped) as { code: string }).code).toBe("SCOPE_REQUIRED")
    const unknown = await read.callTool({ name: "no_such_tool", arguments: {} })
    expect(bodyOf(unknown)).toEqual({ success: false, error: "No tool named no_such_tool", code: "NOT_FOUND" })
    const died = await read.callTool({ name: "dies", arguments: {} })
    expect(bodyOf(died)).toEqual({ success: false, error: "Internal error", code: "INTERNAL" })
    expect(JSON.stringify(died)).not.toContain("hunter2")
  })
})

describe("MCP door: authentication and limits before the protocol", () => {
  it("refuses a missing or unknown key with 401 and the envelope; connect() fails", async () => {
    const none = await rpc(null, { jsonrpc: "2.0", id: 1, method: "tools/list" })
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toBe("Bearer")
    expect(await none.json()).toEqual({ success: false, error: expect.stringContaining("Authorization"), code: "UNAUTHORIZED" })
    const unknown = await rpc("nope", { jsonrpc: "2.0", id: 1, method: "tools/list" })
    expect(unknown.status).toBe(401)
    // The SDK client's connect() rejects with a StreamableHTTPError whose code is the status.
    await expect(connect("nope")).rejects.toMatchObject({ code: 401, message: expect.stringContaining("UNAUTHORIZED") })
    await expect(connect(null)).rejects.toMatchObject({ code: 401 })
    // Text no store can hold in the URL is answered after the key check: no key is still 401; with one, 400 counted.
    const post = (token: string | null) => fetch(`${server.url}/mcp?x=a%00b`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    })
    const anonymous = await post(null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer")
    await anonymous.arrayBuffer()
    const keyed = await post("rw")
    expect(keyed.status).toBe(400)
    expect(keyed.headers.get("x-ratelimit-limit")).toBe("120")
    expect(await keyed.json()).toEqual({ success: false, code: "VALIDATION", error: "x must not hold a NUL character or an unpaired UTF-16 surrogate" })
  })

  it("refuses an account with no active subscription with 403 SCOPE_REQUIRED", async () => {
    const lapsed = await rpc("lapsed", { jsonrpc: "2.0", id: 1, method: "tools/list" })
    expect(lapsed.status).toBe(403)
    expect(await lapsed.json()).toEqual({ success: false, error: expect.any(String), code: "SCOPE_REQUIRED" })
  })

  it("refuses a key in the URL, and answers GET with 405", async () => {
    const inUrl = await fetch(`${server.url}/mcp?api_key=rw`, { method: "POST", headers: { authorization: "Bearer rw" } })
    expect(inUrl.status).toBe(401)
    const get = await fetch(`${server.url}/mcp`, { headers: { authorization: "Bearer rw", accept: "text/event-stream" } })
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST")
    await get.arrayBuffer()
  })

  it("passes the 120th request of a minute and refuses the 121st with 429 and retry-after, before the protocol", async () => {
    for (let i = 1; i <= 120; i++) {
      const ok = await rpc("busy", { jsonrpc: "2.0", id: i, method: "tools/list" })
      expect(ok.status).toBe(200)
      await ok.arrayBuffer()
    }
    const refused = await rpc("busy", { jsonrpc: "2.0", id: 121, method: "tools/list" })
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("50")
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(await refused.json()).toEqual({ success: false, error: expect.any(String), code: "QUOTA_EXCEEDED" })
  })

  it("counts each HTTP request as one request and a tool's extra units as more, with the rate headers", async () => {
    const first = await rpc("meter", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "with_includes", arguments: {} } })
    expect(first.status).toBe(200)
    const before = Number(first.headers.get("x-ratelimit-remaining"))
    expect(((await first.json()) as any).result.structuredContent).toEqual({ data: { included: [] } })
    const second = await rpc("meter", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "with_includes", arguments: { include: ["a", "b"] } } })
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(before - 3)
    expect(second.headers.get("x-trades-test")).toBe("2")
    expect(((await second.json()) as any).result.structuredContent).toEqual({ data: { included: ["a", "b"] } })
  })
})

describe("MCP door: the same error sentences as REST", () => {
  it("an unknown argument of a GET tool and a missing scope read as the REST route's sentences", async () => {
    const viaRest = async (token: string, path: string, init: RequestInit = {}) =>
      (await (await fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } })).json()) as { error: string; code: string }
    const viaMcp = async (token: string, name: string, args: unknown) =>
      ((await (await rpc(token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })).json()) as any).result.structuredContent as { error: string; code: string }
    const unknownRest = await viaRest("rw", "/v2/test-rows?bogus=1")
    expect(unknownRest).toMatchObject({ code: "VALIDATION", error: "Unknown query parameter `bogus`" })
    expect(await viaMcp("rw", "list_test_rows", { bogus: 1 })).toMatchObject(unknownRest)
    const scopeRest = await viaRest("ro", "/v2/test-things", { method: "POST", body: JSON.stringify({ label: "x" }) })
    expect(scopeRest.code).toBe("SCOPE_REQUIRED")
    expect(await viaMcp("ro", "create_thing", { label: "x" })).toMatchObject(scopeRest)
  })
})

describe("MCP door: `__proto__`", () => {
  it("an argument named `__proto__` is an unknown field (the SDK's copy made it the prototype, so no Schema saw it)", async () => {
    // Raw JSON text: a `__proto__` in an object literal here would set the literal's prototype instead.
    for (const raw of ['{"label":"x","__proto__":{"a":1}}', '{"label":"x","nested":{"n":1,"__proto__":{"b":2}}}']) {
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_thing","arguments":${raw}}}`
      const answer = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer rw" },
        body,
      })
      const result = ((await answer.json()) as any).result
      expect(result.structuredContent, body).toMatchObject({ success: false, code: "VALIDATION" })
      expect(result.structuredContent.error).toMatch(/^Unknown field `(nested\.)?__proto__`$/)
    }
  })
})

describe("MCP door: batches", () => {
  it("gives each call of a batch the headers it set itself, in its result's _meta (the HTTP answer has one set for all)", async () => {
    const call = (id: number, include: Array<string>) =>
      ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "with_includes", arguments: { include } } })
    const answer = await rpc("rw", [call(1, ["a"]), call(2, ["a", "b"]), { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_thing", arguments: { id: "1" } } }])
    expect(answer.status).toBe(200)
    const results = ((await answer.json()) as Array<{ id: number; result: { _meta?: unknown } }>).sort((a, b) => a.id - b.id)
    expect(results.map((r) => r.result._meta)).toEqual([{ [HEADERS_META]: { "x-trades-test": "1" } }, { [HEADERS_META]: { "x-trades-test": "2" } }, undefined])
    // One call through the SDK's client: the same, on the call's result.
    const one = await (await connect("rw")).callTool({ name: "with_includes", arguments: { include: ["c"] } })
    expect(one._meta).toEqual({ [HEADERS_META]: { "x-trades-test": "1" } })
  })

  it("charges each tool call of a batch as one request, and refuses (and refunds) a batch that would pass the limit", async () => {
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "with_includes", arguments: {} } })
    const first = await rpc("batch", [call(1), call(2), call(3), { jsonrpc: "2.0", id: 4, method: "tools/list" }])
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-remaining")).toBe(String(120 - 3)) // three calls; the list rides on the request
    expect(((await first.json()) as Array<unknown>).length).toBe(4)
    // 117 left: a batch of 118 calls is refused whole before any runs, and its units are given back.
    const big = await rpc("batch", Array.from({ length: 118 }, (_, i) => call(10 + i)))
    expect(big.status).toBe(429)
    expect(await big.json()).toMatchObject({ success: false, code: "QUOTA_EXCEEDED" })
    const after = await rpc("batch", { jsonrpc: "2.0", id: 500, method: "tools/list" })
    expect(after.headers.get("x-ratelimit-remaining")).toBe(String(120 - 3 - 1 - 1)) // the refused request's own unit and this one
    await after.arrayBuffer()
  })
})

describe("MCP door: the service's operations", () => {
  it("each tool of the spec's MCP table is the record of the REST route the table names (its result is that route's body)", () => {
    const table: Record<string, string> = {
      describe_universe: "GET /v1/universe", backtest: "POST /v1/backtest", sweep: "POST /v1/backtest/sweep",
      compare: "POST /v1/backtest/compare", breakdown: "POST /v1/backtest/breakdown", search_markets: "GET /v1/markets/search",
      query_whale_events: "POST /v1/events", save_strategy: "POST /v1/strategies", list_strategies: "GET /v1/strategies",
      get_performance: "GET /v1/strategies/{}/performance", list_traders: "GET /v1/traders", get_trader: "GET /v1/traders/{}/{}",
      compare_traders: "POST /v1/traders/compare", get_live_feed: "GET /v1/feed", get_market: "GET /v1/markets/{}",
      get_portfolio: "GET /v1/portfolio", get_copy_log: "GET /v1/copy-executions", get_alerts: "GET /v1/alerts",
      get_market_alerts: "GET /v1/market-alerts", set_market_alert: "POST /v1/market-alerts", place_paper_order: "POST /v1/paper-orders",
      set_follow: "POST /v1/traders/{}/{}/follow", set_exit_rule: "POST /v1/exits", set_autopilot: "PATCH /v1/traders/{}/{}/autopilot",
      place_order: "POST /v1/orders", sell_position: "POST /v1/positions/sell",
    }
    const served = new Map(registry.filter((op) => op.mcp !== false).map((op) => [op.tool, op] as const))
    for (const [tool, route] of Object.entries(table)) {
      const op = served.get(tool)
      expect(op, tool).toBeDefined()
      expect(`${op?.method} ${op?.path.replace(/:\w+/g, "{}")}`, tool).toBe(route)
    }
  })

  it("every operation of the registry has a unique tool name and an object argument schema", () => {
    const tools = registry.filter((op) => op.mcp !== false)
    expect(new Set(tools.map((op) => op.tool)).size).toBe(tools.length)
    // A second REST route (mcp: false) names a tool that a served record is.
    for (const op of registry.filter((o) => o.mcp === false)) expect(tools.map((t) => t.tool)).toContain(op.tool)
    for (const op of registry) {
      const schema = argumentsSchema(op)
      expect(schema.type, op.tool).toBe("object")
      expect(JSON.stringify(schema)).not.toContain('"$ref":"#/$defs/' + op.name)
    }
  })
})
