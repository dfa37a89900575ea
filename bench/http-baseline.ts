// Baseline latency of the HTTP door: an authenticated cheap route (GET /v2/test-things/:id: auth,
// rate-limit charge, path decode, envelope) at 200 concurrent keep-alive connections on loopback.
// The server runs in this process with in-memory Keys and Counters; the load generator runs in a
// worker thread so it does not share the server's event loop. Bounded by count and by time.
//   npx tsx bench/http-baseline.ts [--connections 200] [--requests 60000] [--seconds 15]
import { startServer } from "../test/support/http-server.js"
import { aPrincipal, memoryKeys } from "../test/support/memory-keys.js"
import { testOperations } from "../test/support/test-operations.js"
import { arg, type LoadOptions, runLoad, summary, tokensK } from "./support/load.js"

// Each key may make 120 requests a minute; rotate over enough keys that no request is refused.
const keyCount = (requests: number) => Math.ceil(requests / 100) + 10

const requests = arg("requests", 60_000)
const keys = keyCount(requests)
const options: LoadOptions = { connections: arg("connections", 200), requests, seconds: arg("seconds", 15), tokens: tokensK(keys), rate: 0, path: "/v2/test-things/1" }
const tokens = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, aPrincipal()]))
const server = await startServer({ operations: testOperations, keys: memoryKeys(tokens) })
// Warm-up (JIT, sockets), then the measured run.
await runLoad(server.url, { ...options, requests: 3_000, seconds: 5 })
console.log(JSON.stringify(summary("GET /v2/test-things/1 (authenticated)", options, await runLoad(server.url, options)), null, 2))
await server.close()
