// Migration 8: saved strategies (POST /v1/strategies, src/store/strategies.ts): a named v1 rule of an
// account, its criteria stored as decoded (defaults applied). Names are unique per account. `created_at`
// is epoch milliseconds from the service's Clock (a strategy's record going forward starts there).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE strategies (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      name text NOT NULL,
      criteria jsonb NOT NULL,
      stake double precision NOT NULL,
      created_at bigint NOT NULL,
      UNIQUE (account_id, name)
    )`
  yield* sql`CREATE INDEX strategies_account_idx ON strategies (account_id, created_at)`
})
