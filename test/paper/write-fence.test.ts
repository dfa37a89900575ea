// The accounts' write fence (src/actors/write-fence.ts): while it refuses, a paper order is not recorded
// (nor acknowledged: the request fails) and its fill is taken back out of the account; once it allows,
// orders are recorded as before. It refuses in two places: this node's own check (its token), and the
// store, when the lease row names another node or another epoch than the token (a takeover this node
// has not noticed yet).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { leaseRow, testFence } from "../support/lease-row.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { aPrincipal } from "../support/memory-keys.js"
import { type PaperServer, startPaperServer } from "./support.js"

let server: PaperServer
const principal = aPrincipal({ accountId: `acct_fence_${process.pid}` })
const lease = `fence_paper_${process.pid}`
/** What this node believes: its epoch, or refused by its own check (null). */
let mine: number | null = null

beforeAll(async () => {
  server = await startPaperServer({ tok: principal }, {
    fence: testFence(lease, () => mine),
  })
  server.feed(
    aListing({ contract: "WF1", t: 1_000 }),
    aSnapshot({ contract: "WF1", t: 2_000, outcome: "yes", asks: [[0.5, 1e6]], bids: [[0.4, 1e6]] }),
  )
  await server.sql((sql) => leaseRow(sql, lease, "this-node", 1))
  mine = 1
}, 60_000)
afterAll(() => server.close())

let n = 0
const order = () =>
  fetch(`${server.url}/v2/paper-orders`, {
    method: "POST",
    headers: { authorization: "Bearer tok", "content-type": "application/json", "idempotency-key": `wf-${++n}` },
    body: JSON.stringify({ market: "venue_a:WF1", outcome: "yes", action: "buy", usd: 10 }),
  })
const stored = () => server.sql((sql) => sql`SELECT id FROM paper_orders WHERE account_id = ${principal.accountId}`)
const holdings = () => server.accounts((a) => Object.keys(a.context(principal.accountId).holdings).length)

const refusedUnrecorded = async () => {
  const refused = await order()
  expect(refused.status).toBe(500)
  expect((await refused.json() as { code: string }).code).toBe("INTERNAL")
  expect(await stored()).toEqual([])
  expect(await holdings()).toBe(0)
}

describe("the accounts' write fence", () => {
  it("refused by this node's check: the order fails unrecorded and the account is unchanged", async () => {
    const epoch = mine
    mine = null
    await refusedUnrecorded()
    mine = epoch
  })

  it("refused by the store (another node took the lease at a later epoch): unrecorded; this node's again: recorded", async () => {
    const epoch = mine as number
    await server.sql((sql) => leaseRow(sql, lease, "other-node", epoch + 1))
    await refusedUnrecorded()
    // Taken back: the row names this node at the epoch its token carries.
    await server.sql((sql) => leaseRow(sql, lease, "this-node", epoch + 2))
    mine = epoch + 2
    const placed = await order()
    expect(placed.status).toBe(201)
    expect(await stored()).toHaveLength(1)
    expect(await holdings()).toBe(1)
  })
})
