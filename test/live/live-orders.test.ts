// place_order (POST /v1/orders) and sell_position (POST /v1/positions/sell) through the HTTP door: each
// checks the request (the body, then the Idempotency-Key, then the market), then answers
// WALLET_NOT_READY, since no trading wallet can be connected here; nothing is placed, the paper account
// is untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Operation } from "../../src/operations/operation.js"
import { placeOrder, sellPosition } from "../../src/operations/v1-live-orders.js"
import { MAX_IDEMPOTENCY_KEY } from "../../src/domain/limits.js"
import { call } from "../support/http-client.js"
import { aPrincipal } from "../support/memory-keys.js"
import { aListing, aSettlement, aSnapshot } from "../actors/market-builders.js"
import { type PaperServer, startPaperServer } from "../paper/support.js"

let server: PaperServer
beforeAll(async () => {
  server = await startPaperServer(
    { live: aPrincipal({ accountId: "acct_live" }), reader: aPrincipal({ accountId: "acct_live", scopes: ["read"] }) },
    { operations: [placeOrder, sellPosition] as unknown as ReadonlyArray<Operation<any, any, never>> },
  )
  server.feed(
    aListing({ contract: "L1", t: 1_000 }),
    aSnapshot({ contract: "L1", t: 2_000, outcome: "yes", asks: [[0.5, 1_000]], bids: [[0.45, 1_000]] }),
    aListing({ contract: "L2", t: 3_000 }),
    aSettlement({ contract: "L2", t: 4_000, winner: "yes" }),
  )
}, 60_000)
afterAll(async () => {
  await server?.close()
})

const send = (path: string, body: unknown, key: string | null = "k-1", token = "live") =>
  call(server.url, path, { method: "POST", body, token, ...(key === null ? {} : { headers: { "Idempotency-Key": key } }) })
const buy = { market: "venue_a:L1", outcome: "yes", usd: 50 }
const sale = { market: "venue_a:L1", outcome: "Yes", contracts: "all" }

describe("place_order and sell_position", () => {
  it("check the body, the key and the market, then answer WALLET_NOT_READY: nothing is placed", async () => {
    for (const [path, body] of [["/v1/orders", buy], ["/v1/positions/sell", sale]] as const) {
      const refused = await send(path, body)
      expect(refused.status, path).toBe(409)
      expect(refused.body).toMatchObject({ success: false, code: "WALLET_NOT_READY", error: expect.stringContaining("paper") })
      const noKey = await send(path, body, null)
      expect(noKey.status).toBe(400)
      expect(noKey.body.code).toBe("IDEMPOTENCY_KEY_REQUIRED")
      // The body is decoded first: a bad body without a key names the body's field.
      expect((await send(path, {}, null)).body).toMatchObject({ code: "VALIDATION", error: "`market` is required" })
      // The key before the market: an unknown market without a key is still IDEMPOTENCY_KEY_REQUIRED.
      expect((await send(path, { ...body, market: "venue_a:NOPE" }, null)).body.code).toBe("IDEMPOTENCY_KEY_REQUIRED")
      expect((await send(path, body, "x".repeat(MAX_IDEMPOTENCY_KEY))).body.code).toBe("WALLET_NOT_READY")
      expect((await send(path, body, "x".repeat(MAX_IDEMPOTENCY_KEY + 1))).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("Idempotency-Key") })
      expect((await send(path, { ...body, market: "venue_a:NOPE" })).body.code).toBe("NOT_FOUND")
      expect((await send(path, { ...body, outcome: "maybe" })).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("outcome") })
      expect((await send(path, { ...body, market: "venue_a:L2" })).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("not open") })
      expect((await send(path, { ...body, extra: 1 })).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("extra") })
      expect((await send(path, body, "k-2", "reader")).body.code).toBe("SCOPE_REQUIRED")
    }
    // The bounds of a paper order's fields, at their edges.
    expect((await send("/v1/orders", { ...buy, usd: 1_000_000 })).body.code).toBe("WALLET_NOT_READY")
    expect((await send("/v1/orders", { ...buy, usd: 1_000_000.01 })).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("usd") })
    expect((await send("/v1/positions/sell", { ...sale, contracts: 10_000_000 })).body.code).toBe("WALLET_NOT_READY")
    expect((await send("/v1/positions/sell", { ...sale, contracts: 10_000_001 })).body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("contracts") })
    // The paper account saw nothing.
    const paper = await call(server.url, "/v2/paper?include=orders", { token: "live" })
    expect(paper.body.data.orders.data).toEqual([])
    expect(paper.body.data.positions.data).toEqual([])
  })
})
