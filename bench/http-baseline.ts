// Baseline latency of the HTTP door: an authenticated cheap route (GET /v2/test-things/:id: auth,
// rate-limit charge, path decode, envelope) at 200 concurrent keep-alive connections on loopback.
// The server runs in this process with in-memory Keys and Counters; the load generator runs in a
// worker thread so it does not share the server's event loop. Bounded by count and by time.
//   npx tsx bench/http-baseline.ts [--connections 200] [--requests 60000] [--seconds 15]
import { Agent, request } from "node:http"
import { Worker } from "node:worker_threads"
import { startServer } from "../test/support/http-server.js"
import { aPrincipal, memoryKeys } from "../test/support/memory-keys.js"
import { testOperations } from "../test/support/test-operations.js"

interface Options {
  readonly connections: number
  readonly requests: number
  readonly seconds: number
  /** How many keys the requests rotate over. */
  readonly keys: number
}

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(v) && v > 0 ? v : fallback
}

// Each key may make 120 requests a minute; rotate over enough keys that no request is refused.
const keyCount = (requests: number) => Math.ceil(requests / 100) + 10

interface Result {
  readonly done: number
  readonly errors: number
  readonly statuses: Record<string, number>
  readonly elapsedMs: number
  readonly latenciesMs: Array<number>
}

// Runs in the worker: self-contained (its source is sent as the worker's code), node:http only.
const load = async (url: string, options: Options): Promise<Result> => {
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const keys = options.keys
  const latencies: Array<number> = []
  const statuses: Record<string, number> = {}
  let issued = 0
  let done = 0
  let errors = 0
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  const one = () =>
    new Promise<void>((resolve) => {
      const token = `k${issued++ % keys}`
      const t0 = performance.now()
      const req = request(
        { agent, host: target.hostname, port: target.port, path: "/v2/test-things/1", headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.resume()
          res.on("end", () => {
            latencies.push(performance.now() - t0)
            statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1
            done++
            resolve()
          })
        },
      )
      req.on("error", () => {
        errors++
        resolve()
      })
      req.end()
    })
  const connection = async () => {
    while (issued < options.requests && performance.now() < deadline) await one()
  }
  await Promise.all(Array.from({ length: options.connections }, connection))
  const elapsedMs = performance.now() - started
  agent.destroy()
  return { done, errors, statuses, elapsedMs, latenciesMs: latencies }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { Agent, request } = require("node:http")
const __name = (f) => f // esbuild (tsx) keeps function names with this helper
const load = ${load.toString()}
load(workerData.url, workerData.options).then((r) => parentPort.postMessage(r))
`

const requests = arg("requests", 60_000)
const options: Options = { connections: arg("connections", 200), requests, seconds: arg("seconds", 15), keys: keyCount(requests) }
const tokens = Object.fromEntries(Array.from({ length: options.keys }, (_, i) => [`k${i}`, aPrincipal()]))
const server = await startServer({ operations: testOperations, keys: memoryKeys(tokens) })
const run = (opts: Options) =>
  new Promise<Result>((resolve, reject) => {
    const worker = new Worker(workerSource, { eval: true, workerData: { url: server.url, options: opts } })
    worker.once("message", (r: Result) => void worker.terminate().then(() => resolve(r)))
    worker.once("error", reject)
  })
// Warm-up (JIT, sockets), then the measured run.
await run({ ...options, requests: 3_000, seconds: 5 })
const r = await run(options)
const sorted = [...r.latenciesMs].sort((a, b) => a - b)
console.log(JSON.stringify({
  route: "GET /v2/test-things/1 (authenticated)",
  connections: options.connections,
  requests: r.done,
  errors: r.errors,
  statuses: r.statuses,
  seconds: +(r.elapsedMs / 1000).toFixed(2),
  reqPerSec: Math.round(r.done / (r.elapsedMs / 1000)),
  p50ms: +percentile(sorted, 50).toFixed(2),
  p99ms: +percentile(sorted, 99).toFixed(2),
  maxMs: +(sorted[sorted.length - 1] ?? NaN).toFixed(2),
}, null, 2))
await server.close()
