// A market known only from history (the backfill's registry fed the intel pipeline; the live feed has not
// listed or priced it yet): Get Market shows the price its list row shows, the intel pipeline's last price,
// rather than null on every outcome (audit: a list row said 0.88 and the detail null).
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Intel } from "../../src/intel/live.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import { getMarket, listMarketsOperation } from "../../src/operations/markets.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { aListing, aPrint } from "../actors/market-builders.js"
import { TestDb } from "../support/db.js"
import { call } from "../support/http-client.js"
import { intelOf } from "../support/intel.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"

const NOW = Date.UTC(2026, 0, 20, 12, 0, 0)
let close: () => Promise<void>
let url: string

beforeAll(async () => {
  const pipeline = new IntelPipeline()
  const live = new MarketRegistry((event) => pipeline.apply(event))
  const history = new MarketRegistry((event) => pipeline.apply(event))
  history.deliver([aListing({ contract: "H1", t: NOW - 3_600_000, title: "History only?" })])
  history.deliver([aPrint({ contract: "H1", t: NOW - 600_000, price: 0.88, contracts: 100, tradeId: "h1" })])
  history.advance(NOW)
  const base = ManagedRuntime.make(Layer.merge(TestDb, Counters.memory))
  const context = (await base.runtime()).context
  const server = ManagedRuntime.make(makeHttpServer([getMarket, listMarketsOperation], { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([
      memoryKeys({ tok: aPrincipal() }), Health.layer, CursorKey.layer("secret"),
      Layer.succeed(Intel, intelOf(pipeline)), Layer.succeed(Markets, marketsOf(live)), Layer.succeedContext(context),
    ]),
    Layer.provide(manualClock(NOW).layer),
  ))
  url = await server.runPromise(serverUrl)
  close = async () => {
    await server.dispose()
    live.stop()
    history.stop()
    await base.dispose()
  }
}, 60_000)
afterAll(async () => close?.())

describe("a market known only from history", () => {
  it("Get Market's outcomes show the price its list row shows", async () => {
    const row = (await call(url, "/v2/markets", { token: "tok" })).body.data.find((r: { ref: string }) => r.ref === "venue_a:H1")
    expect(row.outcomes.map((o: { price: number | null }) => o.price)).toEqual([0.88, 0.12])
    const detail = await call(url, "/v2/markets/venue_a:H1", { token: "tok" })
    expect(detail.status).toBe(200)
    expect(detail.body.data.outcomes.map((o: { price: number | null }) => o.price)).toEqual([0.88, 0.12])
  })
})
