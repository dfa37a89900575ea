// Migration 5: paper trading (src/store/paper.ts). `paper_orders` is the account's ledger: every
// recorded fill, by hand or by bot, in the account's own sequence; the PaperAccount actors are rebuilt
// from it (plus the markets' settlements) on start, so no account snapshot is stored. Times are epoch
// milliseconds from the service's Clock. `idempotency_keys` keeps each Idempotency-Key's first result
// for 24 hours, one row per (account, key); a row is written only together with its order (see
// src/store/paper.ts for why `in_progress` is never stored by this node).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE paper_orders (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      seq bigint NOT NULL,
      idempotency_key text,
      request_hash text,
      market text NOT NULL,
      market_object jsonb NOT NULL,
      outcome text NOT NULL,
      action text NOT NULL CHECK (action IN ('buy', 'sell')),
      contracts double precision NOT NULL,
      avg_price double precision NOT NULL,
      cost double precision NOT NULL,
      fee double precision NOT NULL,
      unfilled double precision NOT NULL,
      filled_at bigint NOT NULL,
      profit double precision,
      source text NOT NULL CHECK (source IN ('hand', 'bot')),
      bot_id text,
      bot_name text,
      UNIQUE (account_id, seq)
    )`
  yield* sql`CREATE INDEX paper_orders_hand_idx ON paper_orders (account_id, filled_at DESC, id DESC) WHERE source = 'hand'`
  yield* sql`
    CREATE TABLE idempotency_keys (
      account_id text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      status text NOT NULL CHECK (status IN ('in_progress', 'done')),
      response jsonb,
      created_at bigint NOT NULL,
      PRIMARY KEY (account_id, key)
    )`
  yield* sql`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`
})
