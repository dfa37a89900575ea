// GET /v2/stream through the whole service (`bin/whalewatch.js serve`, embedded defaults, in-process
// simulator): a whale trade injected through the simulator's control API arrives as a trade frame on
// a stream filtered to its market, with the id and shape GET /v2/trades lists; a trade on another
// market does not.
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openSse, type SseClient } from "./stream-server.js"

const root = join(import.meta.dirname, "..", "..")
let child: ChildProcess
let dataDir: string
let output = ""
let base = ""
let sim = ""
let key = ""
const clients: Array<SseClient> = []

const waitFor = async <A>(what: string, probe: () => A | undefined | Promise<A | undefined>, ms: number): Promise<A> => {
  const deadline = performance.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "whalewatch-stream-e2e-"))
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: "0", SIM_PORT: "0", HISTORY_DAYS: "1" }
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  delete env["VENUES_URL"]
  child = spawn(process.execPath, ["bin/whalewatch.js", "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  child.stdout?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  child.stderr?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  base = await waitFor("the listening line", () => /listening on (http:\/\/[^\s]+)/.exec(output)?.[1], 90_000)
  sim = await waitFor("the simulator line", () => /venue simulator \(seed \d+\) on (http:\/\/[^\s:]+:\d+)/.exec(output)?.[1], 5_000)
  key = await waitFor("the demo key", () => /demo API key \(read,write\): (ww_[A-Za-z0-9_-]+)/.exec(output)?.[1], 5_000)
  await waitFor("a healthy service", async () => ((await fetch(`${base}/healthz`)).status === 200 ? true : undefined), 120_000)
}, 240_000)

afterAll(async () => {
  for (const c of clients) c.close()
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  rmSync(dataDir, { recursive: true, force: true })
})

interface SimContract {
  readonly ref: string
  readonly venue: string
  readonly status: string
  readonly event: unknown
}

/** Deep Yes asks at 0.50, so an injected buy fills in full whatever the simulator's book held. */
const deepen = async (market: string) => {
  const response = await fetch(`${sim}/control/markets/${encodeURIComponent(market)}/book`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ outcome: "yes", bids: [{ price: 0.49, size: 1_000_000 }], asks: [{ price: 0.5, size: 1_000_000 }] }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
}

const inject = async (market: string, usd: number, trader: string) => {
  const response = await fetch(`${sim}/control/trades`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ market, outcome: "yes", action: "buy", usd, price: 0.99, trader }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
}

describe("the stream of the running service", () => {
  it("delivers an injected whale trade on its market with the listing's id and shape, and not one on another market", async () => {
    const markets = ((await (await fetch(`${sim}/control/markets`)).json()) as { data: Array<SimContract> }).data
      .filter((c) => c.venue === "venue_a" && c.status === "open" && c.event === null)
    const [target, other] = markets as [SimContract, SimContract]
    expect(other).toBeDefined()
    const client = await openSse(`${base}/v2/stream?channels=trades&market=${encodeURIComponent(target.ref)}&minUsd=40000`, key)
    clients.push(client)
    expect(client.status).toBe(200)
    await client.waitFor((f) => f.comment === "connected")
    await deepen(other.ref)
    await deepen(target.ref)
    await inject(other.ref, 60_000, "e2e_other")
    await inject(target.ref, 60_000, "e2e_whale")
    const frame = await client.waitFor((f) => f.event === "trade" && JSON.parse(f.data ?? "").trader?.ref === "venue_a:e2e_whale", 30_000)
    const row = JSON.parse(frame.data ?? "")
    expect(row.market.ref).toBe(target.ref)
    expect(client.frames.filter((f) => f.event === "trade").every((f) => JSON.parse(f.data ?? "").market.ref === target.ref)).toBe(true)
    const listed = await waitFor("the trade in GET /v2/trades", async () => {
      const answer = await fetch(`${base}/v2/trades?trader=venue_a:e2e_whale`, { headers: { authorization: `Bearer ${key}` } })
      const body = (await answer.json()) as { data?: Array<{ id: string }> }
      return body.data?.find((r) => r.id === row.id)
    }, 15_000)
    expect(Object.keys(listed).sort()).toEqual(Object.keys(row).sort())
    expect(listed).toMatchObject({ id: row.id, market: row.market, outcome: row.outcome, price: row.price, usd: row.usd })
  }, 60_000)

  it("refuses a key in the query string", async () => {
    const response = await fetch(`${base}/v2/stream?key=${key}`)
    expect(response.status).toBe(401)
  })
})
