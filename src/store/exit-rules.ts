// Exit rules in PostgreSQL (migration 0011). Plain functions over SqlClient, like ./market-alerts.ts.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { MarketObject } from "../domain/market-object.js"
import { jsonColumn, olderThan } from "./sql-helpers.js"

export interface StoredExitRule {
  readonly id: string
  readonly accountId: string
  /** Contract ref. */
  readonly market: string
  readonly marketObject: MarketObject
  readonly outcome: string
  readonly side: 0 | 1
  readonly stopLoss: number | null
  readonly takeProfit: number | null
  readonly trailingStop: number | null
  readonly status: "armed" | "executed" | "cancelled"
  readonly createdAt: number
  readonly doneAt: number | null
  readonly reason: string | null
  readonly orderId: string | null
}

/** How an armed rule ended. */
export interface ExitOutcome {
  readonly id: string
  readonly status: "executed" | "cancelled"
  readonly at: number
  readonly reason: string
  readonly orderId: string | null
}

interface Row {
  readonly id: string
  readonly account_id: string
  readonly market: string
  readonly market_object: unknown
  readonly outcome: string
  readonly side: number
  readonly stop_loss: number | null
  readonly take_profit: number | null
  readonly trailing_stop: number | null
  readonly status: "armed" | "executed" | "cancelled"
  readonly created_at: number | string
  readonly done_at: number | string | null
  readonly reason: string | null
  readonly order_id: string | null
}

const COLUMNS = "id, account_id, market, market_object, outcome, side, stop_loss, take_profit, trailing_stop, status, created_at, done_at, reason, order_id"

const ruleOf = (row: Row): StoredExitRule => ({
  id: row.id, accountId: row.account_id, market: row.market,
  marketObject: jsonColumn(row.market_object) as MarketObject,
  outcome: row.outcome, side: row.side === 1 ? 1 : 0, stopLoss: row.stop_loss, takeProfit: row.take_profit,
  trailingStop: row.trailing_stop, status: row.status, createdAt: Number(row.created_at),
  doneAt: row.done_at === null ? null : Number(row.done_at), reason: row.reason, orderId: row.order_id,
})

const newId = (): string => "ex_" + randomBytes(8).toString("hex")

/**
 * Stores a new armed rule on the position, cancelling the armed rule it replaces (reason `replaced`) in the
 * same transaction; the new rule and the id of the replaced one. Committed before it returns.
 */
const set = (
  rule: Omit<StoredExitRule, "id" | "status" | "doneAt" | "reason" | "orderId">,
): Effect.Effect<{ readonly rule: StoredExitRule; readonly replaced: string | null }, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function* () {
      const replaced = yield* sql<{ id: string }>`
        UPDATE exit_rules SET status = 'cancelled', done_at = ${rule.createdAt}, reason = 'replaced'
        WHERE account_id = ${rule.accountId} AND market = ${rule.market} AND outcome = ${rule.outcome} AND status = 'armed'
        RETURNING id`
      const rows = yield* sql<Row>`
        INSERT INTO exit_rules (id, account_id, market, market_object, outcome, side, stop_loss, take_profit, trailing_stop, status, created_at)
        VALUES (${newId()}, ${rule.accountId}, ${rule.market}, ${JSON.stringify(rule.marketObject)}::jsonb, ${rule.outcome}, ${rule.side},
          ${rule.stopLoss}, ${rule.takeProfit}, ${rule.trailingStop}, 'armed', ${rule.createdAt})
        RETURNING ${sql.literal(COLUMNS)}`
      return { rule: ruleOf(rows[0] as Row), replaced: replaced[0]?.id ?? null }
    }))
  }).pipe(Effect.orDie, Effect.withSpan("ExitRules.set"))

/** Every armed rule (what the watcher is rebuilt from). */
const armed: Effect.Effect<ReadonlyArray<StoredExitRule>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM exit_rules WHERE status = 'armed'`
  return rows.map(ruleOf)
}).pipe(Effect.orDie, Effect.withSpan("ExitRules.armed"))

/** Records how armed rules ended; a rule no longer armed is left as it is. */
const finish = (outcomes: ReadonlyArray<ExitOutcome>): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    if (outcomes.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      UPDATE exit_rules r SET status = o.status, done_at = round(o.at)::bigint, reason = o.reason, order_id = o.order_id
      FROM unnest(${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => o.status)}::text[], ${outcomes.map((o) => o.at)}::float8[],
        ${outcomes.map((o) => o.reason)}::text[], ${outcomes.map((o) => o.orderId)}::text[]) AS o (id, status, at, reason, order_id)
      WHERE r.id = o.id AND r.status = 'armed'`
  }).pipe(Effect.orDie, Effect.withSpan("ExitRules.finish"))

/** The account's rules, newest first (armed ones only when `armedOnly`), at most `take`, strictly after `after`. */
const list = (options: {
  readonly accountId: string
  readonly armedOnly: boolean
  readonly after: readonly [createdAt: number, id: string] | null
  readonly take: number
}): Effect.Effect<ReadonlyArray<StoredExitRule>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT ${sql.literal(COLUMNS)} FROM exit_rules
      WHERE account_id = ${options.accountId} AND (status = 'armed' OR ${!options.armedOnly})
        AND ${olderThan(sql, "created_at", "id", options.after)}
      ORDER BY created_at DESC, id DESC
      LIMIT ${options.take}`
    return rows.map(ruleOf)
  }).pipe(Effect.orDie, Effect.withSpan("ExitRules.list"))

/** Cancels the account's armed rule `id` (reason `deleted`) at `at`; the rule as it was, or null when it has no armed rule with that id. */
const cancel = (accountId: string, id: string, at: number): Effect.Effect<StoredExitRule | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      UPDATE exit_rules SET status = 'cancelled', done_at = ${at}, reason = 'deleted'
      WHERE id = ${id} AND account_id = ${accountId} AND status = 'armed'
      RETURNING ${sql.literal(COLUMNS)}`
    return rows[0] === undefined ? null : ruleOf(rows[0])
  }).pipe(Effect.orDie, Effect.withSpan("ExitRules.cancel"))

export const ExitRulesStore = { set, armed, finish, list, cancel } as const
