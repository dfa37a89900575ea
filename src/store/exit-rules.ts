// Exit rules in PostgreSQL (migration 0011). Plain functions over SqlClient, like ./market-alerts.ts.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type MarketObject, marketObjectInOrder } from "../domain/market-object.js"
import { jsonColumn, olderThan, underAccountLock } from "./sql-helpers.js"

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
  /** Trailing rules: the highest price of the side seen since armed (null until one is seen; always null without a trail). */
  readonly trailHigh: number | null
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
  /** A trailing rule's high when it ended (the stored one is up to HIGHS_EVERY behind); null: keep the stored. */
  readonly high?: number | null
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
  readonly trail_high: number | null
  readonly status: "armed" | "executed" | "cancelled"
  readonly created_at: number | string
  readonly done_at: number | string | null
  readonly reason: string | null
  readonly order_id: string | null
}

const COLUMNS = "id, account_id, market, market_object, outcome, side, stop_loss, take_profit, trailing_stop, trail_high, status, created_at, done_at, reason, order_id"

const ruleOf = (row: Row): StoredExitRule => ({
  id: row.id, accountId: row.account_id, market: row.market,
  marketObject: marketObjectInOrder(jsonColumn(row.market_object) as MarketObject),
  outcome: row.outcome, side: row.side === 1 ? 1 : 0, stopLoss: row.stop_loss, takeProfit: row.take_profit,
  trailingStop: row.trailing_stop, trailHigh: row.trail_high, status: row.status, createdAt: Number(row.created_at),
  doneAt: row.done_at === null ? null : Number(row.done_at), reason: row.reason, orderId: row.order_id,
})

const newId = (): string => "ex_" + randomBytes(8).toString("hex")

/**
 * Stores a new armed rule on the position, cancelling the armed rule it replaces (reason `replaced`) in the
 * same transaction; the new rule and the id of the replaced one. Committed before it returns. The account's
 * lock orders two sets at once (under READ COMMITTED neither would see the other's new rule, and the second
 * insert broke the one-armed-rule index: a 500 on PostgreSQL).
 */
const set = (
  rule: Omit<StoredExitRule, "id" | "status" | "doneAt" | "reason" | "orderId">,
): Effect.Effect<{ readonly rule: StoredExitRule; readonly replaced: string | null }, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* underAccountLock(sql, "exit_rules", rule.accountId, Effect.gen(function* () {
      const replaced = yield* sql<{ id: string }>`
        UPDATE exit_rules SET status = 'cancelled', done_at = ${rule.createdAt}, reason = 'replaced'
        WHERE account_id = ${rule.accountId} AND market = ${rule.market} AND outcome = ${rule.outcome} AND status = 'armed'
        RETURNING id`
      const rows = yield* sql<Row>`
        INSERT INTO exit_rules (id, account_id, market, market_object, outcome, side, stop_loss, take_profit, trailing_stop, trail_high, status, created_at)
        VALUES (${newId()}, ${rule.accountId}, ${rule.market}, ${JSON.stringify(rule.marketObject)}::jsonb, ${rule.outcome}, ${rule.side},
          ${rule.stopLoss}, ${rule.takeProfit}, ${rule.trailingStop}, ${rule.trailHigh}, 'armed', ${rule.createdAt})
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

/** Records how armed rules ended, a trailing one with its high then; a rule no longer armed is left as it is. */
const finish: (outcomes: ReadonlyArray<ExitOutcome>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (outcomes: ReadonlyArray<ExitOutcome>) {
    if (outcomes.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      UPDATE exit_rules r SET status = o.status, done_at = round(o.at)::bigint, reason = o.reason, order_id = o.order_id,
        trail_high = CASE WHEN r.trailing_stop IS NOT NULL AND o.high IS NOT NULL THEN o.high ELSE r.trail_high END
      FROM unnest(${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => o.status)}::text[], ${outcomes.map((o) => o.at)}::float8[],
        ${outcomes.map((o) => o.reason)}::text[], ${outcomes.map((o) => o.orderId)}::text[],
        ${outcomes.map((o) => o.high ?? null)}::float8[]) AS o (id, status, at, reason, order_id, high)
      WHERE r.id = o.id AND r.status = 'armed'`
  }, Effect.orDie, Effect.withSpan("ExitRules.finish"))

/** The Idempotency-Key of a rule's sale: one sale per rule, and the level that fired it, findable on the ledger. */
export const saleKeyOf = (ruleId: string, reason: string): string => `exit:${ruleId}:${reason}`

/**
 * How the armed rules whose sale is already on the ledger ended (a crash between the sale and `finish`):
 * `executed` at the sale's feed time, with the level its key names.
 */
const soldOnLedger: Effect.Effect<ReadonlyArray<ExitOutcome>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The literal LIKE lets the planner use the partial index paper_orders_exit_sale_idx (migration 0013).
  const rows = yield* sql<{ id: string; order_id: string; filled_at: number | string; key: string }>`
    SELECT r.id, o.id AS order_id, o.filled_at, o.idempotency_key AS key
    FROM exit_rules r JOIN paper_orders o ON o.account_id = r.account_id
      AND o.idempotency_key LIKE 'exit:%' AND split_part(o.idempotency_key, ':', 2) = r.id
    WHERE r.status = 'armed'`
  return rows.map((row): ExitOutcome => ({
    id: row.id, status: "executed", at: Number(row.filled_at), reason: row.key.split(":")[2] ?? "sold", orderId: row.order_id,
  }))
}).pipe(Effect.orDie, Effect.withSpan("ExitRules.soldOnLedger"))

/** Stores the trailing highs of armed rules (what the trail resumes from after a restart). */
const saveHighs = (highs: ReadonlyArray<{ readonly id: string; readonly high: number }>): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    if (highs.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      UPDATE exit_rules r SET trail_high = h.high
      FROM unnest(${highs.map((h) => h.id)}::text[], ${highs.map((h) => h.high)}::float8[]) AS h (id, high)
      WHERE r.id = h.id AND r.status = 'armed'`
  }).pipe(Effect.orDie, Effect.withSpan("ExitRules.saveHighs"))

/** The account's rules, newest first (armed ones only when `armedOnly`), at most `take`, strictly after `after`. */
const list = Effect.fnUntraced(function* (options: {
  readonly accountId: string
  readonly armedOnly: boolean
  readonly after: readonly [createdAt: number, id: string] | null
  readonly take: number
}) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Row>`
    SELECT ${sql.literal(COLUMNS)} FROM exit_rules
    WHERE account_id = ${options.accountId} AND (status = 'armed' OR ${!options.armedOnly})
      AND ${olderThan(sql, "created_at", "id", options.after)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${options.take}`
  return rows.map(ruleOf)
}, Effect.orDie, Effect.withSpan("ExitRules.list"))

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

export const ExitRulesStore = { set, armed, finish, list, cancel, soldOnLedger, saveHighs } as const
