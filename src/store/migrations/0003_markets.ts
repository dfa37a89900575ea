// Migration 3: markets and their events, as the market registry persists them (src/store/markets.ts).
// One row per contract by ref `<venue>:<contract>`: its listing (title, category, kind, both sides'
// ids, names and labels, rule, series, paired markets on other venues when known) and its lifecycle
// (status, winner side, closed/settled times, last trade's Yes price and time). Times are feed time
// in epoch milliseconds, as everywhere in the domain. Events (multi-contract groups) by event ref.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE market_events (
      ref text PRIMARY KEY,
      venue text NOT NULL,
      title text,
      category text,
      kind text,
      series text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE markets (
      ref text PRIMARY KEY,
      venue text NOT NULL,
      contract text NOT NULL,
      event_ref text,
      title text NOT NULL,
      category text,
      kind text,
      sides jsonb NOT NULL,
      rule text,
      series text,
      opens_at bigint,
      closes_at bigint,
      fee_rate double precision,
      listed_at bigint NOT NULL,
      paired_refs text[] NOT NULL DEFAULT '{}',
      status text NOT NULL CHECK (status IN ('open', 'closed', 'settled', 'void')),
      winner text,
      closed_at bigint,
      settled_at bigint,
      last_price double precision,
      last_trade_at bigint,
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (venue, contract)
    )`
  yield* sql`CREATE INDEX markets_event_idx ON markets (event_ref) WHERE event_ref IS NOT NULL`
  yield* sql`CREATE INDEX markets_status_idx ON markets (status, venue)`
})
