// Migration 1: accounts, their API keys (only a sha256 of each key is stored) and server settings.
// Written for PostgreSQL 15 (CI) and PGlite (PostgreSQL 18); one statement per call.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL UNIQUE,
      subscription_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL,
      scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['read', 'write']::text[]),
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`
  yield* sql`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id)`
  yield* sql`
    CREATE TABLE settings (
      key text PRIMARY KEY,
      value text NOT NULL
    )`
})
