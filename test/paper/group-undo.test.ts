// The group commit's failed write: every fill of the group is taken back out of the account, newest first,
// so the account is exactly as before the group whatever the fills did to one holding (a buy, then sales
// that sell it whole). Until stop 21 each waiting order took its own fill back in the order they were
// answered, and a sale that had sold the holding whole put its `before` back over the others' undo.
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PreparedOrder } from "../../src/actors/accounts/registry.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { type PaperServer, startPaperServer } from "./support.js"

let server: PaperServer
const REF = "venue_a:GU1"

beforeAll(async () => {
  server = await startPaperServer({})
  server.feed(
    aListing({ contract: "GU1", t: 1_000 }),
    aSnapshot({ contract: "GU1", t: 2_000, outcome: "yes", asks: [[0.5, 1e6]], bids: [[0.4, 1e6]] }),
  )
}, 60_000)
afterAll(() => server.close())

/** A hand fill of `contracts` at `price` (no fee), as a prepared order. */
const fillOf = (action: "buy" | "sell", contracts: number, price: number) => (): Exit.Exit<PreparedOrder, never> =>
  Exit.succeed({
    ref: REF, market: { ref: REF, contract: REF, title: "GU1", venue: "venue_a", category: null, kind: null }, outcome: "Yes", action,
    fill: {
      _tag: "Filled", action, contracts, avgPrice: price, priceBeforeFee: price, gross: contracts * price, fee: 0,
      cost: contracts * price, unfilledContracts: 0, unspentUsd: 0, levels: [{ price, size: contracts }],
    },
    source: "hand", bot: null, idempotencyKey: null, requestHash: null, response: () => null,
  })

const holdingOf = (account: string) =>
  server.accounts((a) => {
    const held = Object.values(a.context(account).holdings).find((h) => h.ref === REF)
    return held === undefined ? null : { contracts: held.contracts, cost: held.cost }
  })

describe("a group commit whose write fails", () => {
  it("takes every fill of the group back out, newest first: the account is as before the group", async () => {
    const account = "acct_group_undo"
    await server.accounts((a) => a.commit(account, fillOf("buy", 10, 0.5)))
    expect(await holdingOf(account)).toEqual({ contracts: 10, cost: 5 })
    const realizedBefore = await server.accounts((a) => a.context(account).realized)
    // The store refuses the next writes: the group's one statement fails.
    await server.sql((sql) => sql`ALTER TABLE paper_orders RENAME TO paper_orders_away`)
    try {
      // The first order (another account's) is a group alone; the three that wait behind its write are the
      // next group, in this order.
      const exits = await server.accounts((a) =>
        Effect.all([
          Effect.exit(a.commit("acct_group_undo_other", fillOf("buy", 1, 0.5))),
          Effect.exit(a.commit(account, fillOf("buy", 2, 0.5))),
          Effect.exit(a.commit(account, fillOf("sell", 4, 0.6))),
          Effect.exit(a.commit(account, fillOf("sell", 8, 0.6))), // sells the holding whole
        ], { concurrency: "unbounded" }))
      expect(exits.every(Exit.isFailure)).toBe(true)
    } finally {
      await server.sql((sql) => sql`ALTER TABLE paper_orders_away RENAME TO paper_orders`)
    }
    expect(await holdingOf(account)).toEqual({ contracts: 10, cost: 5 })
    expect(await server.accounts((a) => a.context(account).realized)).toBe(realizedBefore)
    // And the account goes on: a sale now is recorded against the holding as it was.
    const sold = await server.accounts((a) => a.commit(account, fillOf("sell", 10, 0.6)))
    expect(sold?.profit).toBeCloseTo(1, 9)
    expect(await holdingOf(account)).toBeNull()
  })
})
