// Migration 13: what an exit rule needs to survive a restart (src/store/exit-rules.ts). `trail_high` is the
// highest price of the side seen since a trailing rule was armed, written by the watcher at most a second
// behind, so the trail resumes from it instead of starting over. The index finds an exit rule's sale on the
// ledger by its Idempotency-Key (`exit:<rule id>:<level>`), for the rules a crash left armed after they sold.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE exit_rules ADD COLUMN trail_high double precision`
  yield* sql`CREATE INDEX paper_orders_exit_sale_idx ON paper_orders (account_id, idempotency_key) WHERE idempotency_key LIKE 'exit:%'`
})
