// What the stores share: two statement shapes, rows as one JSON parameter, and the reading of jsonb columns.
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

/**
 * Rows as ONE json parameter, for `FROM json_to_recordset($1::json) AS t (name type, …)`: the ingest
 * flushes (markets, price bars, intel) write hundreds of rows a statement, and pg encodes a text-array
 * parameter element by element in JavaScript (two regex replaces per string), which cost the main thread
 * about 16 ms per flush on this machine; one native JSON.stringify of the same rows costs about 1 ms.
 * A jsonb column takes the value itself (an object, not its JSON text). A float8 that is NaN or infinite
 * would become null: no stored figure is either.
 * Text PostgreSQL cannot hold is mended rather than failing the whole flush (a failed flush is retried
 * with the same rows): a lone surrogate becomes U+FFFD (what pg's UTF-8 encoding of a text array did) and
 * a NUL is dropped (PostgreSQL text has none). JSON.stringify writes both as `\u` escapes, so that search
 * over the result finds every case (and the rare false one, a backslash before a `u`, costs only the mend).
 */
export const jsonRecords = (rows: ReadonlyArray<object>): string => {
  const text = JSON.stringify(rows)
  return text.includes("\\u") ? JSON.stringify(rows, mendText) : text
}

const mendText = (_key: string, value: unknown): unknown =>
  typeof value === "string" ? value.toWellFormed().replaceAll("\u0000", "") : value
