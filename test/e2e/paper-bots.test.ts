// Bot fills in the paper account, through the whole service (`bin/whalewatch.js serve`, embedded
// defaults, in-process simulator): a trader bot and a signal bot on one whale, a whale buy injected
// through the simulator's control API, and GET /v2/paper shows each bot's fill as its own position,
// `source: "bot"` with the bot's `{ id, name }`, beside (not mixed into) the hand holdings; the order
// list (`include=orders`) stays hand orders only, and the totals count the bots' holdings (spec: Paper
// trading, GET /v2/paper "hand-placed and bot positions together"; Paper position).
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HEADERS_META } from "../../src/mcp/door.js"
import { registry } from "../../src/operations/registry.js"
import { healthy, startService, waitFor, type Service } from "../support/service.js"
import { deepen, inject, openContracts, settle, type SimContract } from "../support/sim-control.js"

let service: Service | undefined
let base = ""
let sim = ""
let key = ""

beforeAll(async () => {
  service = await startService({ prefix: "whalewatch-paper-bots-e2e-", env: { HISTORY_DAYS: "1" } })
  ;({ base, sim, key } = service)
  await healthy(service, 120_000)
}, 240_000)

afterAll(async () => {
  await service?.stop()
})

const headers = () => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, { method, headers: headers(), ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6

/** Polls about once a second: every probe counts against the demo key's 120 requests a minute. */
const slowly = <A>(probe: () => Promise<A | undefined>) => async (): Promise<A | undefined> => {
  await new Promise((resolve) => setTimeout(resolve, 800))
  return probe()
}

describe("bot fills in GET /v2/paper", () => {
  it("a trader bot's and a signal bot's fills are bot positions with the bot's id and name; orders stay hand only", async () => {
    const markets = await openContracts(sim, "venue_a")
    const [first, target] = markets as [SimContract, SimContract]
    expect(target).toBeDefined()
    const whale = "venue_a:e2e_paper_whale"

    // The whale's first buy makes it a known trader (a trader bot needs one); no bot exists yet.
    await deepen(sim, first.ref)
    await inject(sim, first.ref, 60_000, "e2e_paper_whale")
    await waitFor("the whale as a known trader", slowly(async () => {
      const r = await fetch(`${base}/v2/traders/${encodeURIComponent(whale)}`, { headers: headers() })
      await r.arrayBuffer()
      return r.status === 200 ? true : undefined
    }), 30_000)

    const empty = await api("GET", "/v2/paper?status=all&include=orders")
    expect(empty.status).toBe(200)
    expect(empty.body.data.positions.data).toEqual([])
    expect(empty.body.data.orders.data).toEqual([])

    const traderBot = await api("POST", "/v2/bots", { trigger: { trader: whale }, sizing: { usd: 50 } })
    expect(traderBot.status, JSON.stringify(traderBot.body)).toBe(201)
    const signalBot = await api("POST", "/v2/bots", { trigger: { signal: { traders: [whale] } }, name: "e2e whale copier", sizing: { usd: 40 } })
    expect(signalBot.status, JSON.stringify(signalBot.body)).toBe(201)
    const bots = [traderBot.body.data, signalBot.body.data] as Array<{ id: string; name: string; kind: string }>
    expect(bots.map((b) => b.kind)).toEqual(["trader", "signal"])

    // The buy both bots copy.
    await deepen(sim, target.ref)
    await inject(sim, target.ref, 60_000, "e2e_paper_whale")
    const account = await waitFor("both bots' fills in GET /v2/paper", slowly(async () => {
      const r = await api("GET", "/v2/paper?status=all&include=orders")
      return r.status === 200 && r.body.data.positions.data.length === 2 ? r.body.data : undefined
    }), 30_000)

    // Each bot's own record of its trade: the position must be that trade.
    const tradesOf = async (id: string) => {
      const r = await api("GET", `/v2/bots/${encodeURIComponent(id)}?include=trades`)
      expect(r.status).toBe(200)
      return r.body.data.trades.data as Array<any>
    }
    const positions = account.positions.data as Array<any>
    for (const bot of bots) {
      const [trade, ...more] = await tradesOf(bot.id)
      expect(more).toEqual([])
      const position = positions.find((p) => p.bot?.id === bot.id)
      expect(position, `no position of ${bot.id} in ${JSON.stringify(positions)}`).toBeDefined()
      expect(Object.keys(position).sort()).toEqual([
        "bot", "contracts", "cost", "entryPrice", "market", "openedAt", "outcome", "price", "profit", "result", "settledAt",
        "source", "status", "value",
      ])
      expect(position).toMatchObject({
        market: { ref: target.ref, contract: target.ref },
        outcome: trade.outcome,
        contracts: trade.contracts,
        status: "open",
        result: null,
        source: "bot",
        bot: { id: bot.id, name: bot.name },
        settledAt: null,
      })
      // The same entry price (the bot trade row shows it to 6 decimals; the position's is cost / contracts).
      expect(position.entryPrice).toBeCloseTo(trade.entryPrice, 6)
      // The holding opens when the bot's trade did (the fill carries the bot's feed time).
      expect(position.openedAt).toBe(trade.openedAt)
      expect(trade.market.ref).toBe(target.ref)
      expect(position.contracts).toBeGreaterThan(0)
      // cost = contracts × entryPrice (fee included); value and profit at the side's current price.
      expect(position.cost).toBeCloseTo(position.contracts * position.entryPrice, 4)
      expect(position.cost).toBeLessThanOrEqual(bot.kind === "trader" ? 50 : 40)
      if (position.price === null) {
        expect(position.value).toBeNull()
        expect(position.profit).toBeNull()
      } else {
        expect(position.value).toBe(round6(position.contracts * position.price))
        expect(position.profit).toBe(round6(position.value - position.cost))
      }
    }

    // Filters see them as bot holdings; none is a hand holding, and no order is a bot's.
    expect((await api("GET", "/v2/paper?source=hand")).body.data.positions.data).toEqual([])
    const bySource = (await api("GET", "/v2/paper?source=bot")).body.data.positions.data as Array<any>
    expect(bySource.map((p) => p.bot.id).sort()).toEqual(bots.map((b) => b.id).sort())
    for (const bot of bots) {
      const only = (await api("GET", `/v2/paper?bot=${encodeURIComponent(bot.id)}`)).body.data.positions.data as Array<any>
      expect(only.map((p) => p.bot.id)).toEqual([bot.id])
    }
    // A renamed bot's positions show its name as it is now.
    const renamed = bots.find((b) => b.kind === "signal")!
    expect((await api("PATCH", `/v2/bots/${encodeURIComponent(renamed.id)}`, { name: "e2e renamed copier" })).status).toBe(200)
    const afterRename = (await api("GET", `/v2/paper?bot=${encodeURIComponent(renamed.id)}`)).body.data.positions.data as Array<any>
    expect(afterRename.map((p) => p.bot)).toEqual([{ id: renamed.id, name: "e2e renamed copier" }])
    expect(account.orders.data).toEqual([])
    // Totals count the bots' open holdings.
    expect(account.totals.openUsd).toBeCloseTo(positions.reduce((n, p) => n + p.cost, 0), 5)
  }, 120_000)

  it("a whale buy and the settlement right after it reach a bot in that order: the copy opens, then settles", async () => {
    const markets = await openContracts(sim, "venue_a")
    // The last open market (the simulator may hold only a few): settling it ends nothing the test above needs.
    const first = markets[0] as SimContract
    const target = markets[markets.length - 1] as SimContract
    expect(target).toBeDefined()
    const name = "e2e_order_whale"
    const whale = `venue_a:${name}`
    await deepen(sim, first.ref)
    await inject(sim, first.ref, 60_000, name)
    await waitFor("the whale as a known trader", slowly(async () => {
      const r = await fetch(`${base}/v2/traders/${encodeURIComponent(whale)}`, { headers: headers() })
      await r.arrayBuffer()
      return r.status === 200 ? true : undefined
    }), 30_000)
    const bot = await api("POST", "/v2/bots", { trigger: { trader: whale }, sizing: { usd: 30 } })
    expect(bot.status, JSON.stringify(bot.body)).toBe(201)

    // The buy and, without waiting, its market's settlement: both go out on the feed back to back.
    await deepen(sim, target.ref)
    await inject(sim, target.ref, 60_000, name)
    await settle(sim, target.ref, "yes")
    const trades = await waitFor("the bot's copy, settled", slowly(async () => {
      const r = await api("GET", `/v2/bots/${encodeURIComponent(bot.body.data.id)}?include=trades`)
      const data = r.status === 200 ? (r.body.data.trades.data as Array<any>) : []
      return data.length > 0 && data.every((t) => t.status === "closed") ? data : undefined
    }), 30_000)
    expect(trades).toHaveLength(1)
    expect(trades[0]).toMatchObject({ market: { ref: target.ref }, status: "closed", result: "win" })
    expect(trades[0].closedAt).not.toBeNull()
    // The paper account's holding of that fill settles too, though the fill reached the account after the
    // settlement did (bot fills are recorded on the account from the bots' flush).
    const holding = await waitFor("the bot's holding in GET /v2/paper, settled", slowly(async () => {
      const r = await api("GET", `/v2/paper?status=all&bot=${encodeURIComponent(bot.body.data.id)}`)
      const rows = r.status === 200 ? (r.body.data.positions.data as Array<any>) : []
      return rows.length === 1 && rows[0].status !== "open" ? rows[0] : undefined
    }), 15_000)
    expect(holding).toMatchObject({ status: "settled", result: "win", source: "bot", market: { ref: target.ref } })
  }, 120_000)
})

// The MCP door of the running service (spec: "An MCP endpoint at {base_url}/mcp that exposes the same
// operations as tools"): the demo key connects with the SDK's client, every operation is a tool, and a
// paper order placed over MCP is the same order REST shows and replays.
describe("the MCP endpoint", () => {
  it("lists every operation as a tool; a paper order placed over MCP is the REST route's order, replayed by either door", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    try {
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name).sort()).toEqual(registry.filter((op) => op.mcp !== false).map((op) => op.tool).sort())

      // Listing rows over MCP have the REST rows' shape, and are rows REST lists too.
      const trades = await client.callTool({ name: "list_trades", arguments: { venue: "venue_a", action: "all", limit: 3 } })
      expect(trades.isError).toBeFalsy()
      const mcpRows = (trades.structuredContent as { data: Array<any> }).data
      const rest = await api("GET", "/v2/trades?venue=venue_a&action=all&limit=50")
      expect(rest.status).toBe(200)
      const restRows = rest.body.data as Array<any>
      expect(mcpRows.length).toBeGreaterThan(0)
      for (const row of mcpRows) {
        const same = restRows.find((r) => r.id === row.id)
        expect(same, `trade ${row.id} over MCP is not in the REST listing`).toBeDefined()
        expect(Object.keys(row).sort()).toEqual(Object.keys(same).sort())
        expect(row.market).toEqual(same.market)
      }

      const market = (await openContracts(sim, "venue_a"))[0] as SimContract
      await deepen(sim, market.ref)
      const order = { market: market.ref, outcome: "yes", action: "buy", usd: 10, maxPrice: 0.5, idempotencyKey: "e2e-mcp-order-1" }
      const first = await waitFor("a paper buy over MCP against the deep book", slowly(async () => {
        const r = await client.callTool({ name: "place_paper_order", arguments: order })
        return r.isError ? undefined : r
      }), 30_000)
      expect(first._meta).toBeUndefined() // placed, not replayed
      const placed = (first.structuredContent as { data: any }).data
      expect(placed).toMatchObject({ market: { contract: market.ref }, action: "buy", avgPrice: expect.any(Number) })
      expect(placed.contracts).toBeGreaterThan(0)

      // The same key again: the first order, over MCP and over REST (the key in its header there).
      const again = await client.callTool({ name: "place_paper_order", arguments: order })
      expect(again.structuredContent).toEqual({ success: true, data: placed }) // the v1 route's body (spec: MCP table)
      // The replay says so on its own result too (a batch's calls share one HTTP answer and its headers).
      expect(again._meta).toEqual({ [HEADERS_META]: { "idempotent-replayed": "true", "idempotency-replayed": "true" } })
      const { idempotencyKey, ...body } = order
      const response = await fetch(`${base}/v2/paper-orders`, {
        method: "POST", headers: { ...headers(), "idempotency-key": idempotencyKey }, body: JSON.stringify(body),
      })
      expect(response.status).toBe(201)
      expect(response.headers.get("idempotent-replayed")).toBe("true")
      expect(((await response.json()) as { data: unknown }).data).toEqual(placed)
      // The same key for another order: VALIDATION as a tool result with the envelope.
      const other = await client.callTool({ name: "place_paper_order", arguments: { ...order, usd: 11 } })
      expect(other.isError).toBe(true)
      expect(other.structuredContent).toMatchObject({ success: false, code: "VALIDATION" })

      // One order in the account, whichever door reads it.
      const account = await client.callTool({ name: "get_paper_account", arguments: { include: "orders", source: "hand" } })
      const orders = (account.structuredContent as { data: { orders: { data: Array<any> } } }).data.orders.data
      expect(orders.filter((o) => o.id === placed.id)).toHaveLength(1)
      const restOrders = (await api("GET", "/v2/paper?include=orders&source=hand")).body.data.orders.data as Array<any>
      expect(restOrders.find((o) => o.id === placed.id)).toEqual(orders.find((o) => o.id === placed.id))
    } finally {
      await client.close()
    }
  }, 120_000)
})
