// Saved strategies in PostgreSQL (migration 0008): save under the account's limit and unique names, list,
// read one and remove, each scoped to its account. Plain functions over SqlClient, like ./webhooks.ts.
// Ids are drawn here, at the edge, from node:crypto.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { jsonColumn, underAccountLock } from "./sql-helpers.js"

export interface StoredStrategy {
  readonly id: string
  readonly name: string
  /** As decoded when saved (the V1EventCriteria type). */
  readonly criteria: unknown
  readonly stake: number
  /** Epoch ms. */
  readonly createdAt: number
}

export type SaveOutcome =
  | { readonly _tag: "Saved"; readonly strategy: StoredStrategy }
  | { readonly _tag: "Limit" }
  | { readonly _tag: "Duplicate" }

interface Row {
  readonly id: string
  readonly name: string
  readonly criteria: unknown
  readonly stake: number
  readonly created_at: number | string
}

const fromRow = (row: Row): StoredStrategy => ({
  id: row.id, name: row.name, criteria: jsonColumn(row.criteria),
  stake: row.stake, createdAt: Number(row.created_at),
})

const newId = (): string => "st_" + randomBytes(8).toString("hex")

/**
 * Saves a strategy unless the account already has `max` or one with that name. The count, the name check
 * and the insert run in one transaction under an advisory lock per account, so two concurrent saves can
 * never pass the limit together. Committed before it returns.
 */
const save = (input: {
  readonly accountId: string
  readonly name: string
  readonly criteria: unknown
  readonly stake: number
  readonly createdAt: number
  readonly max: number
}): Effect.Effect<SaveOutcome, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* underAccountLock(sql, "strategies", input.accountId, Effect.gen(function* () {
      const held = yield* sql<{ n: number; named: number }>`
        SELECT count(*)::int AS n, count(*) FILTER (WHERE name = ${input.name})::int AS named
        FROM strategies WHERE account_id = ${input.accountId}`
      if ((held[0]?.named ?? 0) > 0) return { _tag: "Duplicate" } as const
      if ((held[0]?.n ?? 0) >= input.max) return { _tag: "Limit" } as const
      const rows = yield* sql<Row>`
        INSERT INTO strategies (id, account_id, name, criteria, stake, created_at)
        VALUES (${newId()}, ${input.accountId}, ${input.name}, ${JSON.stringify(input.criteria)}::jsonb, ${input.stake},
          ${input.createdAt})
        RETURNING id, name, criteria, stake, created_at`
      return { _tag: "Saved", strategy: fromRow(rows[0] as Row) } as const
    }))
  }).pipe(Effect.orDie, Effect.withSpan("Strategies.save"))

/** The account's strategies, oldest first. */
const list = (accountId: string): Effect.Effect<ReadonlyArray<StoredStrategy>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT id, name, criteria, stake, created_at FROM strategies
      WHERE account_id = ${accountId} ORDER BY created_at, id`
    return rows.map(fromRow)
  }).pipe(Effect.orDie, Effect.withSpan("Strategies.list"))

/** The account's strategy `id`; null when it has none with that id (another account's included). */
const get = (accountId: string, id: string): Effect.Effect<StoredStrategy | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT id, name, criteria, stake, created_at FROM strategies WHERE id = ${id} AND account_id = ${accountId}`
    return rows[0] === undefined ? null : fromRow(rows[0])
  }).pipe(Effect.orDie, Effect.withSpan("Strategies.get"))

/** Removes the account's strategy `id`; false when it has none with that id. */
const remove = (accountId: string, id: string): Effect.Effect<boolean, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`DELETE FROM strategies WHERE id = ${id} AND account_id = ${accountId} RETURNING id`
    return rows.length > 0
  }).pipe(Effect.orDie, Effect.withSpan("Strategies.remove"))

export const Strategies = { save, list, get, remove } as const
