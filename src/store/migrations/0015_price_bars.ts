// Migration 15: the one-minute price bars of every contract (Get Market's `history`), so a market's prices
// outlive its actor, a restart and the backfill's registry (src/store/price-bars.ts).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE price_bars (
      ref text NOT NULL,
      start bigint NOT NULL,
      open float8 NOT NULL,
      high float8 NOT NULL,
      low float8 NOT NULL,
      close float8 NOT NULL,
      usd float8 NOT NULL,
      contracts float8 NOT NULL,
      trades integer NOT NULL,
      PRIMARY KEY (ref, start)
    )`
  yield* sql`CREATE INDEX price_bars_start ON price_bars (start)`
})
