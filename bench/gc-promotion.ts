// How much of a request's garbage a young-generation scavenge copies (and the next one promotes) at a
// paced rate, for five servers answering the same POST: a bare node:http route, the same allocating
// ~100 KB of garbage a request (so it scavenges as often as the others), the same again calling a
// generator function it makes per request, a minimal @effect/platform-node server (one HttpRouter route
// reading the JSON body), and whalewatch's own door (the paper-order route's shape answering a fixed
// order, as bench/paper.ts's "door only" row). Each runs twice: with node's default V8 flags and with the
// service's (src/v8-flags.ts).
// Each runs in a child process started with --trace-gc-nvp; the figures are that process's main-thread
// scavenges inside the measured window (the load generator is a worker thread with its own heap; the
// server's isolate is the one whose scavenges match the count the server's thread observed itself).
// A scavenge's pause grows with what it copies, so this is where the paper-order p99's GC share comes from.
// What it showed (README): a generator function object made per request (`Effect.gen(function* () {…})`
// inside a per-request function) kept each request's objects alive through the next scavenge, and so did
// V8's pretenuring of the request path's allocation sites.
//   node --import tsx bench/gc-promotion.ts [--rate 250] [--seconds 8] [--only <part of a server's name>] [--service-flags]
import { spawnSync } from "node:child_process"
import { createServer } from "node:http"
import { constants, PerformanceObserver } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { V8_FLAGS } from "../src/v8-flags.js"
import { arg, type LoadOptions, runLoad } from "./support/load.js"

type Mode =
  | "bare node:http" | "bare + 100 KB garbage" | "bare + garbage + a generator made per request" | "minimal @effect/platform-node"
  | "whalewatch door" | "whalewatch paper order"
const MODES: ReadonlyArray<Mode> = [
  "bare node:http", "bare + 100 KB garbage", "bare + garbage + a generator made per request", "minimal @effect/platform-node",
  "whalewatch door", "whalewatch paper order",
]
const RATE = arg("rate", 250)
const SECONDS = arg("seconds", 8)
const BODY = JSON.stringify({ market: "venue_a:BM0", outcome: "yes", action: "buy", usd: 10 })
const ANSWER = {
  id: "po_0000000000000000000000", market: { ref: "venue_a:BM0", contract: "venue_a:BM0", title: "BM0", venue: "venue_a", category: null, kind: null },
  outcome: "Yes", action: "buy", contracts: 23.4, avgPrice: 0.4273, cost: 10, unfilledContracts: 0, filledAt: "2026-01-01T00:00:00.000Z",
}
const KEYS = 400

/** The child: one server, a warm-up, then the measured window between two marker lines. */
const child = async (mode: Mode): Promise<void> => {
  let url: string
  let path = "/x"
  let idempotencyPrefix: string | undefined
  if (mode.startsWith("bare")) {
    const garbage = mode !== "bare node:http"
    const generator = mode === "bare + garbage + a generator made per request"
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        // As much short-lived garbage as a door request makes, so the bare server scavenges as often.
        if (garbage && Array.from({ length: 1_500 }, (_, i) => ({ i, s: `x${i}`, req })).length === 0) return
        if (generator) {
          // A generator function made here, as `Effect.gen(function* () {…})` in a per-request function is.
          const steps = function* (): Generator<number, number, number> {
            const a = yield 1
            return a + (req.complete ? 1 : 0)
          }
          const it = steps()
          if (it.next(0).done === true || it.next(1).value === 0) return
        }
        const body = JSON.stringify(ANSWER)
        res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        res.end(body)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  } else if (mode === "minimal @effect/platform-node") {
    const { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } = await import("@effect/platform")
    const { NodeHttpServer } = await import("@effect/platform-node")
    const { Effect, Layer, ManagedRuntime } = await import("effect")
    const app = HttpRouter.empty.pipe(HttpRouter.post("/x", Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(request.json, () => HttpServerResponse.unsafeJson(ANSWER, { status: 201 })))))
    const runtime = ManagedRuntime.make(HttpServer.serve(app).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
    ))
    const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
    url = `http://127.0.0.1:${(address as { port: number }).port}`
  } else {
    const { Effect } = await import("effect")
    const { PaperOrder } = await import("../src/domain/paper.js")
    const { operation } = await import("../src/operations/operation.js")
    const { PlacePaperOrderInput } = await import("../src/operations/paper-orders.js")
    const { aPrincipal } = await import("../test/support/memory-keys.js")
    const { startPaperServer } = await import("../test/paper/support.js")
    const { aListing, aSnapshot } = await import("../test/actors/market-builders.js")
    const doorOnly = operation({
      name: "benchDoorOnly", tool: "bench_door_only", method: "POST", path: "/v2/bench-door-only", scope: "write", status: 201,
      input: PlacePaperOrderInput, output: PaperOrder, headers: { "idempotency-key": "idempotencyKey" },
      run: () => Effect.succeed(ANSWER as typeof PaperOrder.Type),
    })
    const tokens = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, aPrincipal({ accountId: `a${i % 20}` })]))
    const server = await startPaperServer(tokens, { operations: [doorOnly] })
    url = server.url
    if (mode === "whalewatch door") path = "/v2/bench-door-only"
    else {
      // The order route itself, keyed, on the market the body names (deep enough never to run dry).
      path = "/v2/paper-orders"
      idempotencyPrefix = "gc"
      server.feed(
        aListing({ contract: "BM0", t: 1_000 }),
        aSnapshot({ contract: "BM0", t: 2_000, outcome: "yes", asks: [[0.41, 1e12], [0.42, 1e12]], bids: [[0.39, 1e12]] }),
      )
    }
  }
  const options = (rate: number, requests: number): LoadOptions => ({
    connections: 200, requests, seconds: 3_600, rate, path, method: "POST", bodies: [BODY],
    tokens: Array.from({ length: KEYS }, (_, i) => `k${i}`), firstToken: 0,
    ...(idempotencyPrefix === undefined ? {} : { idempotencyPrefix: `${idempotencyPrefix}-${rate}-${requests}` }),
  })
  await runLoad(url, options(0, 2_000))
  // This thread's own count of scavenges in the window tells its isolate's lines from the workers'.
  let minor = 0
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as unknown as { readonly detail?: { readonly kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++
  })
  observer.observe({ entryTypes: ["gc"] })
  console.log(`WINDOW_START ${Math.round(performance.now())}`)
  await runLoad(url, options(RATE, RATE * SECONDS))
  console.log(`WINDOW_END ${Math.round(performance.now())}`)
  observer.disconnect()
  console.log(`MINOR_GCS ${minor}`)
  process.exit(0)
}

interface Scavenge {
  readonly at: number
  readonly pause: number
  readonly promoted: number
  readonly survived: number
  readonly heapBefore: number
}

/** The main thread's scavenges inside the window, from --trace-gc-nvp output (one line per GC per isolate). */
const scavengesIn = (output: string): ReadonlyArray<Scavenge> => {
  const start = Number(/WINDOW_START (\d+)/.exec(output)?.[1])
  const end = Number(/WINDOW_END (\d+)/.exec(output)?.[1])
  const byIsolate = new Map<string, Array<Scavenge>>()
  for (const line of output.split("\n")) {
    const head = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: /.exec(line)
    if (head === null || !line.includes(" gc=s ")) continue
    const field = (name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? NaN)
    const list = byIsolate.get(head[1]!) ?? []
    list.push({ at: Number(head[2]), pause: field("pause"), promoted: field("promoted"), survived: field("new_space_survived"), heapBefore: field("total_size_before") })
    byIsolate.set(head[1]!, list)
  }
  // The server's thread: the isolate with as many scavenges in the window as that thread counted itself
  // (the load generator and tsx's loader are worker threads with their own isolates); the largest heap
  // breaks a tie.
  const minor = Number(/MINOR_GCS (\d+)/.exec(output)?.[1])
  const inWindow = [...byIsolate.values()].map((list) => list.filter((s) => s.at >= start && s.at <= end))
  const heap = (list: ReadonlyArray<Scavenge>) => Math.max(0, ...list.map((s) => s.heapBefore))
  const ranked = inWindow.sort((a, b) => Math.abs(a.length - minor) - Math.abs(b.length - minor) || heap(b) - heap(a))
  return minor === 0 ? [] : ranked[0] ?? []
}

const mode = process.argv[process.argv.indexOf("--child") + 1]
if (process.argv.includes("--child") && MODES.includes(mode as Mode)) {
  await child(mode as Mode)
} else {
  const self = fileURLToPath(import.meta.url)
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] ?? "" : ""
  const configs = [{ v8: "node defaults", flags: [] as ReadonlyArray<string> }, { v8: "service (src/v8-flags.ts)", flags: V8_FLAGS }]
    .filter((c) => !process.argv.includes("--service-flags") || c.flags.length > 0)
  const rows = configs.flatMap(({ v8, flags }) => MODES.filter((m) => m.includes(only)).map((m) => {
    const run = spawnSync(process.execPath, [...flags, "--trace-gc-nvp", "--import", "tsx", self, "--child", m, "--rate", String(RATE), "--seconds", String(SECONDS)], {
      encoding: "utf8", maxBuffer: 512 * 1024 * 1024,
    })
    if (run.status !== 0) throw new Error(`${m}: exit ${run.status}\n${run.stderr}`)
    const s = scavengesIn(run.stdout)
    const requests = RATE * SECONDS
    const mean = (f: (x: Scavenge) => number) => (s.length === 0 ? 0 : s.reduce((n, x) => n + f(x), 0) / s.length)
    return {
      server: m,
      v8,
      scavenges: s.length,
      "requests per scavenge": s.length === 0 ? requests : Math.round(requests / s.length),
      "pause ms (mean)": +mean((x) => x.pause).toFixed(2),
      "pause ms (max)": +Math.max(0, ...s.map((x) => x.pause)).toFixed(2),
      "copied KB per scavenge": Math.round(mean((x) => x.survived) / 1024),
      "promoted KB per scavenge": Math.round(mean((x) => x.promoted) / 1024),
      "promoted KB per request": +(s.reduce((n, x) => n + x.promoted, 0) / requests / 1024).toFixed(2),
    }
  }))
  console.log(`young-generation scavenges of the server's thread at ${RATE} req/s for ${SECONDS} s, 200 keep-alive connections`)
  console.table(rows)
}
