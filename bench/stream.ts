// Stream fan-out bench: 1,000 SSE subscribers with different filters (`market=<one of 100>`, so each
// trade reaches 10 of them) while trades are published at 1,000 per second. Latency = publish to the
// frame's bytes read by the client, p50/p99; the clients run in a child process (so they do not share
// the server's event loop) and the publish time travels in the frame (`market.title`, epoch ms from
// `performance.timeOrigin + performance.now()`, one clock for both processes). The same frames go
// through a raw node:http SSE fan-out in the same run as the baseline. Bounded, 127.0.0.1 only.
//
//   node --import tsx bench/stream.ts [subscribers=1000] [tradesPerSecond=1000] [seconds=8]
import { fork } from "node:child_process"
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Layer, ManagedRuntime } from "effect"
import type { Principal } from "../src/domain/principal.js"
import { makeHttpServer, serverUrl } from "../src/http/server.js"
import { IntelBus } from "../src/intel/intel-bus.js"
import type { StoredTrade } from "../src/intel/pipeline.js"
import { tradeRowOf } from "../src/intel/rows.js"
import { Health } from "../src/operations/health.js"
import { CursorKey } from "../src/operations/paging.js"
import { makeStreamDoor } from "../src/sse/door.js"
import { Fanout } from "../src/sse/fanout.js"
import { Counters } from "../src/store/counters.js"
import { memoryKeys } from "../test/support/memory-keys.js"
import { aStoredTrade } from "../test/stream/builders.js"

const args = process.argv.includes("--clients") ? [] : process.argv.slice(2)
const SUBSCRIBERS = Number(args[0] ?? 1000)
const RATE = Number(args[1] ?? 1000)
const SECONDS = Number(args[2] ?? 8)
const MARKETS = 100
const WARMUP_MS = 1500

const marketOf = (i: number) => `venue_a:m${i % MARKETS}`

const clock = () => performance.timeOrigin + performance.now()

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

/** Client side (child process): opens `n` SSE clients, records latencies of trade frames after warm-up. */
const clients = async (base: string, n: number) => {
  const latencies: Array<number> = []
  const since = { t: Infinity }
  const TITLE = /"title":"t:([0-9.]+)"/g
  const requests: Array<IncomingMessage> = []
  for (let i = 0; i < n; i++) {
    const u = new URL(`${base}/v2/stream?market=${encodeURIComponent(marketOf(i))}`)
    requests.push(await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers: { authorization: `Bearer k${i}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
        res.setEncoding("utf8")
        res.on("data", (text: string) => {
          const now = clock()
          if (now < since.t) return
          for (const match of text.matchAll(TITLE)) latencies.push(now - Number(match[1]))
        })
        resolve(res)
      })
      req.on("error", reject)
      req.end()
    }))
  }
  process.send?.({ connected: true })
  process.on("message", (m: { warm?: boolean; report?: boolean }) => {
    if (m.warm === true) since.t = clock() + WARMUP_MS
    if (m.report === true) {
      for (const r of requests) r.destroy()
      process.send?.({ latencies }, () => process.exit(0))
    }
  })
}

/** Starts the client process on `base`; resolves once every client is connected. */
const connect = async (base: string) => {
  const child = fork(new URL(import.meta.url).pathname, ["--clients", base, String(SUBSCRIBERS)], { execArgv: ["--import", "tsx"] })
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve())
    child.once("exit", (code) => reject(new Error(`clients exited ${code}`)))
  })
  child.send({ warm: true })
  return () => new Promise<Array<number>>((resolve) => {
    child.once("message", (m: { latencies: Array<number> }) => resolve(m.latencies))
    child.send({ report: true })
  })
}

/** Publishes RATE trades per second for SECONDS through `publish`, in 10 ms batches. */
const drive = async (publish: (trade: StoredTrade) => void) => {
  const start = performance.now()
  let sent = 0
  while (performance.now() - start < SECONDS * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * RATE)
    for (; sent < due; sent++) {
      publish(aStoredTrade({ market: marketOf(sent), contract: marketOf(sent), title: `t:${clock()}` }))
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  await new Promise((r) => setTimeout(r, 500))
  return sent
}

const report = (label: string, latencies: Array<number>, sent: number) => {
  const sorted = latencies.slice().sort((a, b) => a - b)
  const p50 = percentile(sorted, 0.5)
  const p99 = percentile(sorted, 0.99)
  console.log(`${label.padEnd(10)} trades ${sent}, frames measured ${sorted.length}, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(2)} ms`)
  return { p50, p99 }
}

// Raw node:http SSE: the same filter (market equality) and the same frame text, written directly.
const raw = async () => {
  const clients: Array<{ market: string; res: ServerResponse }> = []
  const server = createServer((req, res) => {
    const market = new URL(req.url ?? "/", "http://x").searchParams.get("market") ?? ""
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.write(": connected\n\n")
    clients.push({ market, res })
    req.on("close", () => clients.splice(clients.findIndex((c) => c.res === res), 1))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const finish = await connect(`http://127.0.0.1:${port}`)
  const sent = await drive((trade) => {
    const text = `event: trade\ndata: ${JSON.stringify(tradeRowOf(trade))}\n\n`
    for (const c of clients) if (c.market === trade.market) c.res.write(text)
  })
  const latencies = await finish()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  return report("raw", latencies, sent)
}

const ours = async () => {
  const tokens: Record<string, Principal> = {}
  for (let i = 0; i < SUBSCRIBERS; i++) {
    tokens[`k${i}`] = { keyId: `bench_${i}`, accountId: `a${i}`, accountName: `a${i}`, scopes: ["read"], subscriptionActive: true }
  }
  const layer = makeHttpServer([], { port: 0, host: "127.0.0.1" }, makeStreamDoor()).pipe(
    Layer.provideMerge(Fanout.local),
    Layer.provide([memoryKeys(tokens), Health.layer, CursorKey.layer("bench")]),
    Layer.provideMerge(Layer.mergeAll(IntelBus.layer, Counters.memory)),
  )
  const runtime = ManagedRuntime.make(layer)
  const url = await runtime.runPromise(serverUrl)
  const bus = await runtime.runPromise(IntelBus)
  const finish = await connect(url)
  // Published the way IntelLive publishes what the pipeline recorded (src/intel/live.ts): `unsafeOffer`.
  const sent = await drive((trade) => void bus.unsafeOffer({ _tag: "TradeRecorded", trade }))
  const latencies = await finish()
  await runtime.dispose()
  return report("whalewatch", latencies, sent)
}

const main = async () => {
  console.log(`${SUBSCRIBERS} subscribers (each trade matches ${SUBSCRIBERS / MARKETS}), ${RATE} trades/s, ${SECONDS} s each`)
  const a = await raw()
  const b = await ours()
  console.log(`p99 ratio whalewatch/raw: ${(b.p99 / a.p99).toFixed(2)} (target ≤ 1.25); p50 ratio ${(b.p50 / a.p50).toFixed(2)}`)

}

const at = process.argv.indexOf("--clients")
if (at >= 0) void clients(process.argv[at + 1] as string, Number(process.argv[at + 2]))
else {
  main().then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
}
