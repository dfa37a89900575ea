// Migration 18 moves each key held in `idempotency_keys` onto the order that holds it (`held_key`), and
// drops that table: a key taken over after it expired stays with the newer order, an order whose key was
// never recorded holds none, and a replay after the upgrade answers the order that held the key.
import { Migrator, SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, expect, it } from "vitest"
import { migrations } from "../../src/store/migrations/index.js"
import { migrate } from "../../src/store/db.js"
import { PaperStore } from "../../src/store/paper.js"
import { UnmigratedTestDb } from "../support/db.js"

const db = ManagedRuntime.make(UnmigratedTestDb)
afterAll(() => db.dispose())
const run = <A>(e: Effect.Effect<A, unknown, SqlClient.SqlClient>) => db.runPromise(e as Effect.Effect<A, never, SqlClient.SqlClient>)

const before18 = Object.fromEntries(Object.entries(migrations).filter(([id]) => id < "0018"))
const DAY = 86_400_000
const NOW = 20 * DAY
const market = JSON.stringify({ ref: "venue_a:M", contract: "venue_a:M", title: "M", venue: "venue_a", category: null, kind: null })

it("moves every held key onto its order and drops idempotency_keys", async () => {
  await run(Migrator.make({})({ loader: Migrator.fromRecord(before18) }))
  await run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.gen(function* () {
    const order = (id: string, seq: number, key: string | null, at: number) => sql`
      INSERT INTO paper_orders (id, account_id, seq, idempotency_key, request_hash, market, market_object, outcome, action,
        contracts, avg_price, cost, fee, unfilled, filled_at, source)
      VALUES (${id}, 'acc', ${seq}, ${key}, ${key === null ? null : `h-${id}`}, 'venue_a:M', ${market}::jsonb, 'Yes', 'buy',
        2, 0.5, 1, 0, 0, ${at}, 'hand')`
    const keyOf = (key: string, id: string, at: number) => sql`
      INSERT INTO idempotency_keys (account_id, key, request_hash, status, response, created_at)
      VALUES ('acc', ${key}, ${`h-${id}`}, 'done', ${JSON.stringify({ id })}::jsonb, ${at})`
    yield* order("po_plain", 1, null, NOW)
    yield* order("po_held", 2, "k1", NOW)
    yield* keyOf("k1", "po_held", NOW)
    // k2 was used 3 days ago, then taken over yesterday: its row names the newer order.
    yield* order("po_k2_old", 3, "k2", NOW - 3 * DAY)
    yield* order("po_k2_new", 4, "k2", NOW - DAY + 1)
    yield* keyOf("k2", "po_k2_new", NOW - DAY + 1)
    // k3's row was purged: its order holds nothing.
    yield* order("po_k3", 5, "k3", NOW - 2 * DAY)
  })))
  await run(migrate)
  const rows = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; held_key: string | null }>`SELECT id, held_key FROM paper_orders ORDER BY seq`))
  expect(rows.map((r) => [r.id, r.held_key])).toEqual([
    ["po_plain", null], ["po_held", "k1"], ["po_k2_old", null], ["po_k2_new", "k2"], ["po_k3", null],
  ])
  const tables = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: string }>`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'idempotency_keys' AND table_schema = current_schema()`))
  expect(Number(tables[0]?.n)).toBe(0)
  expect((await run(PaperStore.findKey("acc", "k2", NOW)))?.response.id).toBe("po_k2_new")
  expect((await run(PaperStore.findKey("acc", "k1", NOW)))?.requestHash).toBe("h-po_held")
})
