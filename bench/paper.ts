// Paper-order latency: POST /v2/paper-orders through the HTTP door at 200 concurrent connections (one
// key each, so the 120/min limit never answers), each order keyed, over real market actors and the
// accounts layer with group commit, on the suite's database (embedded PGlite, or DATABASE_URL).
// Target: p99 ≤ 5 ms. The crash run of 1,000 orders is the crash test with CRASH_ORDERS=1000:
//   CRASH_ORDERS=1000 npx vitest run test/paper/crash.test.ts
// Node's fetch keeps connections alive, so each of the CONNECTIONS loops holds its own connection.
// Run: node --import tsx bench/paper.ts [connections=200] [ordersPerConnection=100] (≤ 110: the 120/min limit)
import { aListing, aSnapshot } from "../test/actors/market-builders.js"
import { aPrincipal } from "../test/support/memory-keys.js"
import { startPaperServer } from "../test/paper/support.js"

const CONNECTIONS = Number(process.argv[2] ?? 200)
const PER = Number(process.argv[3] ?? 100)
const MARKETS = 50

const tokens: Record<string, ReturnType<typeof aPrincipal>> = {}
for (let i = 0; i < CONNECTIONS; i++) tokens[`k${i}`] = aPrincipal({ accountId: `bench_${i % 20}` })

const server = await startPaperServer(tokens)
for (let m = 0; m < MARKETS; m++) {
  server.feed(
    aListing({ contract: `BM${m}`, t: 1_000 + m }),
    aSnapshot({ contract: `BM${m}`, t: 2_000 + m, outcome: "yes", asks: [[0.41, 1e6], [0.42, 1e6]], bids: [[0.39, 1e6]] }),
  )
}

const post = async (token: string, key: string, market: string): Promise<number> => {
  const started = performance.now()
  const r = await fetch(`${server.url}/v2/paper-orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({ market, outcome: "yes", action: "buy", usd: 10 }),
  })
  await r.arrayBuffer()
  if (r.status !== 201) throw new Error(`status ${r.status}`)
  return performance.now() - started
}

const run = async (per: number, label: string) => {
  const latencies: Array<number> = []
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async (_, c) => {
    for (let i = 0; i < per; i++) latencies.push(await post(`k${c}`, `${label}-${c}-${i}`, `venue_a:BM${(c + i) % MARKETS}`))
  }))
  const seconds = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0
  return { n: latencies.length, seconds, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: latencies[latencies.length - 1] ?? 0 }
}

const backend = process.env["DATABASE_URL"] ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite"
await run(5, "warm")
const r = await run(PER, "bench")
console.log(`paper orders on ${backend}: ${r.n} orders, ${CONNECTIONS} concurrent connections, ${(r.n / r.seconds).toFixed(0)} orders/s`)
console.log(`latency ms: p50 ${r.p50.toFixed(2)}  p90 ${r.p90.toFixed(2)}  p99 ${r.p99.toFixed(2)}  max ${r.max.toFixed(2)}  (target p99 ≤ 5)`)
await server.close()
process.exit(0)
