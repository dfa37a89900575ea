// PaperStore.record (record_paper_orders, migrations 12 and 16): what the group commit writes. Each rule is
// checked for an order alone and for the same order in a group with an unrelated one.
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
    source: "hand", botId: null, botName: null, response: null, botFillId: null, ...overrides,
  }
}
const keyed = (key: string, filledAt = NOW) => anOrder({ idempotencyKey: key, requestHash: `h-${key}-${n}`, response: { id: "x" }, filledAt })
const countOf = async (id: string) =>
  Number((await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ c: string }>`SELECT count(*) AS c FROM paper_orders WHERE id = ${id}`)))[0]?.c)
const keyRow = async (accountId: string, key: string) =>
  (await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ request_hash: string; created_at: string }>`SELECT request_hash, created_at FROM idempotency_keys WHERE account_id = ${accountId} AND key = ${key}`)))[0]

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
