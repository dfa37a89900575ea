// Migration 2: webhook endpoints and their deliveries. `accounts.webhook_endpoint_count` is how many
// endpoints the account has: the repository changes it in the same statement as every insert and delete,
// which is how "at most 5" holds under concurrent requests (see store/webhooks.ts). A delivery is pending
// while `delivered_at` is null; deleting an endpoint cascades to its deliveries, so "removes its pending
// deliveries" holds by construction.
// The secret is stored as issued: signing needs the key itself, so it cannot be hashed like an API key.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      url text NOT NULL,
      events text[] NOT NULL,
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    ALTER TABLE accounts
    ADD COLUMN webhook_endpoint_count integer NOT NULL DEFAULT 0 CHECK (webhook_endpoint_count >= 0)`
  yield* sql`CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at, id)`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      body jsonb NOT NULL,
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    )`
  yield* sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id)`
  yield* sql`
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
    WHERE delivered_at IS NULL`
})
