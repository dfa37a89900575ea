// PaperStore.record (one INSERT, migrations 5, 16 and 18): what the group commit writes, and the keys it
// holds. Each rule is checked for an order alone and for the same order in a group with an unrelated one.
import { SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { PaperStore, type StoredOrder } from "../../src/store/paper.js"
import { TestDb } from "../support/db.js"

const db = ManagedRuntime.make(TestDb)
afterAll(() => db.dispose())
const run = <A>(e: Effect.Effect<A, unknown, SqlClient.SqlClient>) => db.runPromise(e as Effect.Effect<A, never, SqlClient.SqlClient>)

const NOW = 10 * 86_400_000
let n = 0
const anOrder = (overrides: Partial<StoredOrder> = {}): StoredOrder => {
  n += 1
  return {
    id: `po_rec_${process.pid}_${n}`, accountId: `acct_rec_${process.pid}`, seq: 1_000_000 + n, idempotencyKey: null, requestHash: null,
    market: "venue_a:R1", marketObject: { ref: "venue_a:R1", contract: "venue_a:R1", title: "R1", venue: "venue_a", category: null, kind: null },
    outcome: "Yes", action: "buy", contracts: 10, avgPrice: 0.5, cost: 5, fee: 0.01, unfilled: 0, filledAt: NOW, profit: null,
    source: "hand", botId: null, botName: null, botFillId: null, ...overrides,
  }
}
const keyed = (key: string, filledAt = NOW) => anOrder({ idempotencyKey: key, requestHash: `h-${key}-${n}`, filledAt })
const countOf = async (id: string) =>
  Number((await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ c: string }>`SELECT count(*) AS c FROM paper_orders WHERE id = ${id}`)))[0]?.c)
/** The order holding the key now. */
const keyRow = async (accountId: string, key: string) =>
  (await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; request_hash: string; created_at: string }>`
      SELECT id, request_hash, filled_at AS created_at FROM paper_orders WHERE account_id = ${accountId} AND held_key = ${key}`)))[0]
/** How many orders were placed with the key, held or not. */
const placedWith = async (accountId: string, key: string) =>
  Number((await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ c: string }>`SELECT count(*) AS c FROM paper_orders WHERE account_id = ${accountId} AND idempotency_key = ${key}`)))[0]?.c)

/** Records `order`, alone or with an unrelated order in the same call; whether `order` was inserted. */
const recorded = async (order: StoredOrder, grouped: boolean, now = NOW): Promise<boolean> => {
  const filler = anOrder()
  const ids = await run(PaperStore.record(grouped ? [filler, order] : [order], now))
  if (grouped) expect(ids.has(filler.id)).toBe(true)
  return ids.has(order.id)
}

describe.each([["alone", false], ["in a group", true]])("PaperStore.record, an order %s", (_, grouped) => {
  it("inserts an order without a key", async () => {
    const o = anOrder()
    expect(await recorded(o, grouped)).toBe(true)
    expect(await countOf(o.id)).toBe(1)
  })

  it("inserts a keyed order with its key; a second order with the key held is not inserted, and the key keeps the first", async () => {
    const key = `k-held-${grouped}`
    const first = keyed(key)
    expect(await recorded(first, grouped)).toBe(true)
    const second = keyed(key)
    expect(await recorded(second, grouped)).toBe(false)
    expect(await countOf(second.id)).toBe(0)
    expect((await keyRow(first.accountId, key))?.request_hash).toBe(first.requestHash)
  })

  it("takes over a key older than 24 hours", async () => {
    const key = `k-old-${grouped}`
    const old = keyed(key, NOW - 25 * 3_600_000)
    expect(await recorded(old, grouped, old.filledAt)).toBe(true)
    const again = keyed(key)
    expect(await recorded(again, grouped)).toBe(true)
    expect((await keyRow(again.accountId, key))?.request_hash).toBe(again.requestHash)
    expect(Number((await keyRow(again.accountId, key))?.created_at)).toBe(NOW)
    // The old order stays, with the key it was placed with; only the new one holds it.
    expect(await countOf(old.id)).toBe(1)
    expect(await placedWith(again.accountId, key)).toBe(2)
  })

  it("frees a key older than 24 hours only: one exactly 24 hours old is still held", async () => {
    const key = `k-edge-${grouped}`
    const edge = keyed(key, NOW - 24 * 3_600_000)
    expect(await recorded(edge, grouped, edge.filledAt)).toBe(true)
    expect(await recorded(keyed(key), grouped)).toBe(false)
    expect((await keyRow(edge.accountId, key))?.id).toBe(edge.id)
  })

  it("does not insert a bot fill already recorded", async () => {
    const fill = `bf-${grouped}-${process.pid}`
    const first = anOrder({ source: "bot", botId: "signal:rec", botName: "rec", botFillId: fill })
    expect(await recorded(first, grouped)).toBe(true)
    const again = anOrder({ source: "bot", botId: "signal:rec", botName: "rec", botFillId: fill })
    expect(await recorded(again, grouped)).toBe(false)
    expect(await countOf(again.id)).toBe(0)
  })
})

describe("PaperStore.record, two orders with one key in one group", () => {
  it("inserts the first and leaves the second out, without failing the others", async () => {
    const key = `k-twice-${process.pid}`
    const first = keyed(key)
    const second = keyed(key)
    const other = anOrder()
    const ids = await run(PaperStore.record([first, second, other], NOW))
    expect([ids.has(first.id), ids.has(second.id), ids.has(other.id)]).toEqual([true, false, true])
    expect((await keyRow(first.accountId, key))?.id).toBe(first.id)
  })
})

describe("PaperStore keys", () => {
  it("findKey answers a held key with its order, loadKeys lists the held keys newest first; purgeKeys frees the expired ones", async () => {
    const accountId = `acct_keys_${process.pid}`
    const fresh = anOrder({ accountId, idempotencyKey: "fresh", requestHash: "h-fresh", filledAt: NOW })
    const earlier = anOrder({ accountId, idempotencyKey: "earlier", requestHash: "h-earlier", filledAt: NOW - 60_000 })
    const old = anOrder({ accountId, idempotencyKey: "old", requestHash: "h-old", filledAt: NOW - 25 * 3_600_000 })
    expect((await run(PaperStore.record([earlier, fresh, old], NOW))).size).toBe(3)
    const found = await run(PaperStore.findKey(accountId, "fresh", NOW))
    expect(found).toEqual({
      requestHash: "h-fresh",
      response: {
        id: fresh.id, market: fresh.marketObject, outcome: "Yes", action: "buy", contracts: 10, avgPrice: 0.5, cost: 5,
        unfilledContracts: 0, filledAt: new Date(NOW).toISOString(),
      },
    })
    expect(await run(PaperStore.findKey(accountId, "old", NOW))).toBeNull()
    const loaded = (await run(PaperStore.loadKeys(NOW, 1_000_000))).filter((k) => k.accountId === accountId)
    expect(loaded.map((k) => [k.key, k.createdAt])).toEqual([["fresh", NOW], ["earlier", NOW - 60_000]])
    // The limit keeps the newest: at a later `now` nothing newer than these two has been recorded by this test.
    const newest = await run(PaperStore.loadKeys(NOW + 1, 1))
    expect(newest).toHaveLength(1)
    expect(newest[0]!.createdAt).toBeGreaterThanOrEqual(NOW)
    expect(await run(PaperStore.purgeKeys(NOW))).toBeGreaterThanOrEqual(1)
    expect(await keyRow(accountId, "old")).toBeUndefined()
    expect((await keyRow(accountId, "fresh"))?.id).toBe(fresh.id)
  })
})
