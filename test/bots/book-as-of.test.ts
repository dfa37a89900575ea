// A bot fills against the book as of the event it acts on, however far the market actors ran ahead of
// the bots' fiber: here a price that triggers a market bot's buy, then, before the bots' fiber runs, a
// book that would fill at other prices. The service's layers (BotsLive) watch the books (watchBooks).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPrint, aSnapshot } from "../actors/market-builders.js"
import { eventually } from "../support/eventually.js"
import { aBookedMarket, T0 } from "./builders.js"
import { startBotsServer, type BotsServer } from "./server.js"

let s: BotsServer
beforeAll(async () => {
  s = await startBotsServer()
  s.feed(...aBookedMarket("B1", T0))
}, 60_000)
afterAll(() => s.close())

describe("bots price from the book as of the event", () => {
  it("a market bot's triggered buy fills at the asks of the price's feed batch, not at the later book", async () => {
    const created = await s.as("write", "/v2/bots", {
      method: "POST", body: { trigger: { market: "venue_a:B1", outcome: "yes", rule: { buyBelow: 0.45 } }, sizing: { usd: 40 } },
    })
    expect(created.status).toBe(201)
    expect(created.body.data.record.trades).toBe(0)
    // One synchronous step, as a burst reaches the market actors: the trigger with asks at 0.4, then asks at 0.9.
    s.feed(aSnapshot({ contract: "B1", t: T0 + 1_000, outcome: "yes", bids: [[0.38, 100_000]], asks: [[0.4, 100_000]] }), aPrint({ contract: "B1", t: T0 + 1_000, price: 0.4 }))
    s.feed(aSnapshot({ contract: "B1", t: T0 + 2_000, outcome: "yes", bids: [[0.88, 100_000]], asks: [[0.9, 100_000]] }))
    const trade = await eventually(async () => {
      const got = await s.as("write", `/v2/bots/${created.body.data.id}?include=trades`)
      expect(got.body.data.trades.data).toHaveLength(1)
      return got.body.data.trades.data[0] as { readonly entryPrice: number; readonly contracts: number }
    })
    // 0.4 plus venue_a's taker fee; at the later asks it would be over 0.9.
    expect(trade.entryPrice).toBeGreaterThanOrEqual(0.4)
    expect(trade.entryPrice).toBeLessThan(0.45)
  })
})
