// Paper bots in PostgreSQL: create a bot under its account's limits (one statement group under an
// advisory lock per account, so two concurrent creations cannot both pass the 20th place or both copy
// the same trader), load every bot to restore the actors, save changed snapshots and their trades in
// batches, and look up whether a trader is known. Ids are drawn here, at the edge, from node:crypto.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { BotTrade } from "../actors/bots/ledger.js"
import type { FeedMarks } from "../intel/recent-feed.js"
import { jsonColumn, underAccountLock } from "./sql-helpers.js"

export type BotKindName = "trader" | "signal" | "market"

export interface BotRow {
  readonly id: string
  readonly accountId: string
  readonly kind: BotKindName
  readonly name: string
  readonly mode: "paper" | "live"
  readonly status: "running" | "paused" | "ended"
  /** The copied trader (trader bots), else null. */
  readonly trader: string | null
  readonly settings: unknown
  readonly snapshot: unknown
  /** The feed the snapshot had seen (BotRegistry.through). */
  readonly through: FeedMarks
}

export interface StoredBotRow {
  readonly id: string
  readonly kind: BotKindName
  readonly snapshot: unknown
  readonly through: FeedMarks | null
}

export type InsertOutcome = "created" | "limit" | "duplicate"

/** `<kind>:<16 base64url characters>`. */
export const newBotId = (kind: BotKindName): string => `${kind}:${randomBytes(12).toString("base64url")}`


/**
 * Inserts a bot unless the account already has `limit` bots of its kind that have not ended (signal and
 * market bots), or already copies that trader with a bot that has not ended (trader bots). Committed before
 * it returns.
 */
const insert = (row: BotRow, createdAt: Date, limit: number | null): Effect.Effect<InsertOutcome, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* underAccountLock(sql, "bots", row.accountId, Effect.gen(function* () {
      if (row.trader !== null) {
        const same = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM bots
          WHERE account_id = ${row.accountId} AND kind = 'trader' AND trader = ${row.trader} AND status <> 'ended'`
        if ((same[0]?.n ?? 0) > 0) return "duplicate" as const
      }
      if (limit !== null) {
        const held = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM bots
          WHERE account_id = ${row.accountId} AND kind = ${row.kind} AND status <> 'ended'`
        if ((held[0]?.n ?? 0) >= limit) return "limit" as const
      }
      yield* sql`
        INSERT INTO bots (id, account_id, kind, name, mode, status, trader, settings, snapshot, feed_through, created_at)
        VALUES (${row.id}, ${row.accountId}, ${row.kind}, ${row.name}, ${row.mode}, ${row.status}, ${row.trader},
          ${JSON.stringify(row.settings)}::jsonb, ${JSON.stringify(row.snapshot)}::jsonb, ${JSON.stringify(row.through)}::jsonb, ${createdAt})`
      return "created" as const
    }))
  }).pipe(Effect.orDie, Effect.withSpan("BotStore.insert"))

/** Every bot, oldest first: what a restart restores. */
const load: Effect.Effect<ReadonlyArray<StoredBotRow>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; kind: BotKindName; snapshot: unknown; feed_through: unknown }>`
    SELECT id, kind, snapshot, feed_through FROM bots ORDER BY created_at, id`
  return rows.map((r) => ({
    id: r.id, kind: r.kind, snapshot: jsonColumn(r.snapshot),
    through: r.feed_through === null ? null : jsonColumn(r.feed_through) as FeedMarks,
  }))
}).pipe(Effect.orDie, Effect.withSpan("BotStore.load"))

export interface BotSave {
  readonly id: string
  readonly name: string
  readonly status: "running" | "paused" | "ended"
  readonly settings: unknown
  readonly snapshot: unknown
  /** The feed the snapshot had seen (BotRegistry.through). */
  readonly through: FeedMarks
  /** Trades new or changed since the last save. */
  readonly trades: ReadonlyArray<BotTrade>
}

const CHUNK = 200

const saveChunk =
  Effect.fnUntraced(function* (sql: SqlClient.SqlClient, saves: ReadonlyArray<BotSave>) {
    yield* sql`
      UPDATE bots SET name = v.name, status = v.status, settings = v.settings::jsonb, snapshot = v.snapshot::jsonb,
        feed_through = v.through::jsonb, updated_at = now()
      FROM unnest(
        ${saves.map((s) => s.id)}::text[], ${saves.map((s) => s.name)}::text[], ${saves.map((s) => s.status)}::text[],
        ${saves.map((s) => JSON.stringify(s.settings))}::text[], ${saves.map((s) => JSON.stringify(s.snapshot))}::text[],
        ${saves.map((s) => JSON.stringify(s.through))}::text[]
      ) AS v (id, name, status, settings, snapshot, through)
      WHERE bots.id = v.id`
    const trades = saves.flatMap((s) => s.trades.map((t) => ({ bot: s.id, t })))
    if (trades.length === 0) return
    const col = <A>(f: (x: { readonly bot: string; readonly t: BotTrade }) => A): Array<A> => trades.map(f)
    yield* sql`
      INSERT INTO bot_trades (id, bot_id, seq, market, contract, title, venue, outcome, contracts, cost, fee, entry_price,
        exit_price, profit, status, result, opened_at_ms, closed_at_ms)
      SELECT id, bot_id, seq, market, contract, title, venue, outcome, contracts, cost, fee, entry_price, exit_price, profit,
        status, result, round(opened_at_ms)::bigint, round(closed_at_ms)::bigint
      FROM unnest(
        ${col((x) => x.t.id)}::text[], ${col((x) => x.bot)}::text[], ${col((x) => x.t.seq)}::int[],
        ${col((x) => x.t.market.ref)}::text[], ${col((x) => x.t.market.contract)}::text[], ${col((x) => x.t.market.title)}::text[],
        ${col((x) => x.t.market.venue)}::text[], ${col((x) => x.t.outcome)}::text[], ${col((x) => x.t.contracts)}::float8[],
        ${col((x) => x.t.cost)}::float8[], ${col((x) => x.t.fee)}::float8[], ${col((x) => x.t.entryPrice)}::float8[],
        ${col((x) => x.t.exitPrice)}::float8[], ${col((x) => x.t.profit)}::float8[], ${col((x) => x.t.status)}::text[],
        ${col((x) => x.t.result)}::text[], ${col((x) => x.t.openedAt)}::float8[], ${col((x) => x.t.closedAt)}::float8[]
      ) AS t (id, bot_id, seq, market, contract, title, venue, outcome, contracts, cost, fee, entry_price, exit_price, profit,
        status, result, opened_at_ms, closed_at_ms)
      ON CONFLICT (id) DO UPDATE SET exit_price = EXCLUDED.exit_price, profit = EXCLUDED.profit, status = EXCLUDED.status,
        result = EXCLUDED.result, closed_at_ms = EXCLUDED.closed_at_ms`
  })

/** Saves snapshots (and their changed trades), `CHUNK` bots per statement, each chunk in one transaction. */
const save: (saves: ReadonlyArray<BotSave>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (saves: ReadonlyArray<BotSave>) {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < saves.length; i += CHUNK) {
      yield* sql.withTransaction(saveChunk(sql, saves.slice(i, i + CHUNK)))
    }
  }, Effect.orDie, Effect.withSpan("BotStore.save"))

/** The trader's latest public name when any trade of theirs is stored; none when the trader is unknown. */
const trader = (ref: string): Effect.Effect<{ readonly name: string | null } | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ trader_name: string | null }>`
      SELECT trader_name FROM named_trades WHERE trader = ${ref} ORDER BY time_ms DESC LIMIT 1`
    const row = rows[0]
    return row === undefined ? null : { name: row.trader_name }
  }).pipe(Effect.orDie, Effect.withSpan("BotStore.trader"))

export const BotStore = { insert, load, save, trader } as const
