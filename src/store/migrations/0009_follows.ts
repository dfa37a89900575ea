// Migration 9: follows (POST /v1/traders/{platform}/{traderId}/follow, src/store/follows.ts): the traders an
// account follows by hand. A follower gets `trade.followed` webhook deliveries of the trader's trades, as
// an account with a trader bot on that trader does. `created_at` is epoch milliseconds from the Clock.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE follows (
      account_id text NOT NULL,
      trader text NOT NULL,
      created_at bigint NOT NULL,
      PRIMARY KEY (account_id, trader)
    )`
  yield* sql`CREATE INDEX follows_trader_idx ON follows (trader)`
})
