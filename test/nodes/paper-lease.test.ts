// Two service nodes on one PostgreSQL (the real `serve`, as child processes, fed by one simulator): the
// paper lease gives the paper accounts and bots to one node, the other forwards their operations to it,
// and when the holder is killed the other takes the lease and runs them, with nothing acknowledged lost.
// Needs DATABASE_URL (the embedded store takes one process only), so it runs in CI's second pass.
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import pg from "pg"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dbLayerOn } from "../../src/store/db.js"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { databaseUrl } from "../support/db.js"
import { deepen, inject, openContracts, type SimContract } from "../support/sim-control.js"
import { waitFor } from "../support/service.js"

const root = join(import.meta.dirname, "..", "..")
const LEASE_SECONDS = 2

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

interface Child {
  readonly process: ChildProcess
  readonly output: () => string
}

const spawnChild = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Child => {
  const child = spawn(process.execPath, ["bin/whalewatch.js", ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (c: Buffer) => { output += c.toString() })
  child.stderr?.on("data", (c: Buffer) => { output += c.toString() })
  return { process: child, output: () => output }
}

const stop = async (child: Child | undefined, signal: NodeJS.Signals) => {
  if (child === undefined || child.process.exitCode !== null || child.process.signalCode !== null) return
  const exited = new Promise((r) => child.process.once("exit", r))
  child.process.kill(signal)
  await exited
}

const adminQuery = async (url: string, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

describe.runIf(databaseUrl() !== undefined)("two nodes and the paper lease", () => {
  let schema = ""
  let schemaUrl = ""
  let simPort = 0
  let sim = ""
  let token = ""
  let simChild: Child | undefined
  const nodes = new Map<string, { child: Child; url: string; port: number }>()

  const startNode = async (id: string, port?: number) => {
    const listen = port ?? await freePort()
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATABASE_URL: schemaUrl, PORT: String(listen), HOST: "127.0.0.1", VENUES_URL: `ws://127.0.0.1:${simPort}`,
      HISTORY_DAYS: "0", NODE_ID: id, PAPER_LEASE_SECONDS: String(LEASE_SECONDS), LOG_LEVEL: "info",
    }
    delete env["REDIS_URL"]
    const child = spawnChild(["serve"], env)
    const url = await waitFor(`node ${id} listening`, () => /listening on (http:\/\/\S+)/.exec(child.output())?.[1], 60_000, child.output)
    nodes.set(id, { child, url, port: listen })
    return url
  }
  const node = (id: string) => {
    const n = nodes.get(id)
    if (n === undefined) throw new Error(`node ${id} is not running`)
    return n
  }

  const call = async (id: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${node(id).url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, headers: response.headers, body: await response.json() as any }
  }
  const holder = async () => (await adminQuery(schemaUrl, "SELECT node_id, epoch FROM node_leases WHERE name = 'paper'")).rows[0] as { node_id: string; epoch: string } | undefined

  beforeAll(async () => {
    const url = databaseUrl() as string
    schema = `t_lease_${process.pid}_${Date.now().toString(36)}`
    await adminQuery(url, `CREATE SCHEMA ${schema}`)
    const parsed = new URL(url)
    parsed.searchParams.set("options", `-c search_path=${schema}`)
    schemaUrl = parsed.toString()
    simPort = await freePort()
    simChild = spawnChild(["sim"], { ...process.env, SIM_PORT: String(simPort), HISTORY_DAYS: "0" })
    sim = await waitFor("the simulator", () => /on (http:\/\/127\.0\.0\.1:\d+)/.exec(simChild?.output() ?? "")?.[1], 30_000, () => simChild?.output() ?? "")
    // A first node migrates the schema; then the key, then the second node.
    await startNode("a")
    token = await Effect.runPromise(Effect.gen(function* () {
      const keys = yield* Keys
      return (yield* keys.create({ account: "lease", scopes: ["read", "write"], subscription: true })).key
    }).pipe(Effect.provide(Layer.orDie(KeysLive.pipe(Layer.provideMerge(dbLayerOn({ _tag: "Url", url: schemaUrl }, { maxConnections: 1 }))))), Effect.orDie, Effect.scoped))
    await startNode("b")
  }, 150_000)

  afterAll(async () => {
    for (const n of nodes.values()) await stop(n.child, "SIGKILL")
    await stop(simChild, "SIGKILL")
    if (schema !== "") await adminQuery(databaseUrl() as string, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  })

  let market: SimContract
  let firstOrder: any
  const order = (usd: number) => ({ market: market.ref, outcome: "yes", action: "buy", usd })

  it("the first node holds the lease; an order sent to the other is placed on it and replayed by its key on either", async () => {
    expect((await holder())?.node_id).toBe("a")
    market = (await openContracts(sim, "venue_a"))[0] as SimContract
    await deepen(sim, market.ref)
    await waitFor("the market on both nodes", async () => {
      const [a, b] = await Promise.all(["a", "b"].map((id) => call(id, "GET", `/v2/markets/${encodeURIComponent(market.ref)}`)))
      return a?.status === 200 && b?.status === 200 ? true : undefined
    }, 30_000)
    const placed = await call("b", "POST", "/v2/paper-orders", order(50), { "idempotency-key": "lease-1" })
    expect(placed.status, JSON.stringify(placed.body)).toBe(201)
    firstOrder = placed.body.data
    expect(firstOrder.cost).toBeGreaterThan(0)
    for (const id of ["a", "b"]) {
      const again = await call(id, "POST", "/v2/paper-orders", order(50), { "idempotency-key": "lease-1" })
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotency-replayed")).toBe("true")
      expect(again.body.data).toEqual(firstOrder)
      const account = await call(id, "GET", "/v2/paper?include=orders")
      expect(account.body.data.orders.data.map((o: any) => o.id)).toEqual([firstOrder.id])
    }
    // The MCP door of the other node forwards too: its tool is the same record.
    const mcp = await fetch(`${node("b").url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_paper_account", arguments: { include: "orders" } } }),
    })
    const result = (await mcp.json() as any).result
    expect(result.isError ?? false, JSON.stringify(result)).toBe(false)
    expect(result.structuredContent.data.orders.data.map((o: any) => o.id)).toEqual([firstOrder.id])
    // A refusal crosses as the holder's own answer.
    const refused = await call("b", "POST", "/v2/paper-orders", { ...order(50), market: "venue_a:no-such-market" })
    expect(refused.status).toBe(404)
    expect(refused.body.code).toBe("NOT_FOUND")
  })

  it("a bot made through the other node runs on the holder, and its includes are charged where the request came in", async () => {
    const made = await call("b", "POST", "/v2/bots", { trigger: { signal: { minUsd: 20_000, venue: ["venue_a"] } }, sizing: { usd: 30 } })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const id = made.body.data.id as string
    expect((await call("a", "GET", `/v2/bots/${encodeURIComponent(id)}`)).body.data.id).toBe(id)
    const plain = await call("b", "GET", "/v2/bots")
    const withIncludes = await call("b", "GET", `/v2/bots/${encodeURIComponent(id)}?include=trades,activity`)
    expect(withIncludes.status).toBe(200)
    expect(Number(plain.headers.get("x-ratelimit-remaining")) - Number(withIncludes.headers.get("x-ratelimit-remaining"))).toBe(3)
    expect(withIncludes.body.data.trades.data).toEqual([])
  })

  it("a bot acts once per whale trade, even after the other node restarts (it restores no bots)", async () => {
    await stop(node("b").child, "SIGTERM")
    await startNode("b", node("b").port)
    expect(node("b").child.output()).not.toContain("bots restored")
    await inject(sim, market.ref, 40_000, "lease_whale")
    const trades = await waitFor("the signal bot's copy", async () => {
      const bots = (await call("b", "GET", "/v2/bots")).body.data as Array<any>
      const bot = await call("b", "GET", `/v2/bots/${encodeURIComponent(bots[0].id)}?include=trades`)
      const rows = bot.body.data.trades.data as Array<any>
      return rows.length > 0 ? rows : undefined
    }, 30_000)
    await new Promise((r) => setTimeout(r, 1_500))
    const bots = (await call("a", "GET", "/v2/bots")).body.data as Array<any>
    const again = await call("a", "GET", `/v2/bots/${encodeURIComponent(bots[0].id)}?include=trades`)
    expect(again.body.data.trades.data).toHaveLength(1)
    expect(trades).toHaveLength(1)
  })

  it("kill -9 the holder: the other takes the lease and serves every order and bot, and the holder comes back as a follower", async () => {
    const before = await holder()
    const account = (await call("a", "GET", "/v2/paper?status=all&include=orders")).body.data
    const bots = (await call("a", "GET", "/v2/bots")).body.data
    await stop(node("a").child, "SIGKILL")
    const killedAt = performance.now()
    // The first request to b waits for the lease to pass to b, then runs there.
    const after = await call("b", "GET", "/v2/paper?status=all&include=orders")
    expect(after.status, JSON.stringify(after.body)).toBe(200)
    expect(performance.now() - killedAt).toBeLessThan((LEASE_SECONDS + 3) * 1_000)
    expect(after.body.data.orders).toEqual(account.orders)
    expect(after.body.data.positions.data.map((p: any) => [p.source, p.contracts])).toEqual(account.positions.data.map((p: any) => [p.source, p.contracts]))
    expect((await call("b", "GET", "/v2/bots")).body.data.map((b: any) => [b.id, b.status])).toEqual(bots.map((b: any) => [b.id, b.status]))
    const now = await holder()
    expect(now?.node_id).toBe("b")
    expect(Number(now?.epoch)).toBeGreaterThan(Number(before?.epoch))
    // The first order's key still replays, and a new order is placed on b.
    const replay = await call("b", "POST", "/v2/paper-orders", order(50), { "idempotency-key": "lease-1" })
    expect(replay.headers.get("idempotency-replayed")).toBe("true")
    expect(replay.body.data).toEqual(firstOrder)
    expect((await call("b", "POST", "/v2/paper-orders", order(20), { "idempotency-key": "lease-2" })).status).toBe(201)

    // a restarts under its id while b holds the lease: it forwards to b.
    await startNode("a", node("a").port)
    expect((await holder())?.node_id).toBe("b")
    const viaA = await call("a", "POST", "/v2/paper-orders", order(20), { "idempotency-key": "lease-3" })
    expect(viaA.status, JSON.stringify(viaA.body)).toBe(201)
    const orders = (await call("b", "GET", "/v2/paper?include=orders")).body.data.orders.data.map((o: any) => o.id)
    expect(orders).toHaveLength(3)
    expect(orders).toContain(viaA.body.data.id)
  })
})
