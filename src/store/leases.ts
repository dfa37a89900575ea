// Leases of named roles among nodes on one PostgreSQL (migration 0019). Plain functions over SqlClient.
// Every time is the database's own `now()`, so nodes whose clocks disagree still agree on who holds a
// lease; a holder keeps it by renewing before `ttlMs` runs out, and anyone may take it once it has.
import { SqlClient } from "@effect/sql"
import { Data, Effect } from "effect"

export interface LeaseHolder {
  readonly nodeId: string
  /** Where the holder takes forwarded operations; null until its server listens. */
  readonly url: string | null
  readonly epoch: number
  /** False once `expires_at` has passed: nobody holds it until a node takes it. */
  readonly live: boolean
  /** How long until it expires, by the database's clock (0 once it has). */
  readonly remainingMs: number
}

/**
 * Takes `name` for `nodeId` when nobody holds it, it has expired, or `nodeId` held it already (a node
 * restarted under the same id takes its lease back at once). The epoch grows at each take; the epoch
 * taken, or null when another node holds it.
 */
const acquire = (input: { readonly name: string; readonly nodeId: string; readonly url: string | null; readonly ttlMs: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ epoch: number | string }>`
      INSERT INTO node_leases (name, node_id, url, epoch, expires_at)
      VALUES (${input.name}, ${input.nodeId}, ${input.url}, 1, now() + ${input.ttlMs} * interval '1 millisecond')
      ON CONFLICT (name) DO UPDATE
        SET node_id = EXCLUDED.node_id, url = EXCLUDED.url, epoch = node_leases.epoch + 1, expires_at = EXCLUDED.expires_at
        WHERE node_leases.expires_at <= now() OR node_leases.node_id = EXCLUDED.node_id
      RETURNING epoch`.pipe(Effect.map((rows) => (rows[0] === undefined ? null : Number(rows[0].epoch)))))

/**
 * Extends the lease held at `epoch` by `ttlMs` from now (and sets its url when given); false when this
 * node no longer holds it at that epoch (another took it after it expired).
 */
const renew = (input: { readonly name: string; readonly nodeId: string; readonly epoch: number; readonly ttlMs: number; readonly url?: string }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ epoch: number | string }>`
      UPDATE node_leases SET expires_at = now() + ${input.ttlMs} * interval '1 millisecond',
        url = ${input.url === undefined ? sql`url` : sql`${input.url}`}
      WHERE name = ${input.name} AND node_id = ${input.nodeId} AND epoch = ${input.epoch}
      RETURNING epoch`.pipe(Effect.map((rows) => rows.length > 0)))

/** The channel a release is told on (NOTIFY, its payload the lease's name): nodes that LISTEN take it at once. */
export const RELEASED_CHANNEL = "whalewatch_lease_released"

/**
 * Gives the lease up (it expires now), when still held at `epoch`, and tells RELEASED_CHANNEL (on commit):
 * another node may take it at once.
 */
const release = (input: { readonly name: string; readonly nodeId: string; readonly epoch: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      WITH released AS (
        UPDATE node_leases SET expires_at = now()
        WHERE name = ${input.name} AND node_id = ${input.nodeId} AND epoch = ${input.epoch}
        RETURNING name)
      SELECT pg_notify(${RELEASED_CHANNEL}, name) FROM released`.pipe(Effect.asVoid))

/** The lease is not this node's (any more): nothing was written. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly message: string }> {}

/** Why the store refused a write under `token`. */
export const lostMessage = (token: LeaseToken): string =>
  `the store says node ${token.nodeId} no longer holds the ${token.name} lease at epoch ${token.epoch}: another node took it over`

/** A lease as its holder holds it: what a write checks the store against (Leases.hold). */
export interface LeaseToken {
  readonly name: string
  readonly nodeId: string
  readonly epoch: number
  /**
   * How long the write's transaction may sit idle between its statements before the server ends it: a
   * writer frozen mid-transaction would otherwise hold the lease's row, and keep a takeover waiting, for
   * as long as it stays frozen.
   */
  readonly idleMs: number
}

/**
 * In a transaction: whether `token` still holds its lease (the row names its node at its epoch), and if
 * so, the row locked FOR SHARE until the transaction ends. Taking the lease over updates the row, so it
 * waits for the transaction, and once taken no transaction of the old epoch finds it: a write made after
 * this returned true commits before any new holder starts, or not at all. Expiry alone does not refuse:
 * until another node takes the lease, nobody else writes.
 */
const hold = (token: LeaseToken) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ held: unknown }>`
      SELECT set_config('idle_in_transaction_session_timeout', ${String(Math.max(1, Math.round(token.idleMs)))}, true) AS held
      FROM node_leases WHERE name = ${token.name} AND node_id = ${token.nodeId} AND epoch = ${token.epoch}
      FOR SHARE`.pipe(Effect.map((rows) => rows.length > 0)))

/**
 * The fence of one statement that writes, as SQL text to put before it: `WITH fence AS (…)`, the lease
 * row named by parameters $n, $n+1, $n+2 (name, node, epoch) locked FOR SHARE while the statement runs,
 * as `hold` does for a transaction. The statement writes only `WHERE EXISTS (SELECT 1 FROM fence)`.
 */
const fenceClause = (n: number): string =>
  `WITH fence AS (SELECT 1 FROM node_leases WHERE name = $${n} AND node_id = $${n + 1} AND epoch = $${n + 2} FOR SHARE)`

/** Who holds `name` (live or expired), or null when nobody ever took it. */
const holder = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ node_id: string; url: string | null; epoch: number | string; live: boolean; remaining_ms: number | string }>`
      SELECT node_id, url, epoch, expires_at > now() AS live,
        greatest(0, extract(epoch FROM expires_at - now()) * 1000)::float8 AS remaining_ms
      FROM node_leases WHERE name = ${name}`.pipe(
      Effect.map((rows): LeaseHolder | null => {
        const row = rows[0]
        return row === undefined
          ? null
          : { nodeId: row.node_id, url: row.url, epoch: Number(row.epoch), live: row.live, remainingMs: Number(row.remaining_ms) }
      }),
    ))

export const Leases = { acquire, renew, release, holder, hold, fenceClause }
