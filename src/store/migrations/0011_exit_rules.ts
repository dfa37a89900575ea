// Migration 11: exit rules (POST /v1/exits, src/store/exit-rules.ts): one armed rule at most per hand-held
// position (account, contract, side); it sells the whole position once when a level is reached
// (`executed`, with the order) or ends `cancelled`. Times are epoch milliseconds (created: the Clock;
// done: feed time).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE exit_rules (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      market text NOT NULL,
      market_object jsonb NOT NULL,
      outcome text NOT NULL,
      side integer NOT NULL CHECK (side IN (0, 1)),
      stop_loss double precision,
      take_profit double precision,
      trailing_stop double precision,
      status text NOT NULL CHECK (status IN ('armed', 'executed', 'cancelled')),
      created_at bigint NOT NULL,
      done_at bigint,
      reason text,
      order_id text
    )`
  yield* sql`CREATE UNIQUE INDEX exit_rules_armed_once ON exit_rules (account_id, market, outcome) WHERE status = 'armed'`
  yield* sql`CREATE INDEX exit_rules_account_idx ON exit_rules (account_id, created_at DESC, id DESC)`
})
