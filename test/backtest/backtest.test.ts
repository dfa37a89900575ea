// POST /v2/backtest end to end on a running server over a fixed in-memory history: every VALIDATION
// case of the spec's table, a sweep refused with QUOTA_EXCEEDED when its values would pass the
// per-minute limit, the 10-minute cache (x-cache, age), a trader backtest with byCategory, and the
// holdout, sweep and breakdown parts with their days, sizing and curves as encoded by the door.
import { randomBytes } from "node:crypto"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { BacktestHistory, backtestHistoryOf } from "../../src/intel/backtest-store.js"
import { runBacktest } from "../../src/operations/backtest.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { Redis } from "../../src/store/redis.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { historyTrades } from "../support/history-trades.js"

// Ten seconds into a minute, so a test's requests share one rate window.
const START = Date.UTC(2026, 3, 1, 12, 0, 10)
const clock = manualClock(START)
const aTrade = historyTrades(START, { kind: null })

const history = new BacktestHistory()
history.addAll([
  aTrade({ price: 0.25 }),
  aTrade({ price: 0.8, result: "loss", category: "politics", trader: "venue_a:ann" }),
  aTrade({ price: 0.4, result: "void", trader: "venue_a:ann" }),
  aTrade({ price: 0.5, result: "open", settledAt: null, trader: "venue_a:ann", category: "crypto", whale: false, usd: 50 }),
])

const tokens = ["a", "b", "c", "d", "e"] as const
const keys = memoryKeys(Object.fromEntries(tokens.map((t) => [t, aPrincipal()])))

const countersLayer = (): Layer.Layer<Counters> => {
  const url = process.env["REDIS_URL"]
  if (url === undefined || url === "") return Counters.memory
  return Counters.redis({ prefix: `test:backtest:${process.pid}:${randomBytes(4).toString("hex")}:` }).pipe(Layer.provide(Redis.layer(url)))
}

// One readiness registry, shared with the server, with a backfill check the tests turn on and off.
const health = Context.get(Effect.runSync(Effect.scoped(Layer.build(Health.layer))), Health)
let backfillDone = true
Effect.runSync(health.register("backfill", Effect.sync(() => ({ ready: backfillDone, detail: backfillDone ? "done" : "running" }))))

let url = ""
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
beforeAll(async () => {
  const runtime = ManagedRuntime.make(makeHttpServer([runBacktest], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([keys, countersLayer(), Layer.succeed(Health, health), CursorKey.layer("backtest-test"), backtestHistoryOf(history)]),
    Layer.provide(clock.layer),
  ))
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
})
afterAll(() => server?.dispose())

const post = (body: unknown, token = "a") => call(url, "/v2/backtest", { method: "POST", body, token })

describe("POST /v2/backtest validation", () => {
  const refused: ReadonlyArray<readonly [string, unknown, string]> = [
    ["neither signal nor trader", {}, "exactly one of signal or trader"],
    // Schema's internals (an object's field list) are not echoed: the sentence says an object was expected.
    ["a null sizing", { signal: {}, sizing: null }, "Invalid value for `sizing`: Expected an object, actual null"],
    ["a null signal", { signal: null }, "Invalid value for `signal`: Expected an object, actual null"],
    ["both signal and trader", { signal: {}, trader: "venue_a:ann" }, "exactly one of signal or trader"],
    ["holdout with trader", { trader: "venue_a:ann", holdout: true }, "holdout is only valid with a signal"],
    ["sweep with trader", { trader: "venue_a:ann", sweep: { field: "minUsd", values: [1, 2] } }, "sweep is only valid with a signal"],
    ["breakdown with trader", { trader: "venue_a:ann", breakdown: "month" }, "breakdown is only valid with a signal"],
    ["a sweep price above 1", { signal: {}, sweep: { field: "priceMin", values: [0.2, 1.5] } }, "prices from 0 to 1"],
    ["a signal price above 1", { signal: { priceMax: 1.2 } }, "signal.priceMax must be a price from 0 to 1"],
    ["minUsd above maxUsd", { signal: { minUsd: 50_000, maxUsd: 10_000 } }, "signal.maxUsd must be at least signal.minUsd"],
    ["priceMin above priceMax", { signal: { priceMin: 0.7, priceMax: 0.3 } }, "signal.priceMax must be at least signal.priceMin"],
    ["sweep values crossing the opposite bound", { signal: { priceMax: 0.5 }, sweep: { field: "priceMin", values: [0.2, 0.6] } }, "above signal.priceMax"],
    ["an unknown field", { signal: {}, bogus: 1 }, "Unknown field `bogus`"],
    ["an unknown signal field", { signal: { kind: "nba" } }, "Unknown field `signal.kind`"],
    ["an unknown sizing field", { signal: {}, sizing: { usd: 5, cap: 1 } }, "Unknown field `sizing.cap`"],
    ["an unknown sweep field", { signal: {}, sweep: { field: "minUsd", values: [1, 2], step: 1 } }, "Unknown field `sweep.step`"],
    ["days out of range", { signal: {}, days: 366 }, "days must be an integer from 1 to 365"],
    ["one sweep value", { signal: {}, sweep: { field: "minUsd", values: [1] } }, "sweep.values must hold 2 to 20 numbers"],
    ["21 sweep values", { signal: {}, sweep: { field: "minUsd", values: Array.from({ length: 21 }, (_, i) => i) } }, "sweep.values must hold 2 to 20 numbers"],
    ["both sizing forms", { signal: {}, sizing: { usd: 5, percent: 1, maxUsd: 10 } }, "exactly one of { usd } or { percent, maxUsd }"],
    ["a bad breakdown", { signal: {}, breakdown: "platform" }, "breakdown"],
    ["a bad trader ref", { trader: "venue_d:x" }, "must be a trader ref"],
  ]
  it("refuses a request with no body at all as `{}` (README: no body is read as `{}`)", async () => {
    clock.set(START)
    const none = await call(url, "/v2/backtest", { method: "POST", token: "e" })
    const empty = await post({}, "e")
    expect(none.status).toBe(400)
    expect(none.body).toEqual(empty.body)
  })
  for (const [name, body, message] of refused) {
    it(`refuses ${name}`, async () => {
      clock.set(START)
      const answer = await post(body, "e")
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: expect.any(String), code: "VALIDATION" })
      expect(answer.body.error).toContain(message)
    })
  }
})

describe("POST /v2/backtest scores", () => {
  it("scores a signal with defaults (usd 100, 90 days), and a trader with byCategory", async () => {
    clock.set(START)
    const signal = await post({ signal: {} }, "d")
    expect(signal.status).toBe(200)
    expect(signal.body.data).toMatchObject({ days: 90, sizing: { usd: 100 }, trades: 3, settled: 3, wins: 1, losses: 1, open: 0, staked: 200, profit: 200, return: 1 })
    expect(signal.body.data.curve).toHaveLength(14)
    const trader = await post({ trader: "venue_a:ann", days: 30 }, "d")
    expect(trader.body.data).toMatchObject({ days: 30, trades: 3, settled: 2, wins: 0, losses: 1, open: 1, profit: -100 })
    // Every buy of the trader, whale-size or not: a void (sports), a loss (politics), an open one (crypto).
    expect(trader.body.data.byCategory).toEqual([
      { category: "sports", settled: 1, wins: 0, profit: 0, return: null },
      { category: "politics", settled: 1, wins: 0, profit: -100, return: -1 },
      { category: "crypto", settled: 0, wins: 0, profit: 0, return: null },
    ])
  })
})

describe("POST /v2/backtest holdout, sweep and breakdown parts", () => {
  it("carry days (holdout parts), and days, sizing and their own weekly curve (sweep results, breakdown rows) through the door", async () => {
    clock.set(START)
    // 7 days from Wednesday 2026-03-25 12:00:10: weeks 03-23 and 03-30. The three whale buys were made
    // on Sunday 03-29 (week 03-23): 0.25 won (+300), 0.8 lost (−100, politics), 0.4 void.
    const sizing = { percent: 1, maxUsd: 100 } // 1 % of $20,000 capped at 100
    const answer = await post({ signal: {}, days: 7, sizing, holdout: true, sweep: { field: "priceMin", values: [0.3, 0.1] }, breakdown: "category" }, "d")
    expect(answer.status).toBe(200)
    const data = answer.body.data
    const weeks = (w23: readonly [number, number], cumulative: number) => [
      { week: "2026-03-23", settled: w23[0], profit: w23[1], cumulative },
      { week: "2026-03-30", settled: 0, profit: 0, cumulative },
    ]
    expect(data.curve).toEqual(weeks([3, 200], 200))
    expect(data.holdout.train).toEqual({ days: 4.67, trades: 3, settled: 3, wins: 1, losses: 1, open: 0, winRate: 0.5, staked: 200, profit: 200, return: 1 })
    expect(data.holdout.test).toEqual({ days: 2.33, trades: 0, settled: 0, wins: 0, losses: 0, open: 0, winRate: null, staked: 0, profit: 0, return: null })
    expect(data.sweep.results).toEqual([
      { value: 0.3, days: 7, sizing, trades: 2, settled: 2, wins: 0, losses: 1, open: 0, winRate: 0, staked: 100, profit: -100, return: -1, curve: weeks([2, -100], -100) },
      { value: 0.1, days: 7, sizing, trades: 3, settled: 3, wins: 1, losses: 1, open: 0, winRate: 0.5, staked: 200, profit: 200, return: 1, curve: weeks([3, 200], 200) },
    ])
    expect(data.breakdown.rows).toEqual([
      { bucket: "sports", days: 7, sizing, trades: 2, settled: 2, wins: 1, losses: 0, open: 0, winRate: 1, staked: 100, profit: 300, return: 3, curve: weeks([2, 300], 300) },
      { bucket: "politics", days: 7, sizing, trades: 1, settled: 1, wins: 0, losses: 1, open: 0, winRate: 0, staked: 100, profit: -100, return: -1, curve: weeks([1, -100], -100) },
    ])
  })
})

describe("POST /v2/backtest limits", () => {
  it("charges one request per sweep value, refusing a sweep that would pass the per-minute limit", async () => {
    clock.set(START + 60_000 * 5)
    for (let i = 0; i < 110; i++) expect((await post({ trader: "venue_a:ann", days: 1 + (i % 5) }, "b")).status).toBe(200)
    const values = Array.from({ length: 20 }, (_, i) => i / 20)
    const refused = await post({ signal: {}, sweep: { field: "priceMin", values } }, "b")
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe("QUOTA_EXCEEDED")
    expect(refused.headers.get("retry-after")).toBe("50")
    // Only the refused request itself was counted: 9 left, and a 9-value sweep uses exactly them.
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("9")
    const nine = await post({ signal: {}, sweep: { field: "priceMin", values: values.slice(0, 9) } }, "b")
    expect(nine.status).toBe(200)
    expect(nine.body.data.sweep.results).toHaveLength(9)
    expect(nine.headers.get("x-ratelimit-remaining")).toBe("0")
    clock.set(START)
  })

  it("answers a repeated identical request from the cache for 10 minutes, for any account", async () => {
    clock.set(START + 60_000 * 10)
    const body = { signal: { venue: ["venue_a"], category: ["sports", "politics"] }, days: 30, breakdown: "category" }
    const first = await post(body, "c")
    expect(first.headers.get("x-cache")).toBe("miss")
    // A new trade arrives; the cached answer does not change within 10 minutes.
    history.add(aTrade({ time: START + 60_000 * 9, result: "loss" }))
    clock.advance(60_000)
    const again = await post({ days: 30, breakdown: "category", signal: { category: ["politics", "sports"], venue: ["venue_a"] } }, "d")
    expect(again.headers.get("x-cache")).toBe("hit")
    expect(again.headers.get("age")).toBe("60")
    expect(again.body).toEqual(first.body)
    clock.advance(9 * 60_000)
    const fresh = await post(body, "c")
    expect(fresh.headers.get("x-cache")).toBe("miss")
    expect(fresh.body.data.trades).toBe(first.body.data.trades + 1)
    clock.set(START)
  })

  it("does not cache a score computed while the startup backfill runs", async () => {
    clock.set(START + 60_000 * 30)
    const body = { signal: { venue: ["venue_a"] }, days: 20 }
    backfillDone = false
    try {
      const first = await post(body, "e")
      expect(first.headers.get("x-cache")).toBe("miss")
      history.add(aTrade({ time: START + 60_000 * 29 }))
      const during = await post(body, "e")
      expect(during.headers.get("x-cache")).toBe("miss")
      expect(during.body.data.trades).toBe(first.body.data.trades + 1) // the backfilled trade is counted at once
      backfillDone = true
      const done = await post(body, "e")
      expect(done.headers.get("x-cache")).toBe("miss")
      expect(done.body).toEqual(during.body)
      expect((await post(body, "e")).headers.get("x-cache")).toBe("hit")
    } finally {
      backfillDone = true
      clock.set(START)
    }
  })
})
