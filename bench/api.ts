// GET /v2/trades with three filters (venue, minUsd, action) against a bare node:http JSON route, in
// the same run, on loopback: closed loop at N concurrent keep-alive connections (throughput, p50/p99),
// then open loop paced at a fixed rate (p99 at the target rate). The API server is the test fixture
// (test/support/api-fixture.ts: seeded whale_trades in a TestDb, in-memory keys, Counters); the load
// generator runs in a worker thread so it does not share the server's event loop. Keys rotate so no
// request meets the per-minute limit or the daily trade allowance. Bounded by count and by time.
//   npx tsx bench/api.ts [--connections 200] [--requests 20000] [--seconds 15] [--rate 1000]
// DATABASE_URL / REDIS_URL select the backends as for the tests (embedded PGlite otherwise).
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { Worker } from "node:worker_threads"
import { startApiFixture } from "../test/support/api-fixture.js"

interface Options {
  readonly connections: number
  readonly requests: number
  readonly seconds: number
  readonly keys: number
  readonly path: string
  /** Requests per second (open loop); 0 = closed loop, as fast as the connections go. */
  readonly rate: number
}

interface Result {
  readonly done: number
  readonly errors: number
  readonly statuses: Record<string, number>
  readonly elapsedMs: number
  readonly latenciesMs: Array<number>
}

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(v) && v > 0 ? v : fallback
}

// Runs in the worker: self-contained (its source is the worker's code), node:http only.
const load = async (url: string, options: Options): Promise<Result> => {
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: Array<number> = []
  const statuses: Record<string, number> = {}
  let issued = 0
  let done = 0
  let errors = 0
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  const one = () =>
    new Promise<void>((resolve) => {
      const token = `k${issued++ % options.keys}`
      const t0 = performance.now()
      const req = request(
        { agent, host: target.hostname, port: target.port, path: options.path, headers: { authorization: `Bearer ${token}` } },
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
  if (options.rate > 0) {
    // Open loop: request i leaves at started + i / rate, whatever the answers before it.
    const pending: Array<Promise<void>> = []
    while (issued < options.requests && performance.now() < deadline) {
      const due = started + (issued * 1000) / options.rate
      const wait = due - performance.now()
      if (wait > 1) await new Promise((r) => setTimeout(r, wait))
      pending.push(one())
    }
    await Promise.all(pending)
  } else {
    const connection = async () => {
      while (issued < options.requests && performance.now() < deadline) await one()
    }
    await Promise.all(Array.from({ length: options.connections }, connection))
  }
  const elapsedMs = performance.now() - started
  agent.destroy()
  return { done, errors, statuses, elapsedMs, latenciesMs: latencies }
}

const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { Agent, request } = require("node:http")
const __name = (f) => f
const load = ${load.toString()}
load(workerData.url, workerData.options).then((r) => parentPort.postMessage(r))
`

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const run = (url: string, opts: Options) =>
  new Promise<Result>((resolve, reject) => {
    const worker = new Worker(workerSource, { eval: true, workerData: { url, options: opts } })
    worker.once("message", (r: Result) => void worker.terminate().then(() => resolve(r)))
    worker.once("error", reject)
  })

const summary = (label: string, opts: Options, r: Result) => {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b)
  return {
    route: label,
    mode: opts.rate > 0 ? `open loop at ${opts.rate} req/s` : `closed loop, ${opts.connections} connections`,
    requests: r.done,
    errors: r.errors,
    statuses: r.statuses,
    seconds: +(r.elapsedMs / 1000).toFixed(2),
    reqPerSec: Math.round(r.done / (r.elapsedMs / 1000)),
    p50ms: +percentile(sorted, 50).toFixed(2),
    p99ms: +percentile(sorted, 99).toFixed(2),
    maxMs: +(sorted[sorted.length - 1] ?? NaN).toFixed(2),
  }
}

const requests = arg("requests", 20_000)
const connections = arg("connections", 200)
const seconds = arg("seconds", 15)
const rate = arg("rate", 1_000)
// 120 requests a minute per key, and 50 rows each against 50,000 a day: 100 requests per key is safe.
const keys = Math.ceil(Math.max(requests, rate * seconds) / 100) + 10

const fixture = await startApiFixture({ keys })
const tradesPath = "/v2/trades?venue=venue_a&minUsd=20000&action=all"
const probe = await fetch(fixture.url + tradesPath, { headers: { authorization: "Bearer k0" } })
const rowsPerPage = ((await probe.json()) as { data: Array<unknown> }).data.length

// The bare route: the same page of JSON, prebuilt, from node:http with no framework at all.
const body = JSON.stringify({ data: Array.from({ length: rowsPerPage }, (_, i) => ({ id: `t${i}`, usd: 12_345, price: 0.42 })), nextCursor: null })
const bare = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
})
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve))
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`

const base: Options = { connections, requests, seconds, keys, path: tradesPath, rate: 0 }
const results: Array<ReturnType<typeof summary>> = []
// Warm-up (JIT, sockets, plans), then the measured runs; keys restart at k0 each run, so the warm-up
// uses its own slice of keys by running against the bare route only.
await run(bareUrl, { ...base, requests: 2_000, seconds: 3 })
results.push(summary("bare node:http JSON", base, await run(bareUrl, base)))
results.push(summary(`GET ${tradesPath}`, base, await run(fixture.url, base)))
fixture.clock.advance(61_000) // a fresh minute window for every key
const paced: Options = { ...base, rate, requests: Math.min(requests, rate * seconds) }
results.push(summary("bare node:http JSON", paced, await run(bareUrl, paced)))
results.push(summary(`GET ${tradesPath}`, paced, await run(fixture.url, paced)))
console.log(JSON.stringify({
  backend: process.env["DATABASE_URL"] ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite",
  counters: process.env["REDIS_URL"] ? "Redis" : "in process",
  rowsPerPage,
  results,
}, null, 2))
bare.close()
await fixture.close()
