// Migration 19: leases of named roles among the nodes on one PostgreSQL. The "paper" lease says which node
// owns the paper accounts and bots (the actors that act on them: bots, exit rules, market alerts); the
// others forward those operations to it (src/nodes/paper-lease.ts). `epoch` grows at every change of
// holder, `url` is where the holder takes forwarded operations, `expires_at` is the database's own time.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE node_leases (
      name text PRIMARY KEY,
      node_id text NOT NULL,
      url text,
      epoch bigint NOT NULL,
      expires_at timestamptz NOT NULL
    )`
})
