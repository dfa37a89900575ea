// Migration 10: market alerts (POST /v1/market-alerts, src/store/market-alerts.ts). An alert watches one
// side (`side` 0 or 1, named `outcome`) of one contract and fires once at the first price at or beyond
// `above` / `below`; `armed` until it fires (`triggered`, with the feed time and price that fired it) or
// its market ends first (`ended`). Times are epoch milliseconds (created: the Clock; fired, ended: feed time).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE market_alerts (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      market text NOT NULL,
      market_object jsonb NOT NULL,
      outcome text NOT NULL,
      side integer NOT NULL CHECK (side IN (0, 1)),
      above double precision,
      below double precision,
      note text,
      status text NOT NULL CHECK (status IN ('armed', 'triggered', 'ended')),
      created_at bigint NOT NULL,
      triggered_at bigint,
      trigger_price double precision,
      ended_at bigint
    )`
  yield* sql`CREATE INDEX market_alerts_account_idx ON market_alerts (account_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX market_alerts_armed_idx ON market_alerts (market) WHERE status = 'armed'`
  yield* sql`CREATE INDEX market_alerts_fired_idx ON market_alerts (account_id, triggered_at DESC) WHERE status = 'triggered'`
})
