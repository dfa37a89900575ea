// Migration 18: an idempotency key is held on its order's row (`paper_orders.held_key`, unique per account
// while set) instead of in `idempotency_keys`, so recording a paper order is one plain INSERT of one row
// (src/store/paper.ts) rather than a PL/pgSQL function writing two tables, and a key's replay is built
// from its order (the response was always that order). `idempotency_key` stays the key the order was
// placed with, for good; `held_key` is that key while it is held (24 hours): the hourly purge and an
// order taking over an expired key clear it. Keys held now move over with their orders (the stored
// response names the order that holds the key); `record_paper_orders` (migrations 12, 16) and
// `idempotency_keys` go.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE paper_orders ADD COLUMN held_key text`
  yield* sql`
    UPDATE paper_orders o SET held_key = k.key
    FROM idempotency_keys k
    WHERE k.status = 'done' AND k.account_id = o.account_id AND k.key = o.idempotency_key AND k.response ->> 'id' = o.id`
  yield* sql`CREATE UNIQUE INDEX paper_orders_held_key ON paper_orders (account_id, held_key) WHERE held_key IS NOT NULL`
  yield* sql.unsafe(`DROP FUNCTION record_paper_orders(text[], text[], float8[], text[], text[], text[], text[], text[], text[],
    float8[], float8[], float8[], float8[], float8[], float8[], float8[], text[], text[], text[], text[], text[], bigint)`)
  yield* sql`DROP TABLE idempotency_keys`
})
