// An order's wait for the group commit cannot be cut short: a caller that goes away (an aborted request)
// while its order is being written leaves the account, the store and the key index agreeing on that order;
// and closing the accounts layer while orders wait answers every one of them (nothing hangs), each one
// recorded exactly when the store has it.
import { Effect, Exit, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PreparedOrder } from "../../src/actors/accounts/registry.js"
import { aListing, aSnapshot } from "../actors/market-builders.js"
import { type PaperServer, startPaperServer } from "./support.js"

let server: PaperServer
const REF = "venue_a:CW1"

beforeAll(async () => {
  server = await startPaperServer({})
  server.feed(
    aListing({ contract: "CW1", t: 1_000 }),
    aSnapshot({ contract: "CW1", t: 2_000, outcome: "yes", asks: [[0.5, 1e6]], bids: [[0.4, 1e6]] }),
  )
}, 60_000)
afterAll(() => server.close())

/** A hand buy of `contracts` at 0.5 (no fee), as a prepared order, with an idempotency key. */
const buyOf = (contracts: number, key: string) => (): Exit.Exit<PreparedOrder, never> =>
  Exit.succeed({
    ref: REF, market: { ref: REF, contract: REF, title: "CW1", venue: "venue_a", category: null, kind: null }, outcome: "Yes", action: "buy",
    fill: {
      _tag: "Filled", action: "buy", contracts, avgPrice: 0.5, priceBeforeFee: 0.5, gross: contracts * 0.5, fee: 0,
      cost: contracts * 0.5, unfilledContracts: 0, unspentUsd: 0, levels: [{ price: 0.5, size: contracts }],
    },
    source: "hand", bot: null, idempotencyKey: key, requestHash: `hash-${key}`,
  })

const heldContracts = (s: PaperServer, account: string) =>
  s.accounts((a) => Object.values(a.context(account).holdings).find((h) => h.ref === REF)?.contracts ?? 0)

const storedContracts = async (account: string) => {
  const rows = await server.sql((sql) => sql<{ readonly contracts: number }>`SELECT contracts FROM paper_orders WHERE account_id = ${account}`)
  return rows.reduce((n, r) => n + Number(r.contracts), 0)
}

describe("the wait for the group commit", () => {
  it("is not cut short by the caller's interruption: the order interrupted mid-write is in memory, in the store and in the key index", async () => {
    const account = "acct_commit_interrupted"
    const interrupted = await server.accounts((a) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(a.commit(account, buyOf(7, "cw-key-1")))
        // Until its fill is applied in memory: the order is then on its way to the store.
        while (Object.keys(a.context(account).holdings).length === 0) yield* Effect.yieldNow()
        return yield* Fiber.interrupt(fiber)
      }))
    // The commit ran to its end (the write answered) before the interruption took effect.
    expect(Exit.isSuccess(interrupted) || Exit.isInterrupted(interrupted)).toBe(true)
    expect(await storedContracts(account)).toBe(7)
    expect(await heldContracts(server, account)).toBe(7)
    // The key is known as this order's: its replay is found without asking the store for an unknown key.
    const held = await server.accounts((a) => a.heldKey(account, "cw-key-1"))
    expect(held?.requestHash).toBe("hash-cw-key-1")
  })

  it("answers every waiting order when the layer closes: the group being written is recorded, the rest interrupted", async () => {
    // One order a group, so that most of them are still waiting when the layer closes.
    let one = await startPaperServer({}, { accounts: { batchRows: 1 } })
    try {
      one.feed(
        aListing({ contract: "CW1", t: 1_000 }),
        aSnapshot({ contract: "CW1", t: 2_000, outcome: "yes", asks: [[0.5, 1e6]], bids: [[0.4, 1e6]] }),
      )
      const account = "acct_commit_closing"
      const all = one.accounts((a) =>
        Effect.all(Array.from({ length: 40 }, (_, i) => Effect.exit(a.commit(account, buyOf(1, `cw-close-${i}`)))), { concurrency: "unbounded" }))
      // Until the first group is being written, then close the layer under the rest (a restart).
      while ((await one.accounts((a) => a.context(account).seq)) === 0) await new Promise((resolve) => setImmediate(resolve))
      const closing = one
      one = await closing.restart()
      const exits = await Promise.race([all, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 10_000))])
      if (exits === "hung") throw new Error("orders still waiting after the layer closed")
      const recorded = exits.filter((e) => Exit.isSuccess(e) && e.value !== null).length
      const interrupted = exits.filter((e) => Exit.isInterrupted(e)).length
      expect(recorded + interrupted).toBe(40)
      expect(recorded).toBeGreaterThan(0)
      expect(interrupted).toBeGreaterThan(0)
      // The new layer restores the account from the store: the orders answered as recorded, and only those.
      const rows = await one.sql((sql) => sql<{ readonly contracts: number }>`SELECT contracts FROM paper_orders WHERE account_id = ${account}`)
      expect(rows.length).toBe(recorded)
      expect(await heldContracts(one, account)).toBe(recorded)
    } finally {
      await one.close()
    }
  }, 30_000)
})
