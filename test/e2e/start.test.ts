// The first-run promise of the README: `npm start` (= `node bin/whalewatch.js serve`) on a fresh
// DATA_DIR with embedded defaults answers /healthz, connects every venue feed of the in-process
// simulator, backfills its history, and the demo key it prints authenticates. Runs the real command as a child process.
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
let child: ChildProcess
let dataDir: string
let output = ""
let base = ""
let demoKey = ""

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
  dataDir = mkdtempSync(join(tmpdir(), "whalewatch-start-"))
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: "0", SIM_PORT: "0", HISTORY_DAYS: "2" }
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  delete env["VENUES_URL"]
  child = spawn(process.execPath, ["bin/whalewatch.js", "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  child.stdout?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  child.stderr?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  base = await waitFor("the listening line", () => /listening on (http:\/\/[^\s]+)/.exec(output)?.[1], 90_000)
  demoKey = await waitFor("the demo key", () => /demo API key \(read,write\): (ww_[A-Za-z0-9_-]+)/.exec(output)?.[1], 5_000)
})

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  rmSync(dataDir, { recursive: true, force: true })
})

describe("npm start on a fresh DATA_DIR", () => {
  it("becomes healthy once every venue feed is connected and history is backfilled", async () => {
    const body = await waitFor("a healthy /healthz", async () => {
      const response = await fetch(`${base}/healthz`)
      return response.status === 200 ? (await response.json()) as { checks: Record<string, { ready: boolean }> } : undefined
    }, 60_000)
    expect(Object.keys(body.checks).sort()).toEqual(["backfill", "database", "feed:venue_a", "feed:venue_b", "feed:venue_b_us", "feed:venue_d"])
  })

  it("prints a demo key that authenticates, and refuses a missing one", async () => {
    const ok = await fetch(`${base}/v1/webhooks`, { headers: { authorization: `Bearer ${demoKey}` } })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ success: true, data: [] })
    const missing = await fetch(`${base}/v1/webhooks`)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ success: false, code: "UNAUTHORIZED" })
  })
})
