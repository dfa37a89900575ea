// Markets in PostgreSQL: batched upserts of MarketRecords (listing + lifecycle) by ref, with their
// events' metadata, and the load that restores the registry on start. Writes are multi-row: one
// `INSERT … SELECT FROM json_to_recordset(…)` per chunk of at most `CHUNK` rows (PostgreSQL 15 and PGlite
// alike; the rows go as one JSON parameter, `jsonRecords` in ./sql-helpers.ts), never one statement per
// market. The caller (the flush fiber in src/actors/markets/market-bus.ts) decides when; nothing here
// runs on the feed's hot path. Plain functions over SqlClient, like ./webhooks.ts. `paired_refs` (the
// same market on other venues) is kept when a row is upserted: no feed says it, a pairing job sets it.
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Category, Kind, Venue } from "../domain/enums.js"
import type { MarketInfo, MarketLifecycle, MarketRecord, MarketSide } from "../domain/market-events.js"
import { jsonRecords } from "./sql-helpers.js"

/** Rows per statement. */
export const CHUNK = 500

interface Row {
  readonly ref: string
  readonly venue: Venue
  readonly contract: string
  readonly event_ref: string | null
  readonly event_title: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly sides: unknown
  readonly rule: string | null
  readonly series: string | null
  readonly opens_at: number | null
  readonly closes_at: number | null
  readonly fee_rate: number | null
  readonly listed_at: number
  readonly status: MarketLifecycle
  readonly winner: string | null
  readonly closed_at: number | null
  readonly settled_at: number | null
  readonly last_price: number | null
  readonly last_trade_at: number | null
}

const sidesOf = (value: unknown): readonly [MarketSide, MarketSide] => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  if (!Array.isArray(parsed) || parsed.length !== 2) throw new Error("markets.sides is not two sides")
  const side = (s: unknown): MarketSide => {
    const o = s as Record<string, unknown>
    return { id: String(o["id"]), name: String(o["name"]), label: String(o["label"]) }
  }
  return [side(parsed[0]), side(parsed[1])]
}

const fromRow = (row: Row): MarketRecord => {
  const info: MarketInfo = {
    ref: row.ref, venue: row.venue, contract: row.contract, event: row.event_ref, eventTitle: row.event_title,
    title: row.title, category: row.category, kind: row.kind, sides: sidesOf(row.sides), rule: row.rule,
    series: row.series, opensAt: row.opens_at, closesAt: row.closes_at, feeRate: row.fee_rate, listedAt: row.listed_at,
  }
  const winner = row.winner === null ? null : info.sides.find((s) => s.id === row.winner) ?? null
  return {
    info, status: row.status, winner, closedAt: row.closed_at, settledAt: row.settled_at,
    lastPrice: row.last_price, lastTradeAt: row.last_trade_at,
  }
}

const upsertChunk =
  Effect.fnUntraced(function* (sql: SqlClient.SqlClient, records: ReadonlyArray<MarketRecord>) {
    const events = new Map<string, MarketInfo>()
    for (const r of records) if (r.info.event !== null) events.set(r.info.event, r.info)
    if (events.size > 0) {
      const rows = jsonRecords([...events.values()].map((i) => ({
        ref: i.event, venue: i.venue, title: i.eventTitle, category: i.category, kind: i.kind, series: i.series,
      })))
      yield* sql`
        INSERT INTO market_events (ref, venue, title, category, kind, series)
        SELECT * FROM json_to_recordset(${rows}::json) AS t (ref text, venue text, title text, category text, kind text, series text)
        ON CONFLICT (ref) DO UPDATE SET
          title = EXCLUDED.title, category = EXCLUDED.category, kind = EXCLUDED.kind,
          series = EXCLUDED.series, updated_at = now()`
    }
    const rows = jsonRecords(records.map((r) => ({
      ref: r.info.ref, venue: r.info.venue, contract: r.info.contract, event_ref: r.info.event, title: r.info.title,
      category: r.info.category, kind: r.info.kind, sides: r.info.sides, rule: r.info.rule, series: r.info.series,
      opens_at: r.info.opensAt, closes_at: r.info.closesAt, fee_rate: r.info.feeRate, listed_at: r.info.listedAt, status: r.status,
      winner: r.winner?.id ?? null, closed_at: r.closedAt, settled_at: r.settledAt, last_price: r.lastPrice, last_trade_at: r.lastTradeAt,
    })))
    yield* sql`
      INSERT INTO markets (ref, venue, contract, event_ref, title, category, kind, sides, rule, series, opens_at,
        closes_at, fee_rate, listed_at, status, winner, closed_at, settled_at, last_price, last_trade_at)
      SELECT ref, venue, contract, event_ref, title, category, kind, sides, rule, series,
        round(opens_at)::bigint, round(closes_at)::bigint, fee_rate, round(listed_at)::bigint, status, winner,
        round(closed_at)::bigint, round(settled_at)::bigint, last_price, round(last_trade_at)::bigint
      FROM json_to_recordset(${rows}::json) AS t (ref text, venue text, contract text, event_ref text, title text, category text,
        kind text, sides jsonb, rule text, series text, opens_at float8, closes_at float8, fee_rate float8, listed_at float8,
        status text, winner text, closed_at float8, settled_at float8, last_price float8, last_trade_at float8)
      ON CONFLICT (ref) DO UPDATE SET
        event_ref = EXCLUDED.event_ref, title = EXCLUDED.title, category = EXCLUDED.category, kind = EXCLUDED.kind,
        sides = EXCLUDED.sides, rule = EXCLUDED.rule, series = EXCLUDED.series, opens_at = EXCLUDED.opens_at,
        closes_at = EXCLUDED.closes_at, fee_rate = EXCLUDED.fee_rate,
        status = CASE
          WHEN markets.status IN ('settled', 'void') THEN markets.status
          WHEN markets.status = 'closed' AND EXCLUDED.status = 'open' THEN markets.status
          ELSE EXCLUDED.status END,
        winner = CASE WHEN markets.status IN ('settled', 'void') THEN markets.winner ELSE EXCLUDED.winner END,
        closed_at = coalesce(markets.closed_at, EXCLUDED.closed_at),
        settled_at = CASE WHEN markets.status IN ('settled', 'void') THEN markets.settled_at ELSE EXCLUDED.settled_at END,
        last_price = CASE
          WHEN EXCLUDED.last_trade_at IS NOT NULL AND (markets.last_trade_at IS NULL OR EXCLUDED.last_trade_at >= markets.last_trade_at)
          THEN EXCLUDED.last_price ELSE markets.last_price END,
        last_trade_at = greatest(markets.last_trade_at, EXCLUDED.last_trade_at), updated_at = now()`
  })

/**
 * Upserts records by ref, `CHUNK` rows per statement. A ref must appear at most once per call (the
 * registry's drain guarantees it); `listed_at` keeps its first value. A stored record never goes back:
 * its lifecycle only moves on (open → closed → settled | void) and its last trade is the newer one, because
 * a registry may know less than the store (a restart's history backfill lists every market afresh, open
 * and untraded, and re-reads only the settlements and trades after the stored time).
 */
const upsert: (records: ReadonlyArray<MarketRecord>) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (records: ReadonlyArray<MarketRecord>) {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < records.length; i += CHUNK) yield* upsertChunk(sql, records.slice(i, i + CHUNK))
  }, Effect.orDie, Effect.withSpan("MarketStore.upsert"))

/** Every stored market, in listing order (then ref), to restore the registry. */
const load: Effect.Effect<ReadonlyArray<MarketRecord>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Row>`
    SELECT m.ref, m.venue, m.contract, m.event_ref, e.title AS event_title, m.title, m.category, m.kind, m.sides,
      m.rule, m.series, m.opens_at::float8 AS opens_at, m.closes_at::float8 AS closes_at, m.fee_rate,
      m.listed_at::float8 AS listed_at, m.status, m.winner, m.closed_at::float8 AS closed_at,
      m.settled_at::float8 AS settled_at, m.last_price, m.last_trade_at::float8 AS last_trade_at
    FROM markets m LEFT JOIN market_events e ON e.ref = m.event_ref
    ORDER BY m.listed_at, m.ref`
  return rows.map(fromRow)
}).pipe(Effect.orDie, Effect.withSpan("MarketStore.load"))

/** Paired refs (the same market on other venues) of one market, when known. */
const pairedOf: (ref: string) => Effect.Effect<ReadonlyArray<string>, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (ref: string) {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ paired_refs: ReadonlyArray<string> }>`SELECT paired_refs FROM markets WHERE ref = ${ref}`
    return rows[0]?.paired_refs ?? []
  }, Effect.orDie, Effect.withSpan("MarketStore.pairedOf"))

export const MarketStore = { upsert, load, pairedOf } as const
