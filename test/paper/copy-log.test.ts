// GET /v1/copy-executions (tool get_copy_log): the fills of the account's trader and signal bots, newest
// first, as { bot, order }; never hand orders, market bots' fills or another account's; `bot` and `since`
// filters; paged by cursor with no gap and no repeat; VALIDATION on bad parameters.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { walkBuy } from "../../src/domain/fill.js"
import type { Operation } from "../../src/operations/operation.js"
import { getCopyLog } from "../../src/operations/v1-copy-log.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { call } from "../support/http-client.js"
import { aPrincipal } from "../support/memory-keys.js"
import { type PaperServer, startPaperServer } from "./support.js"

const tokens = { alice: aPrincipal({ accountId: "acct_copy_alice" }), bob: aPrincipal({ accountId: "acct_copy_bob" }) }
let server: PaperServer
let t = 1_000
const tick = () => (t += 1_000)

beforeAll(async () => {
  server = await startPaperServer(tokens, { operations: [getCopyLog as unknown as Operation<any, any, never>] })
})
afterAll(async () => {
  await server?.close()
})

const market = (contract: string) => {
  server.feed(
    aListing({ contract, t: tick() }),
    aSnapshot({ contract, t: tick(), outcome: "yes", asks: [[0.5, 100_000]], bids: [[0.45, 100_000]] }),
  )
  return `venue_a:${contract}`
}

const fillOf = (usd: number) => {
  const f = walkBuy([{ price: 0.5, size: 100_000 }], { usd }, { venue: "venue_a", feeRate: null })
  if (f._tag !== "Filled") throw new Error("expected a fill")
  return f
}

const log = (token: string, query = "") => call(server.url, `/v1/copy-executions${query}`, { token })

describe("GET /v1/copy-executions", () => {
  beforeAll(async () => {
    const ref = market("CL1")
    const copier = { id: "trader:copier", name: "Whale copier" }
    const signal = { id: "signal:big", name: "Big buys" }
    for (let i = 0; i < 5; i++) {
      await server.accounts((a) => a.recordBotFill("acct_copy_alice", { bot: i % 2 === 0 ? copier : signal, market: ref, outcome: "Yes", fill: fillOf(10 + i) }))
    }
    await server.accounts((a) => a.recordBotFill("acct_copy_alice", { bot: { id: "market:dip", name: "Dip" }, market: ref, outcome: "Yes", fill: fillOf(7) }))
    await server.accounts((a) => a.recordBotFill("acct_copy_bob", { bot: { id: "trader:other", name: "Bob's" }, market: ref, outcome: "Yes", fill: fillOf(9) }))
    const hand = await fetch(`${server.url}/v2/paper-orders`, {
      method: "POST",
      headers: { authorization: "Bearer alice", "content-type": "application/json" },
      body: JSON.stringify({ market: ref, outcome: "yes", action: "buy", usd: 5 }),
    })
    expect(hand.status).toBe(201)
  })

  it("lists the trader and signal bots' fills of the account, newest first, as { bot, order }", async () => {
    const a = await log("alice", "?limit=200")
    expect(a.status).toBe(200)
    expect(a.body.success).toBe(true)
    expect(a.body.nextCursor).toBeNull()
    const rows = a.body.data as Array<any>
    expect(rows).toHaveLength(5)
    expect(new Set(rows.map((r) => r.bot.id))).toEqual(new Set(["trader:copier", "signal:big"]))
    expect(rows.find((r) => r.bot.id === "signal:big").bot.name).toBe("Big buys")
    const times = rows.map((r) => r.order.filledAt)
    expect([...times].sort().reverse()).toEqual(times)
    for (const r of rows) {
      expect(Object.keys(r.order).sort()).toEqual(["action", "avgPrice", "contracts", "cost", "filledAt", "id", "market", "outcome", "unfilledContracts"])
      expect(r.order.action).toBe("buy")
    }
    // Hand orders and market bots stay out; bob sees only his own.
    expect(rows.map((r) => r.order.cost).sort()).toEqual([10, 11, 12, 13, 14])
    expect((await log("bob")).body.data.map((r: any) => r.bot.id)).toEqual(["trader:other"])
  })

  it("filters by bot and since, and pages by cursor with no gap and no repeat", async () => {
    const all = (await log("alice", "?limit=200")).body.data as Array<any>
    expect((await log("alice", "?bot=signal:big")).body.data.map((r: any) => r.order.id)).toEqual(all.filter((r) => r.bot.id === "signal:big").map((r) => r.order.id))
    expect((await log("alice", "?bot=market:dip")).body.data).toEqual([])
    expect((await log("alice", "?bot=trader:other")).body.data).toEqual([])
    const since = all[2].order.filledAt
    expect((await log("alice", `?since=${encodeURIComponent(since)}`)).body.data).toEqual(all.filter((r) => r.order.filledAt >= since))
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: any = await log("alice", `?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(page.status).toBe(200)
      seen.push(...page.body.data.map((r: any) => r.order.id))
      cursor = page.body.nextCursor
    } while (cursor !== null)
    expect(seen).toEqual(all.map((r) => r.order.id))
  })

  it("refuses bad parameters with VALIDATION naming them", async () => {
    for (const [query, message] of [
      ["?bot=copier", "must be a bot id"],
      ["?since=today", "since must be an ISO 8601 time"],
      ["?limit=201", "limit must be an integer from 1 to 200"],
      ["?cursor=nope", "cursor is not valid for this listing"],
      ["?market=x", "Unknown query parameter `market`"],
    ] as const) {
      const a = await log("alice", query)
      expect(a.status, query).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
      expect(a.body.error).toContain(message)
    }
  })
})
