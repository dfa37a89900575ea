// Migration 7: what the deliverer needs to know of a delivery besides "delivered or not" (migration 2):
// when it was given up (after its eighth failed attempt), and how its last attempt ended (status or
// error), for operators. The body becomes text: it is signed and sent byte for byte as built (jsonb
// would reorder its keys and respace it). A pending delivery is one neither delivered nor abandoned; `next_attempt_at`
// is also the lease of an attempt in flight (see store/webhook-deliveries.ts).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE webhook_deliveries
    ADD COLUMN abandoned_at timestamptz,
    ADD COLUMN last_status integer,
    ADD COLUMN last_error text,
    ALTER COLUMN body TYPE text USING body::text`
  yield* sql`DROP INDEX webhook_deliveries_due_idx`
  yield* sql`
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
    WHERE delivered_at IS NULL AND abandoned_at IS NULL`
})
