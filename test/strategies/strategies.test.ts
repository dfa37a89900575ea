// Saved strategies (save_strategy, list_strategies, get_performance, delete_strategy) end to end through
// the HTTP door and the MCP door, over the suite's database, a manual Clock and a hand-built backtest
// history: defaults, per-account isolation, unique names, the 50-strategy limit at its edge, the name
// bound at its edge, the performance against POST /v1/backtest's scoring, and durability across servers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_STRATEGIES, MAX_STRATEGY_NAME } from "../../src/domain/limits.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { scoreV1 } from "../../src/intel/backtest.js"
import { BacktestHistory, backtestHistoryOf } from "../../src/intel/backtest-store.js"
import { makeMcpDoor } from "../../src/mcp/door.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { deleteStrategy, getStrategyPerformance, listStrategies, saveStrategy } from "../../src/operations/v1-strategies.js"
import { Counters } from "../../src/store/counters.js"
import { TestDb } from "../support/db.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { historyTrades } from "../support/history-trades.js"

const NOW = Date.UTC(2026, 5, 1, 12, 0, 10)
const clock = manualClock(NOW)
const aTrade = historyTrades(NOW)
const history = new BacktestHistory({ sideOf: (_contract, outcome) => (outcome === "No" ? 1 : 0) })
history.addAll([
  aTrade({ price: 0.25 }),
  aTrade({ price: 0.8, result: "loss", category: "politics", kind: "us_politics", title: "Senate vote" }),
  aTrade({ result: "open", settledAt: null }),
])

const operations = [saveStrategy, listStrategies, getStrategyPerformance, deleteStrategy] as unknown as ReadonlyArray<Operation<any, any, never>>
const keys = memoryKeys({
  alice: aPrincipal({ accountId: "acct_alice" }),
  bob: aPrincipal({ accountId: "acct_bob" }),
  reader: aPrincipal({ accountId: "acct_alice", scopes: ["read"] }),
  many: aPrincipal({ accountId: "acct_many" }),
  agent: aPrincipal({ accountId: "acct_agent" }),
  blank: aPrincipal({ accountId: "acct_blank" }),
})
const dbRuntime = ManagedRuntime.make(TestDb)
let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
let url = ""

const start = async () => {
  const db = await dbRuntime.runtime()
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }, makeMcpDoor(operations)).pipe(
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("strategies-test"), backtestHistoryOf(history)]),
    Layer.provide([Layer.succeedContext(db.context), clock.layer]),
  )
  const started = ManagedRuntime.make(layer)
  url = await started.runPromise(serverUrl)
  runtime = started as ManagedRuntime.ManagedRuntime<unknown, unknown>
}

beforeAll(start)
afterAll(async () => {
  await runtime?.dispose()
  await dbRuntime.dispose()
})

const save = (token: string, body: unknown) => call(url, "/v1/strategies", { method: "POST", body, token })
const list = (token: string) => call(url, "/v1/strategies", { token })
const performance = (token: string, id: string) => call(url, `/v1/strategies/${id}/performance`, { token })
const remove = (token: string, id: string) => call(url, `/v1/strategies/${id}`, { method: "DELETE", token })

describe("POST /v1/strategies and GET /v1/strategies", () => {
  it("saves a named rule with the criteria's defaults applied, answers 201 in the v1 envelope, and lists it", async () => {
    const saved = await save("alice", { name: "Cheap sports whales", criteria: { categories: ["sports"], priceMax: 0.4 } })
    expect(saved.status).toBe(201)
    expect(saved.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^st_[0-9a-f]{16}$/), name: "Cheap sports whales",
        criteria: { categories: ["sports"], priceMax: 0.4, sinceDays: 90 }, stake: 100, createdAt: new Date(NOW).toISOString(),
      },
    })
    clock.advance(1_000)
    const second = await save("alice", { name: "Everything", stake: 250 })
    expect(second.status).toBe(201)
    expect(second.body.data.criteria).toEqual({ sinceDays: 90 })
    const listed = await list("alice")
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([saved.body.data, second.body.data])
    // Another account sees none of them, and cannot read or delete them.
    expect((await list("bob")).body.data).toEqual([])
    const foreign = await performance("bob", saved.body.data.id)
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual({ success: false, error: `No strategy has id ${saved.body.data.id}`, code: "NOT_FOUND" })
    expect((await remove("bob", saved.body.data.id)).body.code).toBe("NOT_FOUND")
    expect((await list("alice")).body.data).toHaveLength(2)
  })

  it("refuses a name in use, a name past 60 characters, bad criteria and unknown fields with VALIDATION naming the field", async () => {
    const taken = await save("alice", { name: "Everything" })
    expect(taken.status).toBe(400)
    expect(taken.body).toEqual({ success: false, error: "name: a strategy named Everything already exists", code: "VALIDATION" })
    // The same name on another account is fine.
    expect((await save("bob", { name: "Everything" })).status).toBe(201)
    clock.advance(1_000) // listed after "Everything" (the list is by creation time)
    expect((await save("alice", { name: "n".repeat(MAX_STRATEGY_NAME) })).status).toBe(201)
    const long = await save("alice", { name: "n".repeat(MAX_STRATEGY_NAME + 1) })
    expect(long.status).toBe(400)
    expect(long.body.error).toContain("name")
    expect((await save("alice", { name: "" })).body.code).toBe("VALIDATION")
    const missing = await save("alice", {})
    expect(missing.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("name") })
    const crossed = await save("alice", { name: "crossed", criteria: { priceMin: 0.6, priceMax: 0.5 } })
    expect(crossed.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("criteria.priceMax") })
    const stake = await save("alice", { name: "big", stake: 1_000_001 })
    expect(stake.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("stake") })
    const unknown = await save("alice", { name: "x", bogus: true })
    expect(unknown.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("bogus") })
    expect((await list("alice")).body.data.map((s: { name: string }) => s.name)).toEqual(["Cheap sports whales", "Everything", "n".repeat(MAX_STRATEGY_NAME)])
  })

  it("refuses a name of only spaces (any whitespace) with VALIDATION naming the field, as an empty one", async () => {
    for (const name of ["   ", "\t\n ", "\u00a0"]) {
      const blank = await save("blank", { name })
      expect(blank.status, JSON.stringify(name)).toBe(400)
      expect(blank.body).toEqual({ success: false, error: "name must hold something other than spaces", code: "VALIDATION" })
    }
    expect((await list("blank")).body.data).toEqual([])
    // Spaces around a name are part of it.
    expect((await save("blank", { name: " spaced " })).body.data.name).toBe(" spaced ")
  })

  it("needs the write scope to save or delete", async () => {
    expect((await save("reader", { name: "read only" })).body.code).toBe("SCOPE_REQUIRED")
    const [first] = (await list("reader")).body.data
    expect((await remove("reader", first.id)).body.code).toBe("SCOPE_REQUIRED")
  })

  it(`holds ${MAX_STRATEGIES} strategies per account: the next is VALIDATION until one is deleted`, async () => {
    const ids: Array<string> = []
    for (let i = 0; i < MAX_STRATEGIES; i++) {
      const saved = await save("many", { name: `s${i}` })
      expect(saved.status).toBe(201)
      ids.push(saved.body.data.id)
    }
    const over = await save("many", { name: "one more" })
    expect(over.status).toBe(400)
    expect(over.body).toEqual({ success: false, error: `at most ${MAX_STRATEGIES} strategies per account`, code: "VALIDATION" })
    const deleted = await remove("many", ids[0]!)
    expect(deleted.body).toEqual({ success: true, data: { id: ids[0], deleted: true } })
    expect((await remove("many", ids[0]!)).status).toBe(404)
    expect((await save("many", { name: "one more" })).status).toBe(201)
    expect((await list("many")).body.data).toHaveLength(MAX_STRATEGIES)
  })
})

describe("GET /v1/strategies/{id}/performance", () => {
  it("scores the criteria now as POST /v1/backtest does, and counts only the whale buys made since saving", async () => {
    clock.set(NOW + 10_000)
    const saved = (await save("alice", { name: "Sports", criteria: { categories: ["sports"] }, stake: 50 })).body.data
    // Two sports whale buys after the save (one already won), one politics buy (not matched).
    history.addAll([
      aTrade({ time: NOW + 20_000, price: 0.5, settledAt: NOW + 30_000 }),
      aTrade({ time: NOW + 25_000, result: "open", settledAt: null }),
      aTrade({ time: NOW + 26_000, category: "politics", kind: "us_politics" }),
    ])
    clock.set(NOW + 60_000)
    const answer = await performance("alice", saved.id)
    expect(answer.status).toBe(200)
    const expected = scoreV1(history, { criteria: { categories: ["sports"], sinceDays: 90 }, stake: 50 }, NOW + 60_000)
    expect(answer.body.data).toEqual({
      strategy: saved,
      backtest: expected,
      sinceSaved: {
        from: new Date(NOW + 10_000).toISOString(), to: new Date(NOW + 60_000).toISOString(),
        matched: 2, settled: 1, wins: 1, losses: 0, open: 1, winRate: 1, stakedUsd: 50, pnlUsd: 50, returnPct: 100,
      },
    })
    expect(expected.matched).toBe(4) // two before the save (sports) and two after
    expect((await performance("alice", "st_0000000000000000")).status).toBe(404)
  })
})

describe("strategies over MCP and across restarts", () => {
  it("the tools answer exactly the REST bodies, and a new server on the same store lists the same strategies", async () => {
    const client = new Client({ name: "strategies-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: "Bearer agent" } } }))
    const text = (result: Awaited<ReturnType<Client["callTool"]>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
    const saved = text(await client.callTool({ name: "save_strategy", arguments: { name: "Agent rule", criteria: { minAmountUsd: 10_000 } } }))
    expect(saved.success).toBe(true)
    const viaTool = text(await client.callTool({ name: "get_performance", arguments: { id: saved.data.id } }))
    expect(viaTool).toEqual((await performance("agent", saved.data.id)).body)
    const listedViaTool = text(await client.callTool({ name: "list_strategies", arguments: {} }))
    await client.close()
    await runtime?.dispose()
    await start()
    expect((await list("agent")).body).toEqual(listedViaTool)
  })
})
