// POST /v1/backtest `directions` by the contract's stored sides: the live history layer loads a venue_b
// market with named outcomes [Up, Down] that settled during a backfill (so the live market registry never
// held it) and counts a buy of Down as `buy_no`, from the store (intel_markets) and from the IntelBus
// (the intel pipeline's markets) alike.
import { Context, Effect, Exit, Layer, ManagedRuntime, PubSub, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { type BacktestHistory, BacktestHistoryService, backtestHistoryOf, makeBacktestHistoryLayer } from "../../src/intel/backtest-store.js"
import { IntelBus } from "../../src/intel/intel-bus.js"
import { Intel } from "../../src/intel/live.js"
import { type IntelChanges, IntelPipeline } from "../../src/intel/pipeline.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { runV1Backtest } from "../../src/operations/v1-backtest.js"
import { Counters } from "../../src/store/counters.js"
import { persistIntel } from "../../src/store/intel.js"
import { aListing, aPrint, aSettlement } from "../actors/market-builders.js"
import { TestDb } from "../support/db.js"
import { call } from "../support/http-client.js"
import { intelOf } from "../support/intel.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"

const HOUR = 3_600_000
const NOW = Date.UTC(2026, 3, 1, 12, 0, 0)

const listing = (contract: string, t: number, ids: readonly [string, string], names: readonly [string, string]): FeedEvent => ({
  ...aListing({ venue: "venue_b", contract, t, title: `${contract} market`, outcomes: ids, names }),
  category: "crypto", kind: "bitcoin", opensAt: t, closesAt: t + 6 * HOUR,
})
const buy = (contract: string, t: number, outcome: string, tradeId: string): FeedEvent =>
  aPrint({ venue: "venue_b", contract, t, outcome, price: 0.5, contracts: 400_000, tradeId })

/**
 * A backfill's registry feeds a pipeline; the live one (`Markets`) never hears of these markets. The
 * stored market comes from an earlier run (this run's pipeline does not hold it either, so its rows'
 * sides come from the store alone); the bus's from this run's pipeline.
 */
const earlier = new IntelPipeline()
const pipeline = new IntelPipeline()
pipeline.continueSeq(1_000) // numbers after what the earlier run stored, as a restored pipeline does
const live = new MarketRegistry(() => {})
const db = ManagedRuntime.make(TestDb)
const keys = memoryKeys({ a: aPrincipal(), b: aPrincipal() })

/** Settles a venue_b [Up, Down] market in the backfill, a buy of Down then one of Up (Up wins). */
const settledMarket = (pipeline: IntelPipeline, contract: string, t0: number, ids: string): IntelChanges => {
  const backfill = new MarketRegistry((event) => pipeline.apply(event))
  backfill.deliver([listing(contract, t0, ["up", "down"], ["Up", "Down"])])
  backfill.deliver([buy(contract, t0 + HOUR, "down", `${ids}1`)])
  backfill.deliver([buy(contract, t0 + HOUR + 60_000, "up", `${ids}2`)])
  backfill.advance(t0 + 2 * HOUR) // releases what the venue_b join holds
  backfill.deliver([aSettlement({ venue: "venue_b", contract, t: t0 + 3 * HOUR, winner: "up" })])
  backfill.advance(t0 + 6 * HOUR) // and retires the settled actor
  backfill.stop()
  return pipeline.takeChanges()
}

let history: BacktestHistory | undefined
let url = ""
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
let scope: { close: () => Promise<void> } | undefined

beforeAll(async () => {
  // Stored: one market, before the history loads.
  await db.runPromise(Effect.orDie(persistIntel(settledMarket(earlier, "UPDOWN", NOW - 3 * 24 * HOUR, "s"))))
  expect(live.info("venue_b:UPDOWN")).toBeNull()
  // The live history layer: the store, the bus, the live registry and the intel pipeline, as main has them.
  const layer = makeBacktestHistoryLayer({ catchUpEveryMs: 60_000 }).pipe(
    Layer.provideMerge(Layer.mergeAll(IntelBus.layer, Layer.succeed(Markets, marketsOf(live)), Layer.succeed(Intel, intelOf(pipeline)))),
  )
  const built = await db.runPromise(Effect.gen(function* () {
    const s = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, s)
    return { s, context }
  }))
  scope = { close: () => db.runPromise(Scope.close(built.s, Exit.void)) }
  const h = Context.get(built.context, BacktestHistoryService)
  history = h
  // Live: a second settled market whose trades only the bus carries (the store never has them here).
  const bus = Context.get(built.context, IntelBus)
  const published = settledMarket(pipeline, "UPDOWN2", NOW - 2 * 24 * HOUR, "b").trades
  expect(live.info("venue_b:UPDOWN2")).toBeNull()
  await Effect.runPromise(Effect.gen(function* () {
    for (const trade of published) yield* PubSub.publish(bus, { _tag: trade.result === "open" ? "TradeRecorded" : "TradeSettled", trade } as const)
    while (h.size < 4) yield* Effect.sleep("10 millis")
  }).pipe(Effect.timeout("5 seconds")))

  const runtime = ManagedRuntime.make(makeHttpServer([runV1Backtest], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([keys, Counters.memory, Health.layer, CursorKey.layer("v1-backtest-sides-test"), backtestHistoryOf(h)]),
    Layer.provide(manualClock(NOW).layer),
  ))
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
}, 120_000)
afterAll(async () => {
  await server?.dispose()
  await scope?.close()
  await db.dispose()
})

let turn = 0
const matched = async (criteria: object): Promise<{ matched: number; wins: number; losses: number }> => {
  const answer = await call(url, "/v1/backtest", { method: "POST", body: { criteria }, token: turn++ % 2 === 0 ? "a" : "b" })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const { matched, wins, losses } = answer.body.data
  return { matched, wins, losses }
}

describe("POST /v1/backtest directions on named outcomes of settled markets", () => {
  it("counts a buy of the second side (Down) as buy_no", async () => {
    expect(history?.size).toBe(4)
    expect(await matched({})).toEqual({ matched: 4, wins: 2, losses: 2 })
    // Down lost on both markets, Up won.
    expect(await matched({ directions: ["buy_no"] })).toEqual({ matched: 2, wins: 0, losses: 2 })
    expect(await matched({ directions: ["buy_yes"] })).toEqual({ matched: 2, wins: 2, losses: 0 })
  })
})
