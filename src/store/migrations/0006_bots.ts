// Migration 6: paper bots. `bots` holds each bot's identity, the columns listings and limits need
// (account, kind, status, the trader a trader bot copies) and its actor's persisted snapshot (the
// source of truth a restart restores). `bot_trades` mirrors every bot trade as a row (upserted by id
// as it opens and closes) for queries outside the actors. Times of trades are feed time in epoch ms.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE bots (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('trader', 'signal', 'market')),
      name text NOT NULL,
      mode text NOT NULL CHECK (mode IN ('paper', 'live')),
      status text NOT NULL CHECK (status IN ('running', 'paused', 'ended')),
      trader text,
      settings jsonb NOT NULL,
      snapshot jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX bots_account_idx ON bots (account_id, kind, status)`
  yield* sql`CREATE UNIQUE INDEX bots_trader_once ON bots (account_id, trader) WHERE kind = 'trader'`
  yield* sql`
    CREATE TABLE bot_trades (
      id text PRIMARY KEY,
      bot_id text NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      market text NOT NULL,
      contract text NOT NULL,
      title text NOT NULL,
      venue text NOT NULL,
      outcome text NOT NULL,
      contracts double precision NOT NULL,
      cost double precision NOT NULL,
      fee double precision NOT NULL,
      entry_price double precision NOT NULL,
      exit_price double precision,
      profit double precision,
      status text NOT NULL CHECK (status IN ('open', 'closed')),
      result text CHECK (result IN ('win', 'loss', 'void')),
      opened_at_ms bigint NOT NULL,
      closed_at_ms bigint
    )`
  yield* sql`CREATE INDEX bot_trades_bot_idx ON bot_trades (bot_id, seq DESC)`
  yield* sql`CREATE INDEX bot_trades_open_idx ON bot_trades (contract) WHERE status = 'open'`
})
