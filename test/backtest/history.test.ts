// The backtest history over the store (the API fixture's seeded database: embedded, or a private schema
// on DATABASE_URL): a signal backtest of 30 days at a fixed stake agrees with the settled rows GET
// /v2/trades lists under the same filters; the live layer loads the store, follows the IntelBus and
// catches up on rows written to the store without a bus event (backfill).
import { Effect, Layer, PubSub } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SignalBacktest } from "../../src/domain/backtest.js"
import type { Signal } from "../../src/domain/signal.js"
import { BacktestHistory, BacktestHistoryService, catchUp, makeBacktestHistoryLayer, SeqCursor } from "../../src/intel/backtest-store.js"
import { scoreSignal } from "../../src/intel/backtest.js"
import { IntelBus } from "../../src/intel/intel-bus.js"
import type { StoredTrade } from "../../src/intel/pipeline.js"
import { settlementProfit } from "../../src/intel/settlement.js"
import { persistIntel } from "../../src/store/intel.js"
import { type Answer, call } from "../support/http-client.js"
import { NOW, startApiFixture, type Fixture } from "../support/api-fixture.js"

let fixture: Fixture
const history = new BacktestHistory()
beforeAll(async () => {
  fixture = await startApiFixture()
  await fixture.run(Effect.orDie(catchUp(history, new SeqCursor(60_000))))
}, 120_000)
afterAll(() => fixture?.close())

/** Every row of GET /v2/trades for a query, through all pages. */
const allTrades = async (query: string): Promise<Array<{ price: number; usd: number; result: string }>> => {
  const rows = []
  // A cursor is bound to the account: one key for every page.
  const token = fixture.token()
  let cursor: string | null = null
  do {
    const page: Answer = await call(fixture.url, `/v2/trades?limit=200${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { token })
    expect(page.status).toBe(200)
    rows.push(...page.body.data)
    cursor = page.body.nextCursor
  } while (cursor !== null)
  return rows
}

const queryOf = (signal: Partial<Signal>): string => {
  const parts: Array<string> = []
  for (const v of signal.venue ?? []) parts.push(`venue=${v}`)
  for (const c of signal.category ?? []) parts.push(`category=${c}`)
  for (const k of ["minUsd", "maxUsd", "priceMin", "priceMax", "entry"] as const) {
    const v = signal[k]
    if (v !== undefined) parts.push(`${k}=${v}`)
  }
  return parts.map((p) => `&${p}`).join("")
}

describe("a 30-day signal backtest at a fixed stake", () => {
  const signals: ReadonlyArray<Partial<Signal>> = [
    {},
    { venue: ["venue_a"], category: ["sports", "politics"] },
    { minUsd: 30_000, priceMax: 0.6 },
    { priceMin: 0.3, maxUsd: 70_000, entry: "open" },
    { entry: "add" },
  ]
  for (const signal of signals) {
    it(`agrees with GET /v2/trades${queryOf(signal) || " (no filters)"}`, async () => {
      const request: SignalBacktest = { signal: { entry: "all", ...signal } as Signal, sizing: { usd: 250 }, days: 30, holdout: false }
      const score = scoreSignal(history, request, NOW)
      const rows = await allTrades(queryOf(signal))
      const wins = rows.filter((r) => r.result === "win")
      const losses = rows.filter((r) => r.result === "loss")
      const open = rows.filter((r) => r.result === "open")
      const profit = [...wins, ...losses].reduce((sum, r) => sum + settlementProfit(250, r.price, r.result as "win" | "loss"), 0)
      expect(score.trades).toBe(rows.length)
      expect({ wins: score.wins, losses: score.losses, open: score.open }).toEqual({ wins: wins.length, losses: losses.length, open: open.length })
      expect(score.staked).toBeCloseTo(250 * (wins.length + losses.length), 2)
      expect(Math.abs(score.profit - profit)).toBeLessThan(0.011)
      if (signal === signals[0]) expect(wins.length * losses.length).toBeGreaterThan(0)
    })
  }
})

const aStoredTrade = (over: Partial<StoredTrade> & { readonly seq: number }): StoredTrade => ({
  id: `bt_${over.seq}`, tradeId: `x${over.seq}`, txId: null, time: NOW - 3_600_000, venue: "venue_a", market: "venue_a:C2",
  contract: "venue_a:C2", event: null, title: "Will the bill pass the Senate?", category: "politics", kind: "us_politics",
  outcome: "Yes", outcomeLabel: "Yes", action: "buy", entry: null, price: 0.4, usd: 40_000, contracts: 100_000,
  trader: null, traderName: null, whale: true, summary: null, agreement: null, result: "open", profit: null, settledAt: null,
  ...over,
})

describe("BacktestHistoryLive", () => {
  it("loads the store, follows the bus, and catches up on rows the bus did not carry", async () => {
    const live = makeBacktestHistoryLayer({ catchUpEveryMs: 50 }).pipe(Layer.provideMerge(IntelBus.layer))
    await fixture.run(Effect.scoped(Effect.gen(function* () {
      const context = yield* Layer.build(live)
      const loaded = Effect.provide(BacktestHistoryService, context)
      const h = yield* loaded
      expect(h.size).toBe(history.size)
      const bus = yield* Effect.provide(IntelBus, context)
      // A live trade, then its settlement: published only on the bus.
      const t = aStoredTrade({ seq: 9_000_001 })
      yield* PubSub.publish(bus, { _tag: "TradeRecorded", trade: t })
      yield* Effect.sleep("30 millis")
      expect(h.size).toBe(history.size + 1)
      yield* PubSub.publish(bus, { _tag: "TradeSettled", trade: { ...t, result: "win", profit: 60_000, settledAt: NOW - 60_000 } })
      // The same trade and a backfilled one written to the store: the first is not added twice.
      const backfilled = aStoredTrade({ seq: 9_000_002, time: NOW - 5 * 86_400_000, result: "loss", profit: -40_000, settledAt: NOW - 4 * 86_400_000 })
      yield* Effect.orDie(persistIntel({ markets: [], trades: [t, backfilled], moves: [], settlements: [], traders: new Set() }))
      yield* Effect.sleep("300 millis")
      expect(h.size).toBe(history.size + 2)
      const request: SignalBacktest = { signal: { entry: "all", keywords: ["bill pass"] } as Signal, sizing: { usd: 100 }, days: 30, holdout: false }
      const before = scoreSignal(history, request, NOW)
      const after = scoreSignal(h, request, NOW)
      expect({ trades: after.trades - before.trades, wins: after.wins - before.wins, losses: after.losses - before.losses })
        .toEqual({ trades: 2, wins: 1, losses: 1 })
    })))
  })
})
