// The whole service as a child process (`bin/whalewatch.js serve`, what `npm start` runs) on a fresh
// DATA_DIR with embedded defaults and the in-process simulator on free ports, for end-to-end tests.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

/** Polls `probe` every 200 ms until it gives a value; on timeout the error shows `context()`. */
export const waitFor = async <A>(
  what: string,
  probe: () => A | undefined | Promise<A | undefined>,
  ms: number,
  context: () => string = () => "",
): Promise<A> => {
  const deadline = performance.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${context()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

export interface Service {
  /** `http://host:port` of the doors. */
  readonly base: string
  /** `http://127.0.0.1:port` of the simulator (control API, history). */
  readonly sim: string
  /** The demo key printed on first start. */
  readonly key: string
  readonly output: () => string
  readonly waitFor: <A>(what: string, probe: () => A | undefined | Promise<A | undefined>, ms: number) => Promise<A>
  /** SIGTERM, wait for exit, remove the data dir. */
  readonly stop: () => Promise<void>
}

/** Starts the service and resolves once it listens and has printed its simulator address and demo key. */
export const startService = async (options: { readonly prefix: string; readonly env?: Record<string, string> }): Promise<Service> => {
  const dataDir = mkdtempSync(join(tmpdir(), options.prefix))
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: "0", SIM_PORT: "0", ...options.env }
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  delete env["VENUES_URL"]
  const child = spawn(process.execPath, ["bin/whalewatch.js", "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  child.stderr?.on("data", (chunk: Buffer) => { output += chunk.toString() })
  const waitForOutput = <A>(what: string, probe: () => A | undefined | Promise<A | undefined>, ms: number) =>
    waitFor(what, probe, ms, () => output)
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const base = await waitForOutput("the listening line", () => /listening on (http:\/\/[^\s]+)/.exec(output)?.[1], 90_000)
    const sim = await waitForOutput("the simulator line", () => /venue simulator \(seed \d+\) on (http:\/\/[^\s:]+:\d+)/.exec(output)?.[1], 5_000)
    const key = await waitForOutput("the demo key", () => /demo API key \(read,write\): (ww_[A-Za-z0-9_-]+)/.exec(output)?.[1], 5_000)
    return { base, sim, key, output: () => output, waitFor: waitForOutput, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Resolves once GET /healthz answers 200. */
export const healthy = (service: Service, ms: number) =>
  service.waitFor("a healthy service", async () => {
    const response = await fetch(`${service.base}/healthz`)
    return response.status === 200 ? ((await response.json()) as { checks: Record<string, { ready: boolean }> }) : undefined
  }, ms)
