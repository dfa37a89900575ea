// Idempotency keys past what the accounts layer holds in memory (`keyCapacity`): a key dropped from memory
// while younger than 24 hours, or never loaded after a restart, is still replayed, from the store.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPrincipal } from "../support/memory-keys.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { type PaperServer, startPaperServer } from "./support.js"

const accountId = `acct_keycap_${process.pid}`
const tokens = { carol: aPrincipal({ accountId }) }
let server: PaperServer
let t = 1_000
const tick = () => (t += 1_000)

const market = (contract: string, asks: Array<[number, number]>) => {
  server.feed(
    aListing({ contract, t: tick() }),
    aSnapshot({ contract, t: tick(), outcome: "yes", asks, bids: [] }),
    aSnapshot({ contract, t: tick(), outcome: "no", asks: [[0.6, 1000]], bids: [[0.55, 1000]] }),
  )
  return `venue_a:${contract}`
}
/** The contract's Yes book emptied: a new buy fills nothing (VALIDATION); only a replay answers 201. */
const emptyBook = (contract: string) => server.feed(aSnapshot({ contract, t: tick(), outcome: "yes", asks: [], bids: [] }))

const order = (body: unknown, key: string) =>
  fetch(`${server.url}/v2/paper-orders`, {
    method: "POST",
    headers: { authorization: "Bearer carol", "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }))

const countOrders = async () =>
  Number((await server.sql<{ n: string }>((sql) => sql`SELECT count(*) AS n FROM paper_orders WHERE account_id = ${accountId}`))[0]?.n)

beforeAll(async () => {
  server = await startPaperServer(tokens, { accounts: { keyCapacity: 2 } })
})
afterAll(async () => {
  await server.close()
})

describe("idempotency keys beyond the keys held in memory", () => {
  it("replays a key the index dropped, and refuses a different order with it, from the store", async () => {
    const ref = market("C1", [[0.5, 1000]])
    const body = (usd: number) => ({ market: ref, outcome: "yes", action: "buy", usd })
    const first = await order(body(5), "cap-1")
    expect(first.status).toBe(201)
    // Two more keys: the first is no longer in memory (capacity 2).
    expect((await order(body(6), "cap-2")).status).toBe(201)
    expect((await order(body(7), "cap-3")).status).toBe(201)
    emptyBook("C1")
    const before = await countOrders()
    const again = await order(body(5), "cap-1")
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body))
    const other = await order(body(8), "cap-1")
    expect(other.status).toBe(400)
    expect(other.body.code).toBe("VALIDATION")
    expect(other.body.error).toContain("Idempotency-Key")
    // The keys still in memory replay too, and nothing was recorded twice.
    expect((await order(body(7), "cap-3")).headers.get("idempotent-replayed")).toBe("true")
    expect(await countOrders()).toBe(before)
  })

  it("a new key is placed as before, while older keys are only in the store", async () => {
    const ref = market("C2", [[0.5, 1000]])
    const placed = await order({ market: ref, outcome: "yes", action: "buy", usd: 5 }, "cap-new")
    expect(placed.status).toBe(201)
    expect(placed.headers.get("idempotent-replayed")).toBeNull()
  })

  it("after a restart that loads only the newest keys, an older one is replayed from the store", async () => {
    const ref = market("C3", [[0.5, 1000]])
    const body = { market: ref, outcome: "yes", action: "buy", usd: 5 }
    const first = await order(body, "cap-restart")
    expect(first.status).toBe(201)
    const newer = market("C4", [[0.5, 1000]])
    expect((await order({ ...body, market: newer }, "cap-r2")).status).toBe(201)
    expect((await order({ ...body, market: newer, usd: 6 }, "cap-r3")).status).toBe(201)
    server = await server.restart()
    server.feed(aListing({ contract: "C3", t: tick() }))
    emptyBook("C3")
    const before = await countOrders()
    const again = await order(body, "cap-restart")
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body))
    expect(await countOrders()).toBe(before)
  })
})
