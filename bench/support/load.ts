// Drives an HTTP route from a worker thread and summarises what it measured. The generator writes raw
// HTTP/1.1 on keep-alive sockets (raw-load-worker.mjs); LOAD_CLIENT=http selects node:http's client
// (load-worker.mjs), which costs the generator ~0.1 ms more a request and tops out near 20,000 req/s
// against 40,000–50,000 on this machine (bench/paper.ts's bare route, closed loop).
import { Worker } from "node:worker_threads"

export interface LoadOptions {
  readonly connections: number
  readonly requests: number
  readonly seconds: number
  /** Requests per second (open loop); 0 = closed loop, as fast as the connections go. */
  readonly rate: number
  readonly path: string
  readonly method?: "GET" | "POST"
  /** Request n sends bodies[n % length] (JSON); none: no body. */
  readonly bodies?: ReadonlyArray<string>
  /** Request n uses the Bearer key tokens[(firstToken + n) % length]. */
  readonly tokens: ReadonlyArray<string>
  readonly firstToken?: number
  /** Each request gets `Idempotency-Key: <prefix>-<n>`. */
  readonly idempotencyPrefix?: string
}

export interface LoadResult {
  readonly done: number
  readonly errors: number
  readonly statuses: Record<string, number>
  readonly elapsedMs: number
  readonly latenciesMs: Array<number>
}

export const runLoad = (url: string, options: LoadOptions): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const file = process.env["LOAD_CLIENT"] === "http" ? "./load-worker.mjs" : "./raw-load-worker.mjs"
    const worker = new Worker(new URL(file, import.meta.url), { workerData: { url, options: { method: "GET", bodies: [], firstToken: 0, ...options } } })
    worker.once("message", (r: LoadResult) => void worker.terminate().then(() => resolve(r)))
    worker.once("error", reject)
  })

/** `k0`..`k<n-1>`: the tokens of the benches' in-memory keys. */
export const tokensK = (n: number): Array<string> => Array.from({ length: n }, (_, i) => `k${i}`)

/** `arg("rate", 1000)` reads `--rate N` from the command line. */
export const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(v) && v >= 0 ? v : fallback
}

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** One line of figures: requests, statuses, req/s, p50/p99/max latency. */
export const summary = (label: string, options: LoadOptions, r: LoadResult) => {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b)
  return {
    route: label,
    mode: options.rate > 0 ? `open loop at ${options.rate} req/s, up to ${options.connections} connections` : `closed loop, ${options.connections} connections`,
    requests: r.done,
    errors: r.errors,
    statuses: r.statuses,
    seconds: +(r.elapsedMs / 1000).toFixed(2),
    reqPerSec: Math.round(r.done / (r.elapsedMs / 1000)),
    p50ms: +percentile(sorted, 50).toFixed(2),
    p90ms: +percentile(sorted, 90).toFixed(2),
    p95ms: +percentile(sorted, 95).toFixed(2),
    p99ms: +percentile(sorted, 99).toFixed(2),
    maxMs: +(sorted[sorted.length - 1] ?? NaN).toFixed(2),
  }
}
