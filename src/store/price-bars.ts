// Price bars in PostgreSQL (migration 0015): every contract's one-minute bars, written by the markets'
// flush (src/actors/markets/market-bus.ts) and the backfill's, read by Get Market's `history` together
// with the live actor's bars (which win for the minutes they hold). Kept `BARS_KEPT_MS` of feed time, the
// longest history range, so the table is bounded by a week of minutes per active contract. Plain
// functions over SqlClient, like ./markets.ts.
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Bar } from "../actors/markets/bars.js"
import type { ContractBar } from "../actors/markets/registry.js"
import { CHUNK } from "./markets.js"
import { jsonRecords } from "./sql-helpers.js"

/** Bars are kept this long (feed time): Get Market's longest `range`. */
export const BARS_KEPT_MS = 7 * 86_400_000

/** A bar as read: `start` is a bigint, which may come back as text. */
type Row = Omit<Bar, "start"> & { readonly start: number | string }

const upsertChunk = (sql: SqlClient.SqlClient, rows: ReadonlyArray<ContractBar>) => {
  const records = jsonRecords(rows.map(({ ref, bar }) => ({
    ref, start: bar.start, open: bar.open, high: bar.high, low: bar.low, close: bar.close, usd: bar.usd, contracts: bar.contracts,
    trades: bar.trades,
  })))
  return sql`
    INSERT INTO price_bars (ref, start, open, high, low, close, usd, contracts, trades)
    SELECT ref, round(start)::bigint, open, high, low, close, usd, contracts, trades
    FROM json_to_recordset(${records}::json) AS t (ref text, start float8, open float8, high float8, low float8, close float8,
      usd float8, contracts float8, trades integer)
    ON CONFLICT (ref, start) DO UPDATE SET
      open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low, close = EXCLUDED.close, usd = EXCLUDED.usd,
      contracts = EXCLUDED.contracts, trades = EXCLUDED.trades`
}

/**
 * Upserts bars by (ref, minute), `CHUNK` rows per statement; the last of several for one minute wins (a
 * bar is whole, not a delta, so writing it again is harmless).
 */
const upsert: (bars: ReadonlyArray<ContractBar>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (bars: ReadonlyArray<ContractBar>) {
    if (bars.length === 0) return
    const sql = yield* SqlClient.SqlClient
    // One row per (ref, minute) per statement: ON CONFLICT cannot touch a row twice.
    const latest = new Map<string, ContractBar>()
    for (const c of bars) latest.set(`${c.ref}\u0000${c.bar.start}`, c)
    const rows = [...latest.values()]
    for (let i = 0; i < rows.length; i += CHUNK) yield* upsertChunk(sql, rows.slice(i, i + CHUNK))
  }, Effect.orDie, Effect.withSpan("PriceBarStore.upsert"))

/** A contract's stored bars starting in [fromMs, toMs), oldest first. */
const range: (ref: string, fromMs: number, toMs: number) => Effect.Effect<ReadonlyArray<Bar>, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (ref: string, fromMs: number, toMs: number) {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT start::float8 AS start, open, high, low, close, usd, contracts, trades FROM price_bars
      WHERE ref = ${ref} AND start >= ${Math.ceil(fromMs)} AND start < ${Math.ceil(toMs)}
      ORDER BY start`
    return rows.map((r) => ({ ...r, start: Number(r.start) }))
  }, Effect.orDie, Effect.withSpan("PriceBarStore.range"))

/** Deletes bars whose minute started before `beforeMs`. */
const prune = (beforeMs: number): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM price_bars WHERE start < ${Math.floor(beforeMs)}`
  }).pipe(Effect.orDie, Effect.withSpan("PriceBarStore.prune"))

export const PriceBarStore = { upsert, range, prune } as const
