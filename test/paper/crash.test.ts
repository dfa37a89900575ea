// Crash safety of paper orders: a burst of orders sent with Idempotency-Keys to the real service (a
// child process with the in-process simulator's books), the process killed with SIGKILL in the middle
// of the burst, restarted on the same store, every order resent with its key: each key is recorded
// exactly once, every order acknowledged before the kill is still there (durable before acknowledged),
// and the answers after the restart replay the acknowledged ones unchanged.
// CRASH_ORDERS sets the burst (default 200 here; `bench/paper.ts` runs 1,000).
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { dbLayerOn } from "../../src/store/db.js"
import { databaseUrl, freshDataDir, hostTestDataDir, rmDataDir } from "../support/db.js"
import { adminQuery, freePort } from "../support/nodes.js"

const root = join(import.meta.dirname, "..", "..")
const ORDERS = Number(process.env["CRASH_ORDERS"] ?? 200)
const KEYS = Math.ceil((ORDERS * 3) / 100) + 2 // 120 requests a minute per key; resends and retries too

interface Child {
  readonly process: ChildProcess
  readonly url: string
  output: string
}

let dataDir = ""
let schemaUrl: string | undefined
let schema = ""
let simPort = 0
let tokens: Array<string> = []

const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: "0", SIM_PORT: String(simPort), HISTORY_DAYS: "0", LOG_LEVEL: "warn" }
  delete e["VENUES_URL"]
  if (schemaUrl === undefined) delete e["DATABASE_URL"]
  else e["DATABASE_URL"] = schemaUrl
  return e
}

const start = async (): Promise<Child> => {
  const child = spawn(process.execPath, ["--import", "tsx", "test/paper/serve-child.ts"], { cwd: root, env: env(), stdio: ["ignore", "pipe", "pipe"] })
  const state = { output: "" }
  child.stdout?.on("data", (c: Buffer) => { state.output += c.toString() })
  child.stderr?.on("data", (c: Buffer) => { state.output += c.toString() })
  const deadline = performance.now() + 60_000
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(state.output)?.[1]
    if (url !== undefined) return { process: child, url, get output() { return state.output }, set output(v) { state.output = v } }
    if (child.exitCode !== null || performance.now() > deadline) throw new Error(`service did not start:\n${state.output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const stop = async (child: Child, signal: NodeJS.Signals) => {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return
  const exited = new Promise((r) => child.process.once("exit", r))
  child.process.kill(signal)
  await exited
}

/** Contracts of the simulator with asks on their first side, as the service names them. */
const marketsWithAsks = async (): Promise<Array<string>> => {
  const res = await fetch(`http://127.0.0.1:${simPort}/control/markets`)
  const body = await res.json() as { data?: Array<any> } | Array<any>
  const list = Array.isArray(body) ? body : (body.data ?? [])
  return list.filter((m) => m.status === "open" && m.book?.asks?.length > 0 && m.ref !== undefined).map((m) => String(m.ref))
}

const send = async (url: string, token: string, key: string, body: unknown) => {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await fetch(`${url}/v2/paper-orders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
      })
      const json = await r.json() as any
      if (r.status === 409 && attempt < 50) {
        await new Promise((res) => setTimeout(res, 50))
        continue
      }
      return { status: r.status, body: json, replayed: r.headers.get("idempotency-replayed") === "true" }
    } catch {
      return { status: 0, body: null, replayed: false } // the process died under us
    }
  }
}

const withStore = <A>(f: Effect.Effect<A, never, Keys>): Promise<A> => {
  const url = schemaUrl
  const layer = url !== undefined
    ? KeysLive.pipe(Layer.provideMerge(dbLayerOn({ _tag: "Url", url }, { maxConnections: 1 })))
    : KeysLive.pipe(Layer.provideMerge(Layer.unwrapScoped(Effect.map(hostTestDataDir(dataDir), (address) => dbLayerOn({ _tag: "Embedded", address }, { maxConnections: 1 })))))
  return Effect.runPromise(f.pipe(Effect.provide(Layer.orDie(layer)), Effect.scoped))
}


beforeAll(async () => {
  dataDir = freshDataDir("paper-crash")
  simPort = await freePort()
  const url = databaseUrl()
  if (url !== undefined) {
    schema = `t_crash_${process.pid}_${Date.now().toString(36)}`
    await adminQuery(url, `CREATE SCHEMA ${schema}`)
    const parsed = new URL(url)
    parsed.searchParams.set("options", `-c search_path=${schema}`)
    schemaUrl = parsed.toString()
  }
  tokens = await withStore(Effect.gen(function* () {
    const keys = yield* Keys
    const out: Array<string> = []
    for (let i = 0; i < KEYS; i++) out.push((yield* keys.create({ account: "crash", scopes: ["read", "write"], subscription: true }).pipe(Effect.orDie)).key)
    return out
  }))
}, 120_000)

afterAll(async () => {
  rmDataDir(dataDir)
  const url = databaseUrl()
  if (url !== undefined && schema !== "") await adminQuery(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
})

describe("paper orders survive kill -9", () => {
  it(`${ORDERS} keyed orders, SIGKILL mid-burst, restart, resend all: each recorded exactly once`, async () => {
    const t0 = performance.now()
    const phase = (name: string) => console.log(`crash test: ${name} at ${Math.round(performance.now() - t0)} ms`)
    let child = await start()
    phase("started")
    let refs: Array<string> = []
    const deadline = performance.now() + 30_000
    while (refs.length === 0 && performance.now() < deadline) {
      refs = await marketsWithAsks().catch(() => [])
      if (refs.length === 0) await new Promise((r) => setTimeout(r, 250))
    }
    expect(refs.length).toBeGreaterThan(0)
    // Give the feeds a moment to deliver the books to the market actors.
    await new Promise((r) => setTimeout(r, 1_500))
    const orders = Array.from({ length: ORDERS }, (_, i) => ({
      key: `crash-${i}`,
      token: tokens[i % tokens.length] ?? "",
      body: { market: refs[i % refs.length], outcome: "yes", action: "buy", usd: 5 + (i % 7) },
    }))

    // The burst, 50 at a time; the kill lands once a third of them were sent.
    const first = new Map<string, { status: number; body: any }>()
    let sent = 0
    const killAt = Math.floor(ORDERS / 3)
    let killed: Promise<void> | undefined
    const workers = Array.from({ length: 50 }, async () => {
      for (;;) {
        const o = orders[sent++]
        if (o === undefined) return
        if (sent === killAt) killed = stop(child, "SIGKILL")
        first.set(o.key, await send(child.url, o.token, o.key, o.body))
      }
    })
    await Promise.all(workers)
    await killed
    const acknowledged = [...first].filter(([, a]) => a.status === 201)
    phase(`burst done, ${acknowledged.length} acknowledged before the kill`)
    expect(child.process.signalCode).toBe("SIGKILL")

    child = await start()
    phase("restarted")
    try {
      const second = new Map<string, { status: number; body: any; replayed: boolean }>()
      let next = 0
      await Promise.all(Array.from({ length: 50 }, async () => {
        for (;;) {
          const o = orders[next++]
          if (o === undefined) return
          second.set(o.key, await send(child.url, o.token, o.key, o.body))
        }
      }))
      phase("resent")
      // Every order acknowledged before the kill is replayed unchanged.
      for (const [key, answer] of acknowledged) {
        const again = second.get(key)
        expect(again?.status, key).toBe(201)
        expect(again?.replayed, key).toBe(true)
        expect(again?.body, key).toEqual(answer.body)
      }
      // Each key is recorded at most once, and exactly once when some answer said 201.
      const rows = await (async () => {
        const q = "SELECT idempotency_key, count(*)::int AS n FROM paper_orders WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key"
        if (schemaUrl !== undefined) return (await adminQuery(schemaUrl, q)).rows as Array<{ idempotency_key: string; n: number }>
        const res = await fetch(`${child.url}/v2/paper?include=orders&limit=200`, { headers: { authorization: `Bearer ${tokens[0]}` } })
        expect(res.status).toBe(200)
        return null
      })()
      const placed = [...second].filter(([, a]) => a.status === 201).map(([k]) => k)
      expect(placed.length).toBeGreaterThan(ORDERS / 2)
      if (rows !== null) {
        const counts = new Map(rows.map((r) => [r.idempotency_key, r.n]))
        for (const key of placed) expect(counts.get(key), key).toBe(1)
        expect([...counts.values()].every((n) => n === 1)).toBe(true)
        expect(counts.size).toBe(placed.length)
      }
    } finally {
      await stop(child, "SIGTERM")
    }
    if (schemaUrl === undefined) {
      // Embedded: read the ledger once the service released the data dir.
      const counts = await withStore(Effect.gen(function* () {
        const { PaperStore } = yield* Effect.promise(() => import("../../src/store/paper.js"))
        const { SqlClient } = yield* Effect.promise(() => import("@effect/sql"))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ idempotency_key: string; n: number }>`
          SELECT idempotency_key, count(*)::int AS n FROM paper_orders WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key`.pipe(Effect.orDie)
        void PaperStore
        return rows
      }) as unknown as Effect.Effect<ReadonlyArray<{ idempotency_key: string; n: number }>, never, Keys>)
      expect(counts.length).toBeGreaterThan(ORDERS / 2)
      expect(counts.every((r) => r.n === 1)).toBe(true)
    }
  }, 180_000)
})
