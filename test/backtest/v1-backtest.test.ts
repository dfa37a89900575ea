// POST /v1/backtest end to end on a running server over a fixed in-memory history: the v1 envelope and
// score with its defaults, each criterion on a hand-built history (directions by the contracts' sides),
// holdout, and every bound at its edge (the value passes, one past it is VALIDATION naming the field).
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { BacktestHistory, backtestHistoryOf } from "../../src/intel/backtest-store.js"
import { DAY_MS } from "../../src/intel/config.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { breakdownV1Backtest, compareV1Backtests, runV1Backtest, sweepV1Backtest } from "../../src/operations/v1-backtest.js"
import { compareTraders } from "../../src/operations/v1-compare-traders.js"
import { scoreTrader } from "../../src/intel/backtest.js"
import type { TraderRef } from "../../src/domain/refs.js"
import { Counters } from "../../src/store/counters.js"
import { call } from "../support/http-client.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { historyTrades } from "../support/history-trades.js"

const NOW = Date.UTC(2026, 3, 1, 12, 0, 10)
const clock = manualClock(NOW)
const aTrade = historyTrades(NOW)

// venue_b names its sides after the teams: "Celtics" is the second side of that contract.
const sides: Record<string, readonly [string, string]> = { "venue_b:game": ["Lakers", "Celtics"] }
const history = new BacktestHistory({
  sideOf: (contract, outcome) => {
    const known = sides[contract]
    return known === undefined ? (outcome === "No" ? 1 : 0) : known[1] === outcome ? 1 : 0
  },
})
history.addAll([
  aTrade({ price: 0.25 }), // win: +300 on 100
  aTrade({ price: 0.8, result: "loss", category: "politics", kind: "us_politics", title: "Senate vote", entry: "add" }), // −100
  aTrade({ price: 0.4, result: "void", entry: null }), // void: no stake
  aTrade({ outcome: "No", result: "open", settledAt: null, entry: "flip", usd: 90_000 }), // open
  aTrade({ venue: "venue_b", contract: "venue_b:game", outcome: "Celtics", price: 0.5, kind: "nfl", title: "Chiefs game" }), // win +100, buy_no
  aTrade({ time: NOW - 100 * DAY_MS, settledAt: NOW - 99 * DAY_MS }), // outside the default 90 days
  aTrade({ action: "sell", entry: "trim" }), // never scored
  aTrade({ whale: false, trader: "venue_a:ann" }), // not whale-size
  aTrade({ whale: false, trader: "venue_a:bob", price: 0.2, usd: 800 }), // win
  aTrade({ whale: false, trader: "venue_a:bob", price: 0.6, result: "loss", time: NOW - 30 * DAY_MS, settledAt: NOW - 29 * DAY_MS }),
])

const keys = memoryKeys({ a: aPrincipal(), b: aPrincipal(), c: aPrincipal(), s: aPrincipal(), t: aPrincipal() })
let url = ""
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
beforeAll(async () => {
  const runtime = ManagedRuntime.make(makeHttpServer([runV1Backtest, compareTraders, sweepV1Backtest, compareV1Backtests, breakdownV1Backtest], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("v1-backtest-test"), backtestHistoryOf(history)]),
    Layer.provide(clock.layer),
  ))
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
})
afterAll(() => server?.dispose())

let turn = 0
const tokens = ["a", "b", "c"] as const
const post = (body: unknown) => call(url, "/v1/backtest", { method: "POST", body, token: tokens[turn++ % tokens.length] as string })

const score = async (body: unknown) => {
  const answer = await post(body)
  expect(answer.status).toBe(200)
  expect(answer.body.success).toBe(true)
  return answer.body.data
}

describe("POST /v1/backtest", () => {
  it("scores every whale buy of the last 90 days at 100 a trade with an empty body", async () => {
    expect(await score({})).toEqual({
      matched: 5, settled: 4, wins: 2, losses: 1, open: 1, winRate: 0.666667, stakedUsd: 300, pnlUsd: 300,
      returnPct: 100, stakeUsd: 100, window: { sinceDays: 90, stake: 100 },
    })
  })

  it("applies each criterion", async () => {
    const matched = async (criteria: unknown) => (await score({ criteria })).matched
    expect(await matched({ sinceDays: 120 })).toBe(6)
    expect(await matched({ platforms: ["venue_b"] })).toBe(1)
    expect(await matched({ platforms: ["venue_e"] })).toBe(0)
    expect(await matched({ categories: ["politics"] })).toBe(1)
    expect(await matched({ sportsLeagues: ["NBA"] })).toBe(3)
    expect(await matched({ sportsLeagues: ["nfl", "nba"] })).toBe(4)
    expect(await matched({ minAmountUsd: 20_001 })).toBe(1)
    expect(await matched({ maxAmountUsd: 20_000 })).toBe(4)
    expect(await matched({ priceMin: 0.5, priceMax: 0.8 })).toBe(3)
    expect(await matched({ eventTypes: ["flip"] })).toBe(1)
    expect(await matched({ eventTypes: ["unknown"] })).toBe(1)
    expect(await matched({ eventTypes: ["trim", "close"] })).toBe(0)
    expect(await matched({ directions: ["buy_no"] })).toBe(2)
    expect(await matched({ directions: ["buy_yes"] })).toBe(3)
    expect(await matched({ directions: ["sell_yes"] })).toBe(0)
    expect(await matched({ keywords: ["SENATE", "chiefs"] })).toBe(2)
    // An empty list is every value, keywords as every other list.
    const all = await matched({})
    for (const k of ["platforms", "categories", "sportsLeagues", "eventTypes", "directions", "keywords"]) expect(await matched({ [k]: [] }), k).toBe(all)
  })

  it("scales by the stake and splits the window with holdout", async () => {
    const data = await score({ stake: 50, holdout: true, criteria: { sinceDays: 9 } })
    expect(data).toMatchObject({ matched: 5, stakedUsd: 150, pnlUsd: 150, stakeUsd: 50, window: { sinceDays: 9, stake: 50 } })
    // The window is [now − 9 days, now]: the split is now − 3 days, and the trades placed then open the test third.
    expect(data.holdout.splitAt).toBe(new Date(NOW - 3 * DAY_MS).toISOString())
    expect(data.holdout.train).toMatchObject({ matched: 0, winRate: 0, returnPct: 0 })
    expect(data.holdout.test).toMatchObject({ matched: 5, wins: 2, losses: 1, stakedUsd: 150, pnlUsd: 150, returnPct: 100 })
    expect(data.holdout.holds).toBe(true)
    expect((await score({ stake: 50 })).holdout).toBeUndefined()
  })

  const edges: ReadonlyArray<readonly [string, unknown, unknown, string]> = [
    ["sinceDays", { criteria: { sinceDays: 365 } }, { criteria: { sinceDays: 366 } }, "criteria.sinceDays must be an integer from 1 to 365"],
    ["sinceDays (low)", { criteria: { sinceDays: 1 } }, { criteria: { sinceDays: 0 } }, "criteria.sinceDays must be an integer from 1 to 365"],
    ["stake", { stake: 1_000_000 }, { stake: 1_000_000.01 }, "stake must be above 0 and at most 1000000"],
    ["stake (low)", { stake: 0.01 }, { stake: 0 }, "stake must be above 0"],
    ["sportsLeagues", { criteria: { sportsLeagues: Array.from({ length: 20 }, () => "nba") } },
      { criteria: { sportsLeagues: Array.from({ length: 21 }, () => "nba") } }, "criteria.sportsLeagues may hold at most 20 values"],
    ["keywords", { criteria: { keywords: Array.from({ length: 10 }, (_, i) => `k${i}`) } },
      { criteria: { keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) } }, "criteria.keywords may hold at most 10 values"],
    ["priceMax", { criteria: { priceMax: 1 } }, { criteria: { priceMax: 1.01 } }, "criteria.priceMax"],
    ["amount bounds", { criteria: { minAmountUsd: 5, maxAmountUsd: 5 } }, { criteria: { minAmountUsd: 5, maxAmountUsd: 4 } },
      "criteria.maxAmountUsd must be at least criteria.minAmountUsd"],
    ["unknown fields", { holdout: false }, { criteria: { kind: "nba" } }, "Unknown field `criteria.kind`"],
  ]
  for (const [name, passes, refused, message] of edges) {
    it(`holds the ${name} bound at its edge`, async () => {
      expect((await post(passes)).status).toBe(200)
      const answer = await post(refused)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: expect.any(String), code: "VALIDATION" })
      expect(answer.body.error).toContain(message)
    })
  }
})

describe("POST /v1/traders/compare", () => {
  const compare = (body: unknown) => call(url, "/v1/traders/compare", { method: "POST", body, token: tokens[turn++ % tokens.length] as string })

  it("scores each trader's buys of any size at the same stake and window, in the request's order", async () => {
    const answer = await compare({ traders: ["venue_a:bob", "venue_a:ann", "venue_b:nobody"], stake: 50, sinceDays: 60 })
    expect(answer.status).toBe(200)
    expect(answer.body.success).toBe(true)
    const data = answer.body.data
    expect(data.window).toEqual({ sinceDays: 60, stake: 50 })
    expect(data.traders.map((t: { trader: string }) => t.trader)).toEqual(["venue_a:bob", "venue_a:ann", "venue_b:nobody"])
    // bob: two small buys, a win at 0.20 (+200) and a loss at 0.60 (−50).
    expect(data.traders[0]).toEqual({
      trader: "venue_a:bob", matched: 2, settled: 2, wins: 1, losses: 1, open: 0, winRate: 0.5, stakedUsd: 100, pnlUsd: 150, returnPct: 150,
    })
    expect(data.traders[2]).toEqual({
      trader: "venue_b:nobody", matched: 0, settled: 0, wins: 0, losses: 0, open: 0, winRate: 0, stakedUsd: 0, pnlUsd: 0, returnPct: 0,
    })
    // Each row is that trader's v2 trader backtest at the same stake and days.
    for (const row of data.traders) {
      const v2 = scoreTrader(history, { trader: row.trader as TraderRef, sizing: { usd: 50 }, days: 60 }, NOW)
      expect(row).toMatchObject({ matched: v2.trades, settled: v2.settled, wins: v2.wins, losses: v2.losses, open: v2.open, stakedUsd: v2.staked, pnlUsd: v2.profit })
    }
    expect((await compare({ traders: ["venue_a:bob", "venue_a:ann"], sinceDays: 20 })).body.data.traders[0].matched).toBe(1)
  })

  const edges: ReadonlyArray<readonly [string, unknown, unknown, string]> = [
    ["traders (low)", { traders: ["venue_a:a", "venue_a:b"] }, { traders: ["venue_a:a"] }, "traders must hold 2 to 10 different trader refs"],
    ["traders (high)", { traders: Array.from({ length: 10 }, (_, i) => `venue_a:t${i}`) },
      { traders: Array.from({ length: 11 }, (_, i) => `venue_a:t${i}`) }, "traders must hold 2 to 10 different trader refs"],
    ["repeated traders", { traders: ["venue_a:a", "venue_b:a"] }, { traders: ["venue_a:a", "venue_a:a"] }, "traders must hold 2 to 10 different trader refs"],
    ["trader refs", { traders: ["venue_a:a", "venue_b:b"] }, { traders: ["venue_a:a", "venue_d:b"] }, "must be a trader ref"],
    ["stake", { traders: ["venue_a:a", "venue_b:b"], stake: 1_000_000 }, { traders: ["venue_a:a", "venue_b:b"], stake: 1_000_001 }, "stake must be above 0 and at most 1000000"],
    ["sinceDays", { traders: ["venue_a:a", "venue_b:b"], sinceDays: 365 }, { traders: ["venue_a:a", "venue_b:b"], sinceDays: 366 }, "sinceDays must be an integer from 1 to 365"],
    ["unknown fields", { traders: ["venue_a:a", "venue_b:b"] }, { traders: ["venue_a:a", "venue_b:b"], days: 3 }, "Unknown field `days`"],
  ]
  for (const [name, passes, refused, message] of edges) {
    it(`holds the ${name} bound at its edge`, async () => {
      expect((await compare(passes)).status).toBe(200)
      const answer = await compare(refused)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: expect.any(String), code: "VALIDATION" })
      expect(answer.body.error).toContain(message)
    })
  }
})

describe("the v1 backtest variants", () => {
  const at = (path: string, body: unknown, token?: string) =>
    call(url, path, { method: "POST", body, token: token ?? (tokens[turn++ % tokens.length] as string) })

  it("sweeps one bound, each value a request; its results are the backtests with that value", async () => {
    const before = await at("/v1/backtest", {}, "s")
    const remaining = Number(before.headers.get("x-ratelimit-remaining"))
    const answer = await at("/v1/backtest/sweep", { field: "priceMax", values: [0.3, 0.6, 1] }, "s")
    expect(answer.status).toBe(200)
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBe(remaining - 3)
    expect(answer.body.data.field).toBe("priceMax")
    expect(answer.body.data.window).toEqual({ sinceDays: 90, stake: 100 })
    expect(answer.body.data.results.map((r: { value: number; matched: number }) => [r.value, r.matched])).toEqual([[0.3, 1], [0.6, 4], [1, 5]])
    for (const r of answer.body.data.results) {
      const { value, ...fields } = r
      const { stakeUsd: _s, window: _w, ...one } = (await at("/v1/backtest", { criteria: { priceMax: value } })).body.data
      expect(fields).toEqual(one)
    }
  })

  it("compares labelled rules, each a request, each scored over its own window", async () => {
    const before = Number((await at("/v1/backtest", {}, "t")).headers.get("x-ratelimit-remaining"))
    const answer = await at("/v1/backtest/compare", {
      rules: [{ label: "everything" }, { label: "nba", criteria: { sportsLeagues: ["nba"], sinceDays: 30 } }],
      stake: 10,
    }, "t")
    expect(answer.status).toBe(200)
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBe(before - 2)
    expect(answer.body.data.stake).toBe(10)
    expect(answer.body.data.results.map((r: { label: string; sinceDays: number; matched: number }) => [r.label, r.sinceDays, r.matched]))
      .toEqual([["everything", 90, 5], ["nba", 30, 3]])
  })

  it("breaks the score down by category, platform, month and price band", async () => {
    const by = async (b: string) => (await at("/v1/backtest/breakdown", { by: b })).body.data
    const categories = await by("category")
    expect(categories.rows.map((r: { bucket: string; matched: number }) => [r.bucket, r.matched])).toEqual([["sports", 4], ["politics", 1]])
    const platforms = await by("platform")
    expect(platforms.rows.map((r: { bucket: string; matched: number }) => [r.bucket, r.matched])).toEqual([["venue_a", 4], ["venue_b", 1]])
    expect((await by("month")).rows.map((r: { bucket: string }) => r.bucket)).toEqual([new Date(NOW - 3 * DAY_MS).toISOString().slice(0, 7)])
    const bands = await by("price_band")
    expect(bands.rows.map((r: { bucket: string; matched: number }) => [r.bucket, r.matched])).toEqual([["0.20-0.40", 1], ["0.40-0.60", 3], ["0.80-1.00", 1]])
    expect(bands.window).toEqual({ sinceDays: 90, stake: 100 })
  })

  const refused: ReadonlyArray<readonly [string, string, unknown, unknown, string]> = [
    ["one sweep value", "/v1/backtest/sweep", { field: "minAmountUsd", values: [1, 2] }, { field: "minAmountUsd", values: [1] }, "values must hold 2 to 20 numbers"],
    ["21 sweep values", "/v1/backtest/sweep", { field: "minAmountUsd", values: Array.from({ length: 20 }, (_, i) => i) },
      { field: "minAmountUsd", values: Array.from({ length: 21 }, (_, i) => i) }, "values must hold 2 to 20 numbers"],
    ["a swept price above 1", "/v1/backtest/sweep", { field: "priceMin", values: [0, 1] }, { field: "priceMin", values: [0, 1.01] }, "values must be prices from 0 to 1"],
    ["a swept value crossing the opposite bound", "/v1/backtest/sweep", { field: "priceMin", values: [0.2, 0.5], criteria: { priceMax: 0.5 } },
      { field: "priceMin", values: [0.2, 0.51], criteria: { priceMax: 0.5 } }, "values would put criteria.priceMin above criteria.priceMax"],
    ["a bad sweep field", "/v1/backtest/sweep", { field: "maxAmountUsd", values: [1, 2] }, { field: "sinceDays", values: [1, 2] }, "field"],
    ["one rule", "/v1/backtest/compare", { rules: [{ label: "a" }, { label: "b" }] }, { rules: [{ label: "a" }] }, "rules must hold 2 to 10 rules with different labels"],
    ["11 rules", "/v1/backtest/compare", { rules: Array.from({ length: 10 }, (_, i) => ({ label: `r${i}` })) },
      { rules: Array.from({ length: 11 }, (_, i) => ({ label: `r${i}` })) }, "rules must hold 2 to 10 rules with different labels"],
    ["repeated labels", "/v1/backtest/compare", { rules: [{ label: "a" }, { label: "b" }] }, { rules: [{ label: "a" }, { label: "a" }] }, "rules must hold 2 to 10 rules with different labels"],
    ["a long label", "/v1/backtest/compare", { rules: [{ label: "x".repeat(60) }, { label: "b" }] }, { rules: [{ label: "x".repeat(61) }, { label: "b" }] }, "label must be 1 to 60 characters"],
    ["an unknown rule field", "/v1/backtest/compare", { rules: [{ label: "a" }, { label: "b" }] }, { rules: [{ label: "a", stake: 5 }, { label: "b" }] }, "Unknown field `rules.0.stake`"],
    ["a bad breakdown", "/v1/backtest/breakdown", { by: "platform" }, { by: "kind" }, "by"],
  ]
  for (const [name, path, passes, body, message] of refused) {
    it(`holds ${name} at its edge`, async () => {
      expect((await at(path, passes)).status).toBe(200)
      const answer = await at(path, body)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: expect.any(String), code: "VALIDATION" })
      expect(answer.body.error).toContain(message)
    })
  }
})
