// POST /v2/paper-orders and GET /v2/paper end to end through the HTTP door, one rule per case, over real
// market actors (builder events) and the suite's database (embedded, or DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Clock, Effect, Schema } from "effect"
import { PlacePaperOrderInput, requestHashOf } from "../../src/operations/paper-orders.js"
import { walkBuy } from "../../src/domain/fill.js"
import { call } from "../support/http-client.js"
import { aPrincipal } from "../support/memory-keys.js"
import { aListing, aSettlement, aSnapshot, aVoid } from "../actors/market-builders.js"
import { type PaperServer, startPaperServer } from "./support.js"

const alice = aPrincipal({ accountId: "acct_alice" })
const bob = aPrincipal({ accountId: "acct_bob" })
const reader = aPrincipal({ accountId: "acct_alice", scopes: ["read"] })
const tokens = { alice, bob, reader }
let server: PaperServer
let t = 1_000

const tick = () => (t += 1_000)

/** A fresh single-contract market on venue_a with a Yes book (and an optional No book). */
const market = (contract: string, yes: { asks?: Array<[number, number]>; bids?: Array<[number, number]> }, labels?: [string, string]) => {
  server.feed(
    aListing({ contract, t: tick(), ...(labels === undefined ? {} : { labels }) }),
    aSnapshot({ contract, t: tick(), outcome: "yes", asks: yes.asks ?? [], bids: yes.bids ?? [] }),
    aSnapshot({ contract, t: tick(), outcome: "no", asks: [[0.6, 1000]], bids: [[0.55, 1000]] }),
  )
  return `venue_a:${contract}`
}

const order = (token: string, body: unknown, key?: string) =>
  fetch(`${server.url}/v2/paper-orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }))

const paper = (token: string, query = "") => call(server.url, `/v2/paper${query}`, { token })

const countOrders = async (account: string) =>
  Number((await server.sql<{ n: string }>((sql) => sql`SELECT count(*) AS n FROM paper_orders WHERE account_id = ${account}`))[0]?.n)

beforeAll(async () => {
  server = await startPaperServer(tokens)
})
afterAll(async () => {
  await server.close()
})

describe("POST /v2/paper-orders: buys", () => {
  it("fills a buy against the live asks with the taker fee folded into avgPrice and cost (201)", async () => {
    const ref = market("B1", { asks: [[0.4, 10], [0.5, 100]] })
    const res = await order("alice", { market: ref, outcome: "Yes", action: "buy", usd: 20 })
    expect(res.status).toBe(201)
    const expected = walkBuy([{ price: 0.4, size: 10 }, { price: 0.5, size: 100 }], { usd: 20 }, { venue: "venue_a", feeRate: null })
    if (expected._tag !== "Filled") throw new Error("expected a fill")
    expect(res.body.data).toMatchObject({
      market: { ref, contract: ref, venue: "venue_a", category: "politics", kind: "us_politics" },
      outcome: "Yes", action: "buy", contracts: expected.contracts, avgPrice: expected.avgPrice, cost: expected.cost,
      unfilledContracts: 0,
    })
    expect(res.body.data.cost).toBeLessThanOrEqual(20)
    expect(expected.fee).toBeGreaterThan(0) // its arithmetic: src/domain/fill.test.ts
    expect(expected.cost).toBe(Number((expected.gross + expected.fee).toFixed(12)))
    expect(res.body.data.id).toMatch(/^po_/)
    expect(res.body.data.filledAt).toMatch(/Z$/)
  })

  it("records only what fills at once; the rest is unfilledContracts", async () => {
    const ref = market("B2", { asks: [[0.5, 10], [0.9, 10]] })
    const res = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 100, maxPrice: 0.6 })
    expect(res.status).toBe(201)
    expect(res.body.data.contracts).toBe(10)
    expect(res.body.data.unfilledContracts).toBeGreaterThan(0)
  })

  it("refuses when nothing fills inside maxPrice, and records nothing", async () => {
    const ref = market("B3", { asks: [[0.7, 10]] })
    const before = await countOrders("acct_alice")
    const res = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 10, maxPrice: 0.6 })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ success: false, code: "VALIDATION" })
    expect(res.body.error).toContain("nothing fills")
    expect(await countOrders("acct_alice")).toBe(before)
  })

  it("refuses a buy the fee would make cost more than $1 a contract, and records nothing", async () => {
    const ref = market("B3b", { asks: [[0.87, 10]] })
    const before = await countOrders("acct_alice")
    const res = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 0.02 }, "tiny-1")
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      success: false, code: "VALIDATION",
      error: "nothing fills: usd 0.02 buys 0.01 contracts at 1.87 each with the fee, more than the $1 a contract pays (a larger usd spreads the fee)",
    })
    expect(await countOrders("acct_alice")).toBe(before)
    // The key was not consumed: a larger buy with it fills, at under $1 a contract.
    const fills = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 2 }, "tiny-1")
    expect(fills.status).toBe(201)
    expect(fills.body.data.avgPrice).toBeLessThanOrEqual(1)
    expect(fills.body.data.cost).toBeCloseTo(fills.body.data.contracts * fills.body.data.avgPrice, 4)
  })

  it("takes the outcome by name, label, yes or no, case-insensitively; anything else is VALIDATION", async () => {
    const ref = market("B4", { asks: [[0.5, 1000]] }, ["Astros", "Rangers"])
    expect((await order("alice", { market: ref, outcome: "ASTROS", action: "buy", usd: 1 })).body.data?.outcome).toBe("Yes")
    expect((await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 1 })).body.data?.outcome).toBe("Yes")
    expect((await order("alice", { market: ref, outcome: "No", action: "buy", usd: 1 })).body.data?.outcome).toBe("No")
    expect((await order("alice", { market: ref, outcome: "rangers", action: "buy", usd: 1 })).body.data?.outcome).toBe("No")
    const bad = await order("alice", { market: ref, outcome: "Mets", action: "buy", usd: 1 })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("VALIDATION")
  })

  it("an unknown market is NOT_FOUND; an event with several contracts is VALIDATION", async () => {
    expect((await order("alice", { market: "venue_a:nope", outcome: "yes", action: "buy", usd: 1 })).body.code).toBe("NOT_FOUND")
    server.feed(
      aListing({ contract: "E1a", event: "EV1", t: tick() }),
      aListing({ contract: "E1b", event: "EV1", t: tick() }),
      aSnapshot({ contract: "E1a", t: tick(), outcome: "yes", asks: [[0.5, 100]] }),
    )
    const several = await order("alice", { market: "venue_a:event:EV1", outcome: "yes", action: "buy", usd: 1 })
    expect(several.status).toBe(400)
    expect(several.body.error).toContain("several contracts")
    // One contract of the event is fine; its market object names the event.
    const one = await order("alice", { market: "venue_a:E1a", outcome: "yes", action: "buy", usd: 1 })
    expect(one.status).toBe(201)
    expect(one.body.data.market).toMatchObject({ ref: "venue_a:event:EV1", contract: "venue_a:E1a" })
  })

  it("enforces the body's bounds and fields per action", async () => {
    const ref = market("B5", { asks: [[0.5, 10]] })
    const cases: Array<[unknown, string]> = [
      [{ market: ref, outcome: "yes", action: "buy", usd: 1_000_001 }, "usd"],
      [{ market: ref, outcome: "yes", action: "buy", usd: 0 }, "usd"],
      [{ market: ref, outcome: "yes", action: "buy" }, "usd"],
      [{ market: ref, outcome: "yes", action: "sell", contracts: 10_000_001 }, "contracts"],
      [{ market: ref, outcome: "yes", action: "sell" }, "contracts"],
      [{ market: ref, outcome: "yes", action: "buy", usd: 5, minPrice: 0.1 }, "minPrice"],
      [{ market: ref, outcome: "yes", action: "sell", contracts: 1, maxPrice: 0.9 }, "maxPrice"],
      [{ market: ref, outcome: "yes", action: "buy", usd: 5, contracts: 3 }, "contracts"],
      [{ market: ref, outcome: "yes", action: "buy", usd: 5, extra: 1 }, "extra"],
      [{ market: ref, outcome: "yes", action: "buy", usd: 5, idempotencyKey: "k" }, "idempotencyKey"],
    ]
    for (const [body, field] of cases) {
      const res = await order("alice", body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.code).toBe("VALIDATION")
      expect(res.body.error, JSON.stringify(body)).toContain(field)
    }
  })

  it("needs the write scope", async () => {
    const res = await order("reader", { market: "venue_a:B1", outcome: "yes", action: "buy", usd: 1 })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe("SCOPE_REQUIRED")
  })
})

describe("POST /v2/paper-orders: sales", () => {
  it("selling with nothing held by hand is VALIDATION", async () => {
    const ref = market("S1", { asks: [[0.5, 100]], bids: [[0.45, 100]] })
    const res = await order("bob", { market: ref, outcome: "yes", action: "sell", contracts: "all" })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain("nothing held by hand")
  })

  it("`all` sells everything held by hand and never a bot's holding; profit against average cost", async () => {
    const ref = market("S2", { asks: [[0.5, 1000]], bids: [[0.6, 1000]] })
    await server.accounts((a) =>
      a.recordBotFill("acct_bob", {
        bot: { id: "trader:7", name: "Whale follower" }, market: ref, outcome: "Yes",
        fill: (() => {
          const f = walkBuy([{ price: 0.5, size: 1000 }], { usd: 50 }, { venue: "venue_a", feeRate: null })
          if (f._tag !== "Filled") throw new Error("expected a fill")
          return f
        })(),
      }))
    const bought = await order("bob", { market: ref, outcome: "yes", action: "buy", usd: 10 })
    expect(bought.status).toBe(201)
    const tooMany = await order("bob", { market: ref, outcome: "yes", action: "sell", contracts: bought.body.data.contracts + 1 })
    expect(tooMany.status).toBe(400)
    const sold = await order("bob", { market: ref, outcome: "yes", action: "sell", contracts: "all", minPrice: 0.55 })
    expect(sold.status).toBe(201)
    expect(sold.body.data.contracts).toBe(bought.body.data.contracts)
    expect(sold.body.data.cost).toBeGreaterThan(0)
    // The bot's holding is untouched; the hand holding is gone.
    const holdings = await server.accounts((a) => a.botHoldings("acct_bob", "trader:7"))
    expect(holdings).toHaveLength(1)
    expect(holdings[0]?.contracts).toBeGreaterThan(0)
    const account = await paper("bob", "?include=orders&status=all")
    expect(account.body.data.positions.data.map((p: any) => p.source)).toEqual(["bot"])
    const [saleRow, buyRow] = account.body.data.orders.data
    expect(saleRow).toMatchObject({ action: "sell", profit: Number((sold.body.data.cost - bought.body.data.cost).toFixed(10)) })
    expect(buyRow).toMatchObject({ action: "buy", profit: null })
    expect(account.body.data.totals.realized).toBeCloseTo(sold.body.data.cost - bought.body.data.cost, 6)
  })
})

describe("Idempotency-Key", () => {
  it("same key and same order: the first fill again with both replay headers, and no second trade", async () => {
    const ref = market("K1", { asks: [[0.5, 1000]] })
    const body = { market: ref, outcome: "yes", action: "buy", usd: 10 }
    const first = await order("alice", body, "key-1")
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const before = await countOrders("acct_alice")
    server.feed(aSnapshot({ contract: "K1", t: tick(), outcome: "yes", asks: [[0.7, 1000]] }))
    const again = await order("alice", { ...body, outcome: "YES" }, "key-1")
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(await countOrders("acct_alice")).toBe(before)
  })

  it("same key with a different order is VALIDATION; keys are per account", async () => {
    const ref = market("K2", { asks: [[0.5, 1000]] })
    expect((await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 10 }, "key-2")).status).toBe(201)
    const other = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 11 }, "key-2")
    expect(other.status).toBe(400)
    expect(other.body.code).toBe("VALIDATION")
    expect(other.body.error).toContain("Idempotency-Key")
    expect((await order("bob", { market: ref, outcome: "yes", action: "buy", usd: 11 }, "key-2")).status).toBe(201)
  })

  it("takes up to 200 characters; 201 is VALIDATION", async () => {
    const ref = market("K3", { asks: [[0.5, 1000]] })
    expect((await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 1 }, "k".repeat(200))).status).toBe(201)
    const long = await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 1 }, "k".repeat(201))
    expect(long.status).toBe(400)
    expect(long.body.code).toBe("VALIDATION")
    expect(long.body.error).toContain("idempotency-key")
  })

  it("reads the header's bytes as UTF-8: 200 emoji are 200 characters (201 are VALIDATION), and the key is the one MCP would give", async () => {
    const ref = market("K3u", { asks: [[0.5, 1000]] })
    // What a client sends as UTF-8 bytes; fetch takes a header value one byte per character.
    const wire = (key: string) => Buffer.from(key, "utf8").toString("latin1")
    const body = { market: ref, outcome: "yes", action: "buy", usd: 1 }
    const placed = await order("alice", body, wire("🐋".repeat(200)))
    expect(placed.status).toBe(201)
    const again = await order("alice", body, wire("🐋".repeat(200)))
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(again.body.data.id).toBe(placed.body.data.id)
    // The key as held is the decoded text, the argument MCP passes (`idempotencyKey`).
    const held = await server.accounts((a) => a.heldKey("acct_alice", "🐋".repeat(200)))
    expect(held?.requestHash).toBe(requestHashOf({ market: ref, outcome: "yes", action: "buy", usd: 1 } as Parameters<typeof requestHashOf>[0]))
    const long = await order("alice", body, wire("🐋".repeat(201)))
    expect(long.status).toBe(400)
    expect(long.body.error).toBe("Invalid value for `idempotency-key`: Idempotency-Key must be 1 to 200 characters")
    const notUtf8 = await order("alice", body, "\xff\xfe-key")
    expect(notUtf8.status).toBe(400)
    expect(notUtf8.body).toEqual({ success: false, code: "VALIDATION", error: "Invalid value for `idempotency-key`: must be UTF-8 text" })
  })

  it("drops the spaces at either end of a key, as HTTP does with a header (so MCP's argument is the same key); only spaces is VALIDATION", () => {
    const fields = { market: "venue_a:X", outcome: "yes", action: "buy", usd: 1 }
    expect(Schema.decodeUnknownSync(PlacePaperOrderInput)({ ...fields, idempotencyKey: "  k-1 " }).idempotencyKey).toBe("k-1")
    expect(() => Schema.decodeUnknownSync(PlacePaperOrderInput)({ ...fields, idempotencyKey: "   " })).toThrow(/Idempotency-Key must be 1 to 200 characters/)
    expect(() => Schema.decodeUnknownSync(PlacePaperOrderInput)({ ...fields, idempotencyKey: 5 })).toThrow(/Expected string, actual 5/)
  })

  it("a refused order does not consume its key", async () => {
    const ref = market("K4", { asks: [[0.9, 10]] })
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5, maxPrice: 0.6 }
    expect((await order("alice", body, "key-4")).status).toBe(400)
    server.feed(aSnapshot({ contract: "K4", t: tick(), outcome: "yes", asks: [[0.5, 100]] }))
    const placed = await order("alice", body, "key-4")
    expect(placed.status).toBe(201)
    expect(placed.headers.get("idempotent-replayed")).toBeNull()
  })

  it("an identical request still running is 409 IDEMPOTENCY_IN_PROGRESS; a different order with its key waits for it", async () => {
    const ref = market("K5", { asks: [[0.5, 100]] })
    const hash = requestHashOf({ market: ref, outcome: "yes", action: "buy", usd: 5 } as Parameters<typeof requestHashOf>[0])
    expect((await server.accounts((a) => a.claim("acct_alice", "key-5", hash)))._tag).toBe("claimed")
    const busy = await order("alice", { market: ref, outcome: "YES", action: "buy", usd: 5 }, "key-5")
    expect(busy.status).toBe(409)
    expect(busy.body.code).toBe("IDEMPOTENCY_IN_PROGRESS")
    // Another order with the key is not told to retry what might never succeed, nor refused for a key the
    // running order might not take: it waits. That order is refused here (it placed nothing), so it is placed.
    let settled = false
    const other = order("alice", { market: ref, outcome: "yes", action: "buy", usd: 6 }, "key-5").finally(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(settled).toBe(false)
    await server.accounts((a) => a.release("acct_alice", "key-5"))
    const placed = await other
    expect(placed.status).toBe(201)
    expect(placed.body.data.cost).toBeLessThanOrEqual(6)
    // Now the key is that order's: the first one sent again is a different order, VALIDATION.
    expect((await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 5 }, "key-5")).status).toBe(400)
  })

  it("a key recorded by an order this node does not hold (another node's) is answered with that order", async () => {
    const ref = market("K7", { asks: [[0.5, 100]] })
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5 }
    const now = await server.accounts(() => Clock.currentTimeMillis)
    const theirs = {
      id: "po_from_another_node_000", market: { ref, contract: ref, title: "K7", venue: "venue_a", category: null, kind: null },
      outcome: "Yes", action: "buy", contracts: 9.5, avgPrice: 0.5, cost: 5, unfilledContracts: 0, filledAt: new Date(now).toISOString(),
    }
    const hash = requestHashOf({ market: ref, outcome: "yes", action: "buy", usd: 5 } as Parameters<typeof requestHashOf>[0])
    // Their order, holding the key, at a place in the ledger this node has not reached.
    await server.sql((sql) => sql`
      INSERT INTO paper_orders (id, account_id, seq, idempotency_key, held_key, request_hash, market, market_object, outcome,
        action, contracts, avg_price, cost, fee, unfilled, filled_at, source)
      VALUES (${theirs.id}, 'acct_alice', 900000, 'key-7', 'key-7', ${hash}, ${ref}, ${JSON.stringify(theirs.market)}::jsonb,
        'Yes', 'buy', 9.5, 0.5, 5, 0, 0, ${now}, 'hand') RETURNING id`)
    expect(await server.accounts((a) => a.heldKey("acct_alice", "key-7"))).toBeNull()
    const before = await countOrders("acct_alice")
    const positions = (await paper("alice")).body.data.positions
    const answer = await order("alice", body, "key-7")
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual(theirs)
    expect(answer.headers.get("idempotent-replayed")).toBe("true")
    expect(await countOrders("acct_alice")).toBe(before)
    // The fill applied before the commit lost the key was taken back.
    expect((await paper("alice")).body.data.positions).toEqual(positions)
    const other = await order("alice", { ...body, usd: 6 }, "key-7")
    expect(other.status).toBe(400)
    expect(other.body.code).toBe("VALIDATION")
  })

  it("keys survive a restart: a replay after it answers the first fill and records nothing", async () => {
    const ref = market("K8", { asks: [[0.5, 100]] })
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5 }
    const first = await order("alice", body, "key-8")
    expect(first.status).toBe(201)
    const before = await countOrders("acct_alice")
    server = await server.restart()
    // Known held from the keys loaded with the accounts; what it answers is read from the store.
    expect(await server.accounts((a) => a.heldKey("acct_alice", "key-8"))).toMatchObject({ response: first.body.data })
    const again = await order("alice", body, "key-8")
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    // Byte for byte: the market object read back from the store keeps its fields' order.
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body))
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(await countOrders("acct_alice")).toBe(before)
  })

  it("POST /v1/paper-orders is the same operation in the v1 envelope: a key placed on one path replays on the other", async () => {
    const ref = market("K9", { asks: [[0.5, 100]] })
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5 }
    const v1 = (key: string, b: unknown) =>
      fetch(`${server.url}/v1/paper-orders`, {
        method: "POST", headers: { authorization: "Bearer alice", "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(b),
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }))
    const placed = await v1("key-9", body)
    expect(placed.status).toBe(201)
    expect(placed.body.success).toBe(true)
    const before = await countOrders("acct_alice")
    const again = await order("alice", body, "key-9")
    expect(again.status).toBe(201)
    expect(again.body).toEqual({ data: placed.body.data })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(await countOrders("acct_alice")).toBe(before)
    expect((await v1("key-9b", { ...body, usd: 0 })).body).toMatchObject({ success: false, code: "VALIDATION" })
  })

  it("concurrent identical requests record one trade", async () => {
    const ref = market("K6", { asks: [[0.5, 10_000]] })
    const before = await countOrders("acct_alice")
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5 }
    const answers = await Promise.all(Array.from({ length: 20 }, () => order("alice", body, "key-6")))
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true)
    expect(answers.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === null)).toHaveLength(1)
    expect(await countOrders("acct_alice")).toBe(before + 1)
  })
})

describe("GET /v2/paper", () => {
  it("a position's cost is its contracts times its entryPrice, however large (the entry price is not rounded)", async () => {
    const ref = market("P9", { asks: [[0.923402, 2_000_000]] })
    expect((await order("alice", { market: ref, outcome: "yes", action: "buy", usd: 487_081 })).status).toBe(201)
    const position = (await paper("alice", "?status=all")).body.data.positions.data.find((p: { market: { contract: string; ref: string } }) => p.market.contract === ref && p.market.ref === ref)
    expect(position.contracts).toBeGreaterThan(500_000)
    expect(Math.abs(position.cost - position.contracts * position.entryPrice)).toBeLessThan(1e-6)
  })

  it("settles holdings at the payout, voids refund at cost, and totals realized and winRate", async () => {
    const win = market("P1", { asks: [[0.4, 1000]] })
    const lose = market("P2", { asks: [[0.4, 1000]] })
    const voided = market("P3", { asks: [[0.4, 1000]] })
    const before = (await paper("bob")).body.data.totals
    expect(before.winRate).toBeNull()
    const w = await order("bob", { market: win, outcome: "yes", action: "buy", usd: 10 })
    const l = await order("bob", { market: lose, outcome: "yes", action: "buy", usd: 10 })
    const v = await order("bob", { market: voided, outcome: "yes", action: "buy", usd: 10 })
    const open = (await paper("bob", "?market=" + win)).body.data.positions.data[0]
    expect(open).toMatchObject({ status: "open", result: null, source: "hand", bot: null, settledAt: null, contracts: w.body.data.contracts })
    server.feed(aSettlement({ contract: "P1", t: tick(), winner: "yes" }), aSettlement({ contract: "P2", t: tick(), winner: "no" }), aVoid({ contract: "P3", t: tick() }))
    await new Promise((r) => setTimeout(r, 100))
    const settled = (await paper("bob", "?status=settled&limit=200")).body.data
    const byRef = (ref: string) => settled.positions.data.find((p: any) => p.market.contract === ref && p.market.ref === ref)
    expect(byRef(win)).toMatchObject({ status: "settled", result: "win", price: 1 })
    expect(byRef(win).profit).toBeCloseTo(w.body.data.contracts - w.body.data.cost, 6)
    expect(byRef(lose)).toMatchObject({ status: "settled", result: "loss", price: 0 })
    expect(byRef(voided)).toMatchObject({ status: "settled", result: "void", profit: 0 })
    expect(byRef(voided).price).toBe(byRef(voided).entryPrice)
    expect(settled.totals.winRate).toBe(0.5)
    const gained = (w.body.data.contracts - w.body.data.cost) - l.body.data.cost
    expect(settled.totals.realized - before.realized).toBeCloseTo(gained, 6)
    expect(v.status).toBe(201)
  })

  it("filters positions (status, source, bot, venue, market) but never the totals; pages by cursor", async () => {
    const all = (await paper("alice", "?status=all&limit=200")).body.data
    expect(all.positions.data.length).toBeGreaterThan(3)
    const page1 = (await paper("alice", "?status=all&limit=2")).body.data
    expect(page1.positions.data).toEqual(all.positions.data.slice(0, 2))
    expect(page1.totals).toEqual(all.totals)
    const page2 = (await paper("alice", `?status=all&limit=2&cursor=${encodeURIComponent(page1.positions.nextCursor)}`)).body.data
    expect(page2.positions.data).toEqual(all.positions.data.slice(2, 4))
    const foreign = await paper("alice", `?status=open&limit=2&cursor=${encodeURIComponent(page1.positions.nextCursor)}`)
    expect(foreign.status).toBe(400)
    expect((await paper("alice", "?venue=venue_b")).body.data.positions.data).toEqual([])
    expect((await paper("alice", "?source=bot")).body.data.positions.data).toEqual([])
    expect((await paper("alice", "?bot=trader:7")).body.data.positions.data).toEqual([])
    const one = (await paper("alice", "?market=venue_a:B1")).body.data.positions.data
    expect(one.map((p: any) => p.market.contract)).toEqual(["venue_a:B1"])
    expect((await paper("alice", "?venue=venue_b")).body.data.totals).toEqual(all.totals)
    for (const bad of ["?status=closed", "?source=x", "?limit=0", "?limit=201", "?include=trades", "?since=2026-01-01T00:00:00", "?nope=1"]) {
      expect((await paper("alice", bad)).status, bad).toBe(400)
    }
  })

  it("a bad market filter is named in the filter's own sentence, not Schema's list form", async () => {
    for (const [query, error] of [
      ["?market=", "market must not be empty"],
      [`?market=${"x".repeat(301)}`, "market must be at most 300 characters"],
      ["?market=a&market=", "market must not be empty (value 2)"],
    ] as const) {
      const r = await paper("alice", query)
      expect(r.status).toBe(400)
      expect(r.body).toEqual({ success: false, code: "VALIDATION", error })
    }
  })

  it("include=orders: hand orders newest first, paged by ordersCursor, since at or after", async () => {
    const all = (await paper("alice", "?include=orders&limit=200")).body.data.orders.data
    expect(all.length).toBeGreaterThan(5)
    const times = all.map((o: any) => o.filledAt)
    expect([...times].sort().reverse()).toEqual(times)
    const p1 = (await paper("alice", "?include=orders&limit=3")).body.data.orders
    expect(p1.data).toEqual(all.slice(0, 3))
    const p2 = (await paper("alice", `?include=orders&limit=3&ordersCursor=${encodeURIComponent(p1.nextCursor)}`)).body.data.orders
    expect(p2.data).toEqual(all.slice(3, 6))
    const since = all[2].filledAt
    const recent = (await paper("alice", `?include=orders&limit=200&since=${encodeURIComponent(since)}`)).body.data.orders.data
    expect(recent.every((o: any) => o.filledAt >= since)).toBe(true)
    expect((await paper("alice")).body.data.orders).toBeUndefined()
    // Without include=orders an orders cursor is still checked: a good one reads nothing, a foreign one is VALIDATION.
    const quiet = await paper("alice", `?ordersCursor=${encodeURIComponent(p1.nextCursor)}`)
    expect(quiet.status).toBe(200)
    expect(quiet.body.data.orders).toBeUndefined()
    for (const cursor of ["abc", p1.nextCursor.slice(0, -2) + "xx"]) {
      const bad = await paper("alice", `?ordersCursor=${encodeURIComponent(cursor)}`)
      expect(bad.body).toMatchObject({ code: "VALIDATION", error: "ordersCursor is not valid for this listing" })
    }
  })

  it("a bot's fill that reaches the account after its market settled or was voided is settled at once", async () => {
    const won = market("S1", { asks: [[0.5, 1000]] })
    const voided = market("S2", { asks: [[0.5, 1000]] })
    const fill = walkBuy([{ price: 0.5, size: 1000 }], { usd: 20 }, { venue: "venue_a", feeRate: null })
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    server.feed(aSettlement({ contract: "S1", t: tick(), winner: "yes" }), aVoid({ contract: "S2", t: tick() }))
    await new Promise((r) => setTimeout(r, 100))
    const bot = { id: "trader:late", name: "late copier" }
    await server.accounts((a) => a.recordBotFill("acct_alice", { bot, market: won, outcome: "Yes", fill }))
    await server.accounts((a) => a.recordBotFill("acct_alice", { bot, market: voided, outcome: "Yes", fill }))
    const rows = (await paper("alice", "?status=all&bot=trader:late")).body.data.positions.data as Array<any>
    const byRef = (ref: string) => rows.find((p) => p.market.contract === ref && p.market.ref === ref)
    expect(byRef(won)).toMatchObject({ status: "settled", result: "win", price: 1, source: "bot" })
    expect(byRef(voided)).toMatchObject({ status: "settled", result: "void", profit: 0, source: "bot" })
  })

  it("a market bot's holdings stay on the bot, not in the account", async () => {
    const ref = market("M1", { asks: [[0.5, 1000]] })
    const fill = walkBuy([{ price: 0.5, size: 1000 }], { usd: 20 }, { venue: "venue_a", feeRate: null })
    if (fill._tag !== "Filled") throw new Error("expected a fill")
    const before = (await paper("alice")).body.data
    await server.accounts((a) => a.recordBotFill("acct_alice", { bot: { id: "market:3", name: "M1 dip" }, market: ref, outcome: "Yes", fill }))
    const after = (await paper("alice")).body.data
    expect(after.totals).toEqual(before.totals)
    expect((await paper("alice", "?bot=market:3")).body.data.positions.data).toEqual([])
    expect(await server.accounts((a) => a.botHoldings("acct_alice", "market:3"))).toHaveLength(1)
  })

  it("a restart rebuilds every account from the store: same positions, totals and orders", async () => {
    const before = (await paper("bob", "?status=all&include=orders&limit=200")).body.data
    const botBefore = await server.accounts((a) => a.botHoldings("acct_bob", "trader:7"))
    server = await server.restart()
    const after = (await paper("bob", "?status=all&include=orders&limit=200")).body.data
    expect(after).toEqual(before)
    expect(await server.accounts((a) => a.botHoldings("acct_bob", "trader:7"))).toEqual(botBefore)
    // Ids continue after the ledger's last order.
    const ref = market("R1", { asks: [[0.5, 100]] })
    expect((await order("bob", { market: ref, outcome: "yes", action: "buy", usd: 1 })).status).toBe(201)
    void Effect.void
  })
})
