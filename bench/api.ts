// GET /v2/trades with three filters (venue, minUsd, action) against a bare node:http JSON route, in
// the same run, on loopback: closed loop at N concurrent keep-alive connections (throughput, p50/p99),
// then open loop paced at a fixed rate (p99 at the target rate). The API server is the test fixture
// (test/support/api-fixture.ts: seeded whale_trades in a TestDb, in-memory keys, Counters); the load
// generator runs in a worker thread so it does not share the server's event loop. Keys rotate so no
// request meets the per-minute limit or the daily trade allowance. Bounded by count and by time.
//   npx tsx bench/api.ts [--connections 200] [--requests 20000] [--seconds 15] [--rate 1000]
// DATABASE_URL / REDIS_URL select the backends as for the tests (embedded PGlite otherwise).
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { startApiFixture } from "../test/support/api-fixture.js"
import { arg, type LoadOptions, runLoad, summary, tokensK } from "./support/load.js"

const requests = arg("requests", 20_000)
const connections = arg("connections", 200)
const seconds = arg("seconds", 15)
const rate = arg("rate", 1_000)
// 120 requests a minute per key, and 50 rows each against 50,000 a day: 100 requests per key and minute is safe.
const keys = Math.ceil(Math.max(requests, rate * seconds) / 100) + 10

const fixture = await startApiFixture({ keys })
const tradesPath = "/v2/trades?venue=venue_a&minUsd=20000&action=all"
const probe = await fetch(fixture.url + tradesPath, { headers: { authorization: "Bearer k0" } })
const body = await probe.text()
const rowsPerPage = (JSON.parse(body) as { data: Array<unknown> }).data.length

// The bare route: the same page of JSON (same bytes), prebuilt, from node:http with no framework at all.
const bare = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
})
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve))
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`

const base: LoadOptions = { connections, requests, seconds, tokens: tokensK(keys), path: tradesPath, rate: 0 }
const results: Array<ReturnType<typeof summary>> = []
// Warm-up of both (JIT, sockets), then the measured runs, each in a fresh minute window of every key.
await runLoad(bareUrl, { ...base, requests: 2_000, seconds: 3 })
await runLoad(fixture.url, { ...base, requests: 2_000, seconds: 3 })
fixture.clock.advance(61_000)
results.push(summary("bare node:http JSON", base, await runLoad(bareUrl, base)))
results.push(summary(`GET ${tradesPath}`, base, await runLoad(fixture.url, base)))
fixture.clock.advance(61_000) // a fresh minute window for every key
const paced: LoadOptions = { ...base, rate, requests: Math.min(requests, rate * seconds) }
results.push(summary("bare node:http JSON", paced, await runLoad(bareUrl, paced)))
results.push(summary(`GET ${tradesPath}`, paced, await runLoad(fixture.url, paced)))
console.log(JSON.stringify({
  backend: process.env["DATABASE_URL"] ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite",
  counters: process.env["REDIS_URL"] ? "Redis" : "in process",
  rowsPerPage,
  results,
}, null, 2))
bare.close()
await fixture.close()
