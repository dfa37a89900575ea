// What the stores share: two statement shapes and the reading of jsonb columns.
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Runs `effect` in one transaction holding the advisory lock of (`scope`, account), so an account's
 * concurrent writes of that scope queue behind each other: a count-then-insert under it cannot let two
 * requests pass a per-account limit together.
 */
export const underAccountLock = <A, E, R>(sql: SqlClient.SqlClient, scope: string, accountId: string, effect: Effect.Effect<A, E, R>) =>
  sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(hashtext(${`${scope}:${accountId}`}))`, effect))

/**
 * Keyset paging newest first, ordered by (`time` DESC, `id` DESC): the rows strictly after the last row
 * of the previous page (`after` = its [time, id]); every row when `after` is null. Column names are
 * trusted text (qualified names allowed).
 */
export const olderThan = (sql: SqlClient.SqlClient, time: string, id: string, after: readonly [number, string] | null) =>
  after === null
    ? sql`TRUE`
    : sql`(${sql.literal(time)} < ${after[0]} OR (${sql.literal(time)} = ${after[0]} AND ${sql.literal(id)} < ${after[1]}))`

/** A jsonb column's value: pg parses jsonb itself, but a value read as text (PGlite over some paths) is JSON text. */
export const jsonColumn = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)
