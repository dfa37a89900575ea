// Migration 14: an account has at most one trader bot on a trader that has not ended (was: ever). An ended
// bot stays listed, but a new trader bot on the same trader may be created (src/store/bots.ts `insert`).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX bots_trader_once`
  yield* sql`CREATE UNIQUE INDEX bots_trader_once ON bots (account_id, trader) WHERE kind = 'trader' AND status <> 'ended'`
})
