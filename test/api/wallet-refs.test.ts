// A venue_b wallet handle names the same trader in any letter case (README "HTTP conventions: Trader refs"):
// the `trader` filter of the listings and Get Trader's ref read it in lower case, as the venue writes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { listTrades } from "../../src/operations/trades.js"
import { getTrader, listTraders } from "../../src/operations/traders.js"
import { call } from "../support/http-client.js"
import { aMarket, MIN, opened, settled, T0, traded } from "../support/intel-events.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { startIntelServer, type IntelServer } from "./intel-server.js"

const WALLET = "0x7211cecd6357d94449825fbb8a5e521843d069b4"
const CHECKSUMMED = "0x7211CECD6357d94449825FBB8a5E521843D069b4"
const NOW = T0 + 60 * MIN

const scenario = (): Array<MarketEvent> => {
  const market = aMarket({ contract: "w1", venue: "venue_b", category: "politics" as never, kind: "us_elections" as never, listedAt: T0 - MIN })
  return [
    opened(market),
    traded(market, { ts: T0, price: 0.5, usd: 20_000, trader: WALLET }),
    settled(market, T0 + 10 * MIN),
  ]
}

let server: IntelServer
beforeAll(async () => {
  server = await startIntelServer({
    operations: [listTrades, listTraders, getTrader],
    events: scenario(),
    keys: memoryKeys({ tok: aPrincipal() }),
    clock: manualClock(NOW).layer,
  })
}, 60_000)
afterAll(async () => server?.close())

const get = (path: string) => call(server.url, path, { token: "tok" })

describe("venue_b wallet refs in any letter case", () => {
  it("Get Trader answers the checksummed address with the lower-case ref", async () => {
    const answer = await get(`/v2/traders/${encodeURIComponent(`venue_b:${CHECKSUMMED}`)}`)
    expect(answer.status).toBe(200)
    expect(answer.body.data.ref).toBe(`venue_b:${WALLET}`)
  })

  it("the trader filter of GET /v2/trades matches the checksummed address", async () => {
    const lower = await get(`/v2/trades?trader=venue_b:${WALLET}&action=all`)
    const mixed = await get(`/v2/trades?trader=venue_b:${CHECKSUMMED}&action=all`)
    expect(lower.status).toBe(200)
    expect(lower.body.data).toHaveLength(1)
    expect(mixed.body.data).toEqual(lower.body.data)
  })
})
