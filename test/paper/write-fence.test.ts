// The accounts' write fence (src/actors/write-fence.ts): while it refuses, a paper order is not recorded
// (nor acknowledged: the request fails) and its fill is taken back out of the account; once it allows,
// orders are recorded as before.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { aPrincipal } from "../support/memory-keys.js"
import { type PaperServer, startPaperServer } from "./support.js"

let server: PaperServer
let open = true
const principal = aPrincipal({ accountId: `acct_fence_${process.pid}` })

beforeAll(async () => {
  server = await startPaperServer({ tok: principal }, {
    fence: { check: Effect.suspend(() => (open ? Effect.void : Effect.dieMessage("the lease is not surely this node's"))) },
  })
  server.feed(
    aListing({ contract: "WF1", t: 1_000 }),
    aSnapshot({ contract: "WF1", t: 2_000, outcome: "yes", asks: [[0.5, 1e6]], bids: [[0.4, 1e6]] }),
  )
}, 60_000)
afterAll(() => server.close())

const order = () =>
  fetch(`${server.url}/v2/paper-orders`, {
    method: "POST",
    headers: { authorization: "Bearer tok", "content-type": "application/json", "idempotency-key": `wf-${open}` },
    body: JSON.stringify({ market: "venue_a:WF1", outcome: "yes", action: "buy", usd: 10 }),
  })

describe("the accounts' write fence", () => {
  it("refusing: the order fails unrecorded and the account is unchanged; allowing: it is recorded", async () => {
    open = false
    const refused = await order()
    expect(refused.status).toBe(500)
    expect((await refused.json() as { code: string }).code).toBe("INTERNAL")
    expect(await server.sql((sql) => sql`SELECT id FROM paper_orders WHERE account_id = ${principal.accountId}`)).toEqual([])
    expect(await server.accounts((a) => Object.keys(a.context(principal.accountId).holdings).length)).toBe(0)
    open = true
    const placed = await order()
    expect(placed.status).toBe(201)
    expect(await server.sql((sql) => sql`SELECT id FROM paper_orders WHERE account_id = ${principal.accountId}`)).toHaveLength(1)
  })
})
