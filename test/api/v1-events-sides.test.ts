// POST /v1/events `direction` by the contract's stored sides, not by the live market registry: a venue_b
// market with named outcomes [Up, Down] that settled during a backfill (so the live registry never held
// it) still gives `buy_no` for a buy of Down, and `criteria.directions` filters by it. The service's
// shape: the backfill's registry and the live one both feed one intel pipeline; `Markets` is the live one.
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Intel } from "../../src/intel/live.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { queryWhaleEvents } from "../../src/operations/v1-events.js"
import { Counters } from "../../src/store/counters.js"
import { aListing, aPrint, aSettlement } from "../actors/market-builders.js"
import { call } from "../support/http-client.js"
import { intelOf } from "../support/intel.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"

const HOUR = 3_600_000
const NOW = Date.UTC(2026, 0, 20, 12, 0, 0)

const listing = (venue: "venue_b", contract: string, t: number, ids: readonly [string, string], names: readonly [string, string]): FeedEvent => ({
  ...aListing({ venue, contract, t, title: `${contract} market`, outcomes: ids, names }),
  category: "crypto", kind: "bitcoin", opensAt: t, closesAt: NOW + 30 * 24 * HOUR,
})
const buy = (venue: "venue_b", contract: string, t: number, outcome: string, tradeId: string): FeedEvent =>
  aPrint({ venue, contract, t, outcome, price: 0.5, contracts: 400_000, tradeId })

const pipeline = new IntelPipeline()
const intel = intelOf(pipeline)
/** The registry of the backfill: its markets (settled ones included) never reach the live registry. */
const backfill = new MarketRegistry((event) => pipeline.apply(event))
/** The live registry: what `Markets` reads. */
const live = new MarketRegistry((event) => pipeline.apply(event))
const keys = memoryKeys({ a: aPrincipal() })
let url = ""
let server: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined

beforeAll(async () => {
  const t0 = NOW - 10 * HOUR
  // History: an [Up, Down] market on venue_b that settled (Up won), with a buy of each side.
  for (const event of [
    listing("venue_b", "UPDOWN", t0, ["up", "down"], ["Up", "Down"]),
    buy("venue_b", "UPDOWN", t0 + HOUR, "down", "h1"),
    buy("venue_b", "UPDOWN", t0 + HOUR + 60_000, "up", "h2"),
  ]) backfill.deliver([event])
  backfill.advance(t0 + 2 * HOUR) // releases what the venue_b join holds
  backfill.deliver([aSettlement({ venue: "venue_b", contract: "UPDOWN", t: t0 + 3 * HOUR, winner: "up" })])
  backfill.advance(t0 + 6 * HOUR) // and retires the settled actor
  backfill.stop()
  // Live: an open [Over, Under] market on venue_b with a buy of Under.
  live.deliver([listing("venue_b", "OU", NOW - 2 * HOUR, ["over", "under"], ["Over", "Under"])])
  live.deliver([buy("venue_b", "OU", NOW - HOUR, "under", "l1")])
  live.advance(NOW - HOUR + 10 * 60_000)
  intel.trades.upsert(pipeline.takeChanges().trades)
  expect(live.info("venue_b:UPDOWN")).toBeNull()

  const runtime = ManagedRuntime.make(makeHttpServer([queryWhaleEvents], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([
      keys, Counters.memory, Health.layer, CursorKey.layer("v1-events-sides-test"),
      Layer.succeed(Intel, intel), Layer.succeed(Markets, marketsOf(live)),
    ]),
    Layer.provide(manualClock(NOW).layer),
  ))
  url = await runtime.runPromise(serverUrl)
  server = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
})
afterAll(async () => {
  await server?.dispose()
  live.stop()
})

const events = async (criteria?: object): Promise<Array<{ outcomeName: string; direction: string; platform: string; resolution: string | null }>> => {
  const answer = await call(url, "/v1/events", { method: "POST", body: criteria === undefined ? {} : { criteria }, token: "a" })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.data.events
}

describe("POST /v1/events direction on named outcomes", () => {
  it("gives the second side of a market that settled during the backfill `_no`", async () => {
    const rows = await events()
    const by = Object.fromEntries(rows.map((r) => [r.outcomeName, r]))
    expect(Object.keys(by).sort(), JSON.stringify(rows)).toEqual(["Down", "Under", "Up"])
    expect(by["Down"]).toMatchObject({ platform: "venue_b", direction: "buy_no", resolution: "loss" })
    expect(by["Up"]).toMatchObject({ platform: "venue_b", direction: "buy_yes", resolution: "win" })
    expect(by["Under"]).toMatchObject({ platform: "venue_b", direction: "buy_no", resolution: null })
  })

  it("filters `criteria.directions` by the same side", async () => {
    expect((await events({ directions: ["buy_no"] })).map((r) => r.outcomeName).sort()).toEqual(["Down", "Under"])
    expect((await events({ directions: ["buy_yes"] })).map((r) => r.outcomeName)).toEqual(["Up"])
    expect(await events({ directions: ["sell_yes", "sell_no"] })).toEqual([])
  })
})
