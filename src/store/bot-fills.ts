// The outbox of bots' fills (migration 16): written in the transaction that stores the bots' snapshots and
// trades, emptied once each fill is a paper order. What a crash left in it is recorded at the next start.
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { BotFill } from "../actors/accounts/registry.js"
import { jsonColumn } from "./sql-helpers.js"

export interface OutboxFill {
  readonly id: string
  readonly accountId: string
  readonly fill: BotFill
}

const insert: (fills: ReadonlyArray<OutboxFill>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (fills: ReadonlyArray<OutboxFill>) {
    if (fills.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      INSERT INTO bot_fill_outbox (id, account_id, fill)
      SELECT id, account_id, fill::jsonb
      FROM unnest(${fills.map((f) => f.id)}::text[], ${fills.map((f) => f.accountId)}::text[],
        ${fills.map((f) => JSON.stringify(f.fill))}::text[]) WITH ORDINALITY AS t (id, account_id, fill, n)
      ORDER BY n
      ON CONFLICT (id) DO NOTHING`
  }, Effect.orDie, Effect.withSpan("BotFills.insert"))

/** Fills no paper order carries yet, in the order they were written. */
const pending: Effect.Effect<ReadonlyArray<OutboxFill>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; account_id: string; fill: unknown }>`
    SELECT o.id, o.account_id, o.fill FROM bot_fill_outbox o
    WHERE NOT EXISTS (SELECT 1 FROM paper_orders p WHERE p.bot_fill_id = o.id)
    ORDER BY o.n`
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, fill: jsonColumn(r.fill) as BotFill }))
}).pipe(Effect.orDie, Effect.withSpan("BotFills.pending"))

/** Forgets fills recorded as paper orders (those given, and any a paper order already carries). */
const done: (ids: ReadonlyArray<string>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (ids: ReadonlyArray<string>) {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      DELETE FROM bot_fill_outbox o
      WHERE o.id = ANY(${[...ids]}::text[]) OR EXISTS (SELECT 1 FROM paper_orders p WHERE p.bot_fill_id = o.id)`
  }, Effect.orDie, Effect.withSpan("BotFills.done"))

export const BotFills = { insert, pending, done } as const
