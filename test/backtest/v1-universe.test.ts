// GET /v1/universe (tool describe_universe) on a running server over a hand-built history: every figure
// by hand, a buy settled after now still open, the one-minute refresh, and an unknown parameter refused.
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { BacktestHistory, backtestHistoryOf } from "../../src/intel/backtest-store.js"
import { DAY_MS } from "../../src/intel/config.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { describeUniverseOperation } from "../../src/operations/v1-universe.js"
import { Counters } from "../../src/store/counters.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { historyTrades } from "../support/history-trades.js"

const NOW = Date.UTC(2026, 4, 10, 8, 0, 5)
const clock = manualClock(NOW)
const aBuy = historyTrades(NOW, { time: NOW - 2 * DAY_MS, title: "Lakers win?", usd: 10_000, settledAt: NOW - DAY_MS }, "u")

const history = new BacktestHistory()
history.addAll([
  aBuy({ time: NOW - 40 * DAY_MS, price: 0.1, usd: 50_000 }), // win, band 0.00-0.20
  aBuy({ price: 0.9, usd: 20_000, result: "loss", category: "politics", title: "Senate vote", trader: "venue_a:ann" }),
  aBuy({ venue: "venue_b", price: 0.45, usd: 30_000, result: "void", category: null, title: "Rain?" }),
  aBuy({ venue: "venue_d", price: 0.3, usd: 40_000, result: "win", settledAt: NOW + DAY_MS }), // settles after now: open
  aBuy({ whale: false, trader: "venue_a:bob", usd: 500 }), // a named small buy
])

let url = ""
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
beforeAll(async () => {
  const runtime = ManagedRuntime.make(makeHttpServer([describeUniverseOperation], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([memoryKeys({ a: aPrincipal() }), Counters.memory, Health.layer, CursorKey.layer("universe-test"), backtestHistoryOf(history)]),
    Layer.provide(clock.layer),
  ))
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
})
afterAll(() => server?.dispose())

describe("GET /v1/universe", () => {
  it("describes the whale buys held: coverage, counts, buckets and sizes", async () => {
    const answer = await call(url, "/v1/universe", { token: "a" })
    expect(answer.status).toBe(200)
    expect(answer.body.success).toBe(true)
    const data = answer.body.data
    expect(data).toMatchObject({
      generatedAt: new Date(NOW).toISOString(),
      coverage: { from: new Date(NOW - 40 * DAY_MS).toISOString(), to: new Date(NOW - 2 * DAY_MS).toISOString(), days: 38 },
      maxSinceDays: 365,
      whaleBuys: { total: 4, settled: 3, wins: 1, losses: 1, voids: 1, open: 1 },
      namedBuys: 2,
      traders: 2,
      markets: 3,
      sizes: { min: 20_000, p25: 20_000, p50: 30_000, p75: 40_000, p90: 50_000, p99: 50_000, max: 50_000 },
    })
    expect(data.platforms).toEqual([
      { platform: "venue_a", whaleBuys: 2, settled: 2, winRate: 0.5 },
      { platform: "venue_b", whaleBuys: 1, settled: 1, winRate: null },
      { platform: "venue_b_us", whaleBuys: 0, settled: 0, winRate: null },
      { platform: "venue_d", whaleBuys: 1, settled: 0, winRate: null },
    ])
    expect(data.categories.find((c: { category: string }) => c.category === "sports")).toEqual({ category: "sports", whaleBuys: 2, settled: 1, winRate: 1 })
    expect(data.categories.find((c: { category: string }) => c.category === "politics")).toEqual({ category: "politics", whaleBuys: 1, settled: 1, winRate: 0 })
    expect(data.categories.at(-1)).toEqual({ category: "unclassified", whaleBuys: 1, settled: 1, winRate: null })
    expect(data.priceBands.map((b: { whaleBuys: number }) => b.whaleBuys)).toEqual([1, 1, 1, 0, 1])
    expect(data.priceBands[0]).toEqual({ band: "0.00-0.20", whaleBuys: 1, settled: 1, winRate: 1 })
  })

  it("is recomputed at most once a minute", async () => {
    const first = (await call(url, "/v1/universe", { token: "a" })).body.data
    history.add(aBuy({ usd: 60_000 }))
    clock.set(NOW + 59_000)
    expect((await call(url, "/v1/universe", { token: "a" })).body.data).toEqual(first)
    clock.set(NOW + 60_000)
    const later = (await call(url, "/v1/universe", { token: "a" })).body.data
    expect(later.generatedAt).toBe(new Date(NOW + 60_000).toISOString())
    expect(later.whaleBuys.total).toBe(5)
  })

  it("refuses an unknown query parameter", async () => {
    const answer = await call(url, "/v1/universe?category=sports", { token: "a" })
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ success: false, error: "Unknown query parameter `category`", code: "VALIDATION" })
  })
})
