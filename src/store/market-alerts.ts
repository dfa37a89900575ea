// Market alerts in PostgreSQL (migration 0010) and the alerts inbox read over them and the bots' trades.
// Plain functions over SqlClient, like ./webhooks.ts. Ids are drawn here, at the edge, from node:crypto.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { MarketObject } from "../domain/market-object.js"
import { jsonColumn, olderThan, underAccountLock } from "./sql-helpers.js"

export interface StoredAlert {
  readonly id: string
  readonly accountId: string
  /** Contract ref. */
  readonly market: string
  readonly marketObject: MarketObject
  readonly outcome: string
  readonly side: 0 | 1
  readonly above: number | null
  readonly below: number | null
  readonly note: string | null
  readonly status: "armed" | "triggered" | "ended"
  readonly createdAt: number
  readonly triggeredAt: number | null
  readonly triggerPrice: number | null
  readonly endedAt: number | null
}

/** How an armed alert stopped: fired at a price, or its market ended first. */
export type AlertOutcome =
  | { readonly _tag: "Triggered"; readonly id: string; readonly at: number; readonly price: number }
  | { readonly _tag: "Ended"; readonly id: string; readonly at: number }

interface Row {
  readonly id: string
  readonly account_id: string
  readonly market: string
  readonly market_object: unknown
  readonly outcome: string
  readonly side: number
  readonly above: number | null
  readonly below: number | null
  readonly note: string | null
  readonly status: "armed" | "triggered" | "ended"
  readonly created_at: number | string
  readonly triggered_at: number | string | null
  readonly trigger_price: number | null
  readonly ended_at: number | string | null
}

const COLUMNS = "id, account_id, market, market_object, outcome, side, above, below, note, status, created_at, triggered_at, trigger_price, ended_at"

const ms = (value: number | string | null): number | null => (value === null ? null : Number(value))

export const alertOfRow = (row: Row): StoredAlert => ({
  id: row.id, accountId: row.account_id, market: row.market, marketObject: jsonColumn(row.market_object) as MarketObject,
  outcome: row.outcome, side: row.side === 1 ? 1 : 0, above: row.above, below: row.below, note: row.note, status: row.status,
  createdAt: Number(row.created_at), triggeredAt: ms(row.triggered_at), triggerPrice: row.trigger_price, endedAt: ms(row.ended_at),
})

const newId = (): string => "ma_" + randomBytes(8).toString("hex")

/**
 * Stores a new armed alert unless the account has `max` armed already (under an advisory lock per
 * account, so concurrent requests cannot pass it together); null when it is full. Committed before it returns.
 */
const insert = (
  alert: Omit<StoredAlert, "id" | "status" | "triggeredAt" | "triggerPrice" | "endedAt">,
  max: number,
): Effect.Effect<StoredAlert | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* underAccountLock(sql, "market_alerts", alert.accountId, Effect.gen(function* () {
      const held = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM market_alerts WHERE account_id = ${alert.accountId} AND status = 'armed'`
      if ((held[0]?.n ?? 0) >= max) return null
      const rows = yield* sql<Row>`
        INSERT INTO market_alerts (id, account_id, market, market_object, outcome, side, above, below, note, status, created_at)
        VALUES (${newId()}, ${alert.accountId}, ${alert.market}, ${JSON.stringify(alert.marketObject)}::jsonb, ${alert.outcome},
          ${alert.side}, ${alert.above}, ${alert.below}, ${alert.note}, 'armed', ${alert.createdAt})
        RETURNING ${sql.literal(COLUMNS)}`
      return alertOfRow(rows[0] as Row)
    }))
  }).pipe(Effect.orDie, Effect.withSpan("MarketAlerts.insert"))

/** Every armed alert (what the watcher is rebuilt from). */
const armed: Effect.Effect<ReadonlyArray<StoredAlert>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM market_alerts WHERE status = 'armed'`
  return rows.map(alertOfRow)
}).pipe(Effect.orDie, Effect.withSpan("MarketAlerts.armed"))

/** Records how armed alerts stopped, in one statement; an alert no longer armed is left as it is. The ids changed. */
const record: (outcomes: ReadonlyArray<AlertOutcome>) => Effect.Effect<ReadonlyArray<string>, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (outcomes: ReadonlyArray<AlertOutcome>) {
    if (outcomes.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`
      UPDATE market_alerts a SET
        status = o.status,
        triggered_at = CASE WHEN o.status = 'triggered' THEN round(o.at)::bigint END,
        trigger_price = CASE WHEN o.status = 'triggered' THEN o.price END,
        ended_at = CASE WHEN o.status = 'ended' THEN round(o.at)::bigint END
      FROM unnest(${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => (o._tag === "Triggered" ? "triggered" : "ended"))}::text[],
        ${outcomes.map((o) => o.at)}::float8[], ${outcomes.map((o) => (o._tag === "Triggered" ? o.price : null))}::float8[])
        AS o (id, status, at, price)
      WHERE a.id = o.id AND a.status = 'armed'
      RETURNING a.id`
    return rows.map((r) => r.id)
  }, Effect.orDie, Effect.withSpan("MarketAlerts.record"))

/** The alerts `ids` as stored. */
const byIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StoredAlert>, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (ids: ReadonlyArray<string>) {
    if (ids.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM market_alerts WHERE id = ANY (${[...ids]}::text[])`
    return rows.map(alertOfRow)
  }, Effect.orDie, Effect.withSpan("MarketAlerts.byIds"))

/**
 * The account's alerts, newest first, strictly after the key `after`, optionally of one market and status.
 * `market` matches the alert's contract or its market object's ref (the event's, as the shared `market`
 * filter of src/operations/filters.ts reads it), so an event ref takes the alerts of all its contracts.
 */
const list = (options: {
  readonly accountId: string
  readonly market: string | null
  readonly status: "armed" | "triggered" | "ended" | null
  readonly after: readonly [createdAt: number, id: string] | null
  readonly take: number
}): Effect.Effect<ReadonlyArray<StoredAlert>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT ${sql.literal(COLUMNS)} FROM market_alerts
      WHERE account_id = ${options.accountId}
        AND (${options.market}::text IS NULL OR market = ${options.market} OR market_object->>'ref' = ${options.market})
        AND (${options.status}::text IS NULL OR status = ${options.status})
        AND ${olderThan(sql, "created_at", "id", options.after)}
      ORDER BY created_at DESC, id DESC
      LIMIT ${options.take}`
    return rows.map(alertOfRow)
  }).pipe(Effect.orDie, Effect.withSpan("MarketAlerts.list"))

/** Removes the account's alert `id`; the removed alert, or null when it has none with that id. */
const remove = (accountId: string, id: string): Effect.Effect<StoredAlert | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      DELETE FROM market_alerts WHERE id = ${id} AND account_id = ${accountId} RETURNING ${sql.literal(COLUMNS)}`
    return rows[0] === undefined ? null : alertOfRow(rows[0])
  }).pipe(Effect.orDie, Effect.withSpan("MarketAlerts.remove"))

/** A notice of the inbox as read: a fired market alert, or a bot trade opened or closed. */
export type StoredNotice =
  | { readonly _tag: "Alert"; readonly key: string; readonly at: number; readonly alert: StoredAlert }
  | {
    readonly _tag: "BotTrade"; readonly key: string; readonly at: number; readonly bot: { readonly id: string; readonly name: string }
    readonly event: "open" | "closed"; readonly trade: BotTradeNotice
  }

export interface BotTradeNotice {
  readonly id: string
  readonly market: string
  readonly contract: string
  readonly title: string
  readonly venue: string
  readonly outcome: string
  readonly contracts: number
  readonly cost: number
  readonly entryPrice: number
  readonly exitPrice: number | null
  readonly profit: number | null
  readonly result: "win" | "loss" | "void" | null
  readonly openedAt: number
  readonly closedAt: number | null
}

interface NoticeRow extends Partial<Row> {
  readonly key: string
  readonly at: number | string
  readonly kind: "alert" | "open" | "closed"
  readonly bot_id: string | null
  readonly bot_name: string | null
  readonly t_id: string | null
  readonly t_market: string | null
  readonly t_contract: string | null
  readonly t_title: string | null
  readonly t_venue: string | null
  readonly t_outcome: string | null
  readonly t_contracts: number | null
  readonly t_cost: number | null
  readonly t_entry_price: number | null
  readonly t_exit_price: number | null
  readonly t_profit: number | null
  readonly t_result: "win" | "loss" | "void" | null
  readonly t_opened_at: number | string | null
  readonly t_closed_at: number | string | null
}

/**
 * The account's inbox, newest first, strictly after `after` and at or after `since`: its fired market
 * alerts, and the trades its bots with `alerts` on opened and closed (read from `bot_trades`, so a
 * notice costs no write on the bots' path).
 */
const inbox = (options: {
  readonly accountId: string
  readonly since: number | null
  readonly after: readonly [at: number, key: string] | null
  readonly take: number
}): Effect.Effect<ReadonlyArray<StoredNotice>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const since = options.since ?? -1
    const trades = (kind: "open" | "closed") => sql`
      SELECT 'bot.trade:' || t.id || ':' || ${kind} AS key, ${kind === "open" ? sql`t.opened_at_ms` : sql`t.closed_at_ms`} AS at,
        ${kind}::text AS kind, b.id AS bot_id, b.name AS bot_name, t.id AS t_id, t.market AS t_market, t.contract AS t_contract,
        t.title AS t_title, t.venue AS t_venue, t.outcome AS t_outcome, t.contracts AS t_contracts, t.cost AS t_cost,
        t.entry_price AS t_entry_price, t.exit_price AS t_exit_price, t.profit AS t_profit, t.result AS t_result,
        t.opened_at_ms AS t_opened_at, t.closed_at_ms AS t_closed_at,
        NULL::text AS id, NULL::text AS account_id, NULL::text AS market, NULL::jsonb AS market_object, NULL::text AS outcome,
        NULL::integer AS side, NULL::float8 AS above, NULL::float8 AS below, NULL::text AS note, NULL::text AS status,
        NULL::bigint AS created_at, NULL::bigint AS triggered_at, NULL::float8 AS trigger_price, NULL::bigint AS ended_at
      FROM bot_trades t JOIN bots b ON b.id = t.bot_id
      WHERE b.account_id = ${options.accountId} AND b.settings->>'alerts' = 'true'
        ${kind === "closed" ? sql`AND t.status = 'closed'` : sql``}`
    const rows = yield* sql<NoticeRow>`
      SELECT * FROM (
        SELECT 'market.alert:' || a.id AS key, a.triggered_at AS at, 'alert'::text AS kind, NULL::text AS bot_id, NULL::text AS bot_name,
          NULL::text AS t_id, NULL::text AS t_market, NULL::text AS t_contract, NULL::text AS t_title, NULL::text AS t_venue,
          NULL::text AS t_outcome, NULL::float8 AS t_contracts, NULL::float8 AS t_cost, NULL::float8 AS t_entry_price,
          NULL::float8 AS t_exit_price, NULL::float8 AS t_profit, NULL::text AS t_result, NULL::bigint AS t_opened_at,
          NULL::bigint AS t_closed_at, ${sql.literal(COLUMNS.split(", ").map((c) => `a.${c}`).join(", "))}
        FROM market_alerts a WHERE a.account_id = ${options.accountId} AND a.status = 'triggered'
        UNION ALL ${trades("open")}
        UNION ALL ${trades("closed")}
      ) n
      WHERE n.at >= ${since} AND ${olderThan(sql, "n.at", "n.key", options.after)}
      ORDER BY n.at DESC, n.key DESC
      LIMIT ${options.take}`
    return rows.map((r): StoredNotice => {
      if (r.kind === "alert") return { _tag: "Alert", key: r.key, at: Number(r.at), alert: alertOfRow(r as unknown as Row) }
      return {
        _tag: "BotTrade", key: r.key, at: Number(r.at), bot: { id: r.bot_id ?? "", name: r.bot_name ?? "" }, event: r.kind,
        trade: {
          id: r.t_id ?? "", market: r.t_market ?? "", contract: r.t_contract ?? "", title: r.t_title ?? "", venue: r.t_venue ?? "",
          outcome: r.t_outcome ?? "", contracts: r.t_contracts ?? 0, cost: r.t_cost ?? 0, entryPrice: r.t_entry_price ?? 0,
          exitPrice: r.t_exit_price, profit: r.t_profit, result: r.t_result, openedAt: Number(r.t_opened_at),
          closedAt: ms(r.t_closed_at ?? null),
        },
      }
    })
  }).pipe(Effect.orDie, Effect.withSpan("MarketAlerts.inbox"))

export const MarketAlertsStore = { insert, armed, record, byIds, list, remove, inbox } as const
