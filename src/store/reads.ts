// SQL reads behind the listings of moves and markets (src/operations/moves.ts, markets.ts): keyset
// pages over `moves`, and the per-market aggregates and whale buys of Get Market.
// Reads only; the pipeline's writes live in ./intel.ts. Listing queries are bounded twice: by a time
// window the caller computes (24 hours of moves) and by LIMIT.
//
// Index use (migration 0004): pages ordered `time_ms DESC, id` walk `moves_time_idx` backwards from the
// cursor; a `market`/`contract` filter uses the market and contract indexes. Search words are `strpos`
// tests on the rows the window leaves (no wildcard escaping needed).
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { Category, Kind, Venue } from "../domain/enums.js"
import type { StoredMove } from "../intel/pipeline.js"
import { fromWhaleRow, WHALE_ROW_COLUMNS, type WhaleRowDb } from "./intel.js"

/** Positional parameters of one statement. */
class Params {
  readonly values: Array<unknown> = []
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

const run = <R extends object>(text: string, params: Params) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<R>(text, params.values)).pipe(Effect.orDie)

/** `column = ANY($n)` when values are given. */
const anyOf = (p: Params, column: string, values: ReadonlyArray<string> | undefined, type = "text"): Array<string> =>
  values === undefined || values.length === 0 ? [] : [`${column} = ANY(${p.add(values)}::${type}[])`]

/** Market filter: the row's market ref (event or contract) or its exact contract. */
const marketOf = (p: Params, refs: ReadonlyArray<string> | undefined): Array<string> => {
  if (refs === undefined || refs.length === 0) return []
  const list = p.add(refs)
  return [`(market = ANY(${list}::text[]) OR contract = ANY(${list}::text[]))`]
}

const wordsIn = (p: Params, haystack: string, words: ReadonlyArray<string>): Array<string> =>
  words.map((w) => `strpos(${haystack}, ${p.add(w)}) > 0`)

// Trades ------------------------------------------------------------------------------------------
// GET /v2/trades reads the whale trades of its window from memory (src/intel/trade-index.ts).

/** The newest `take` whale buys on a market ref (event or contract). */
export const marketWhaleBuys = (ref: string, take: number) => {
  const p = new Params()
  const r = p.add(ref)
  return Effect.map(
    run<WhaleRowDb>(
      `SELECT ${WHALE_ROW_COLUMNS} FROM whale_trades WHERE (market = ${r} OR contract = ${r}) AND action = 'buy'
       ORDER BY time_ms DESC, id ASC LIMIT ${p.add(take)}`,
      p,
    ),
    (rows) => rows.map(fromWhaleRow),
  )
}

// Moves -------------------------------------------------------------------------------------------

export interface MoveQuery {
  readonly venue?: ReadonlyArray<Venue> | undefined
  readonly category?: ReadonlyArray<Category> | undefined
  readonly kind?: ReadonlyArray<Kind> | undefined
  readonly market?: ReadonlyArray<string> | undefined
  readonly type?: ReadonlyArray<"move" | "flip" | "whales"> | undefined
  readonly minPoints?: number | undefined
  readonly priceMin?: number | undefined
  readonly priceMax?: number | undefined
  readonly words: ReadonlyArray<string>
  /** Inclusive epoch-ms bounds. */
  readonly from: number
  readonly to: number
}

export type MoveKey = readonly [number, string]

interface MoveRowDb {
  readonly id: string
  readonly time_ms: number
  readonly type: "move" | "flip" | "whales"
  readonly venue: Venue
  readonly market: string
  readonly contract: string
  readonly event: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly outcome: string
  readonly price_before: number | null
  readonly price_after: number | null
  readonly minutes: number | null
  readonly traders: number | null
  readonly usd: number | null
  readonly started_at_ms: number
  readonly reached_at_ms: number
}

const storedMoveOf = (r: MoveRowDb): StoredMove => ({
  id: r.id, time: r.time_ms, type: r.type, venue: r.venue, ref: r.market, market: r.contract, event: r.event,
  title: r.title, category: r.category, kind: r.kind, outcome: r.outcome, priceBefore: r.price_before,
  priceAfter: r.price_after, minutes: r.minutes, traders: r.traders, usd: r.usd, startedAt: r.started_at_ms,
  reachedAt: r.reached_at_ms,
})

/** Up to `take` moves after `after`, newest first. */
export const movesPage = (q: MoveQuery, after: Option.Option<MoveKey>, take: number) => {
  const p = new Params()
  const where = [
    `time_ms >= ${p.add(q.from)}`,
    `time_ms <= ${p.add(q.to)}`,
    ...anyOf(p, "venue", q.venue),
    ...anyOf(p, "category", q.category),
    ...anyOf(p, "kind", q.kind),
    ...marketOf(p, q.market),
    ...anyOf(p, "type", q.type),
    // Points are whole cents of the Yes price; rounding keeps 0.45 − 0.40 at 5 points, not 4.999….
    ...(q.minPoints === undefined || q.minPoints === 0
      ? []
      : [`(type <> 'move' OR round((abs(price_after - price_before) * 100)::numeric, 6) >= ${p.add(q.minPoints)})`]),
    ...(q.priceMin === undefined ? [] : [`price_after >= ${p.add(q.priceMin)}`]),
    ...(q.priceMax === undefined ? [] : [`price_after <= ${p.add(q.priceMax)}`]),
    ...wordsIn(p, "lower(title)", q.words),
  ]
  if (Option.isSome(after)) {
    const [time, id] = after.value
    const t = p.add(time)
    where.push(`(time_ms < ${t} OR (time_ms = ${t} AND id > ${p.add(id)}))`)
  }
  const text = `SELECT id, time_ms::float8 AS time_ms, type, venue, market, contract, event, title, category, kind, outcome,
      price_before, price_after, minutes, traders, usd, started_at_ms::float8 AS started_at_ms,
      reached_at_ms::float8 AS reached_at_ms
    FROM moves WHERE ${where.join(" AND ")} ORDER BY time_ms DESC, id ASC LIMIT ${p.add(take)}`
  return Effect.map(run<MoveRowDb>(text, p), (rows) => rows.map(storedMoveOf))
}

// Markets -----------------------------------------------------------------------------------------

/** Which of `refs` (market refs of rows) have whale trades. */
export const marketsWithWhaleTrades = (refs: ReadonlyArray<string>) => {
  if (refs.length === 0) return Effect.succeed(new Set<string>())
  const p = new Params()
  return Effect.map(
    run<{ readonly market: string }>(`SELECT DISTINCT market FROM whale_trades WHERE market = ANY(${p.add(refs)}::text[])`, p),
    (rows) => new Set(rows.map((r) => r.market)),
  )
}

export interface WhaleSideDb {
  readonly contract: string
  readonly outcome: string
  readonly usd: number
  readonly trades: number
}

/** Whale buys per contract side since `from`. */
export const whaleSides = (contracts: ReadonlyArray<string>, from: number) => {
  const p = new Params()
  return run<WhaleSideDb>(
    `SELECT contract, outcome, sum(usd)::float8 AS usd, count(*)::int AS trades FROM whale_trades
     WHERE contract = ANY(${p.add(contracts)}::text[]) AND action = 'buy' AND time_ms >= ${p.add(from)}
     GROUP BY contract, outcome ORDER BY sum(usd) DESC, contract, outcome`,
    p,
  )
}

export interface WhaleTraderDb {
  readonly trader: string
  readonly trader_name: string | null
  readonly contract: string
  readonly outcome: string
  readonly bought_usd: number
  readonly bought_contracts: number
  readonly sold_usd: number
  readonly sold_contracts: number
  readonly last_ms: number
}

/**
 * Named traders with at least one whale trade on a contract side since `from`, with every trade they
 * made on that side since then (whale-size or not): what they bought and sold.
 */
export const whaleTraders = (contracts: ReadonlyArray<string>, from: number) => {
  const p = new Params()
  return run<WhaleTraderDb>(
    `SELECT trader, max(trader_name) AS trader_name, contract, outcome,
       coalesce(sum(usd) FILTER (WHERE action = 'buy'), 0)::float8 AS bought_usd,
       coalesce(sum(contracts) FILTER (WHERE action = 'buy'), 0)::float8 AS bought_contracts,
       coalesce(sum(usd) FILTER (WHERE action = 'sell'), 0)::float8 AS sold_usd,
       coalesce(sum(contracts) FILTER (WHERE action = 'sell'), 0)::float8 AS sold_contracts,
       max(time_ms)::float8 AS last_ms
     FROM named_trades WHERE contract = ANY(${p.add(contracts)}::text[]) AND time_ms >= ${p.add(from)}
     GROUP BY trader, contract, outcome HAVING bool_or(whale)
     ORDER BY bought_usd DESC, trader, contract, outcome`,
    p,
  )
}

export interface SeriesWindowDb {
  readonly opens_at: number | null
  readonly closes_at: number | null
  readonly settled_at: number | null
  readonly listed_at: number
  readonly winner: string | null
  readonly sides: unknown
}

/** The newest settled windows of a repeating series on one venue (at most `take`). */
export const seriesWindows = (venue: Venue, series: string, take: number) => {
  const p = new Params()
  return run<SeriesWindowDb>(
    `SELECT opens_at::float8 AS opens_at, closes_at::float8 AS closes_at, settled_at::float8 AS settled_at,
       listed_at::float8 AS listed_at, winner, sides
     FROM markets WHERE venue = ${p.add(venue)} AND series = ${p.add(series)} AND status = 'settled'
     ORDER BY coalesce(closes_at, settled_at) DESC, ref LIMIT ${p.add(take)}`,
    p,
  )
}
