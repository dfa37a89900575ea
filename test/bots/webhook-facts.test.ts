// What the bots tell the webhooks: a bot trade as `bot.trade` facts once stored, opened and closed, also the
// buy a market bot without a trigger makes while it is created (stored by the create, not by the flush).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AccountFact } from "../../src/webhooks/sink.js"
import { eventually } from "../support/eventually.js"
import { aBookedMarket, T0 } from "./builders.js"
import { startBotsServer, type BotsServer } from "./server.js"

const facts: Array<AccountFact> = []
let s: BotsServer
beforeAll(async () => {
  s = await startBotsServer([], facts)
  s.feed(...aBookedMarket("W1", T0))
}, 60_000)
afterAll(async () => {
  await s?.close()
})

const botTrades = (botId: string) =>
  facts.flatMap((f) => (f._tag === "BotTradeSaved" && f.bot.id === botId ? [[f.tradeId, f.status] as const] : []))

describe("bot.trade facts", () => {
  it("a market bot's buy at creation is told once, as opened", async () => {
    const created = await s.as("write", "/v2/bots", {
      method: "POST", body: { trigger: { market: "venue_a:W1", outcome: "yes", rule: {} }, sizing: { usd: 20 }, alerts: true },
    })
    expect(created.status).toBe(201)
    expect(created.body.data.record.trades).toBe(1)
    const id = created.body.data.id as string
    await eventually(() => expect(botTrades(id)).toEqual([[`${id}#1`, "open"]]))
    // The flushes after it do not tell it again.
    await new Promise((r) => setTimeout(r, 200))
    expect(botTrades(id)).toEqual([[`${id}#1`, "open"]])
  })

  it("a bot with alerts: false tells nothing (bot.trade is the messaging-app half of a bot's alerts)", async () => {
    const quiet = await s.as("fresh", "/v2/bots", {
      method: "POST", body: { trigger: { market: "venue_a:W1", outcome: "yes", rule: {} }, sizing: { usd: 20 }, alerts: false },
    })
    expect(quiet.body.data.record.trades).toBe(1)
    await new Promise((r) => setTimeout(r, 200))
    expect(botTrades(quiet.body.data.id)).toEqual([])
  })
})
