// Whale intelligence in PostgreSQL: batched upserts of what the pipeline changed (markets, whale and
// named trades, moves, trader positions, settlements) and the restore that rebuilds a pipeline from
// them. Every write is keyed by a stable id, so persisting the same changes twice stores nothing new;
// rows go out as one JSON parameter per table through `json_to_recordset` (jsonRecords in ./sql-helpers.ts; at
// most 1000 rows per table per statement, every table of a flush in one statement), never one statement per event. Plain functions over SqlClient, like the other repositories.
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { Category, Kind, TradeEntry, TradeResult, Venue } from "../domain/enums.js"
import type { MarketEvent, MarketInfo, MarketLifecycle } from "../domain/market-events.js"
import { MINUTE_MS } from "../intel/config.js"
import { jsonRecords } from "./sql-helpers.js"
import type { IntelChanges, IntelPipeline, StoredMarket, StoredMove, StoredPosition, StoredTrade } from "../intel/pipeline.js"

const BATCH = 1000

type Column<R> = readonly [name: string, type: string, read: (row: R) => unknown]

/** One statement's worth of one table's upsert: its INSERT text (its parameter's number given) and parameter. */
interface Chunk {
  readonly insert: (param: number) => string
  readonly params: ReadonlyArray<string>
}

/**
 * `INSERT … SELECT FROM json_to_recordset(rows) ON CONFLICT (key) DO UPDATE` in chunks of BATCH rows, the
 * rows as one JSON parameter (jsonRecords); the last row of an id wins.
 */
const upsertChunks = <R>(
  table: string,
  key: string,
  columns: ReadonlyArray<Column<R>>,
  rows: ReadonlyArray<R>,
  keyOf: (row: R) => string,
): Array<Chunk> => {
  if (rows.length === 0) return []
  const last = new Map<string, R>()
  for (const row of rows) last.set(keyOf(row), row)
  const unique = [...last.values()]
  const names = columns.map(([name]) => name).join(", ")
  const types = columns.map(([name, type]) => `${name} ${type}`).join(", ")
  const updates = columns.filter(([name]) => name !== key).map(([name]) => `${name} = EXCLUDED.${name}`).join(", ")
  const insert = (param: number): string =>
    `INSERT INTO ${table} (${names}) SELECT ${names} FROM json_to_recordset($${param}::json) AS t (${types}) ` +
    `ON CONFLICT (${key}) DO UPDATE SET ${updates}`
  const record = (row: R): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const [name, , read] of columns) out[name] = read(row)
    return out
  }
  const chunks: Array<Chunk> = []
  for (let from = 0; from < unique.length; from += BATCH) {
    chunks.push({ insert, params: [jsonRecords(unique.slice(from, from + BATCH).map(record))] })
  }
  return chunks
}

/**
 * As few statements as the chunks allow: the k-th chunk of every table goes into statement k, joined
 * as data-modifying CTEs (each table is written by one of them; none reads another's rows). A round
 * trip costs more than the rows on a small flush, and one statement needs no BEGIN/COMMIT of its own.
 */
const statements = (tables: ReadonlyArray<ReadonlyArray<Chunk>>): Array<{ readonly text: string; readonly params: Array<unknown> }> => {
  const out: Array<{ readonly text: string; readonly params: Array<unknown> }> = []
  const rounds = Math.max(0, ...tables.map((chunks) => chunks.length))
  for (let k = 0; k < rounds; k++) {
    const parts = tables.flatMap((chunks) => chunks.slice(k, k + 1))
    const params: Array<unknown> = []
    const inserts = parts.map((part) => {
      const text = part.insert(params.length + 1)
      params.push(...part.params)
      return text
    })
    const text = inserts.length === 1 ? (inserts[0] as string) : `WITH ${inserts.map((t, i) => `w${i} AS (${t})`).join(", ")} SELECT 1`
    out.push({ text, params })
  }
  return out
}

const marketColumns: ReadonlyArray<Column<StoredMarket>> = [
  ["ref", "text", (m) => m.info.ref],
  ["venue", "text", (m) => m.info.venue],
  ["event", "text", (m) => m.info.event],
  ["title", "text", (m) => m.info.title],
  ["event_title", "text", (m) => m.info.eventTitle],
  ["category", "text", (m) => m.info.category],
  ["kind", "text", (m) => m.info.kind],
  ["info", "jsonb", (m) => m.info],
  ["status", "text", (m) => m.status],
  ["result", "text", (m) => m.result],
  ["settled_at_ms", "bigint", (m) => m.settledAt],
  ["listed_at_ms", "bigint", (m) => m.info.listedAt],
]

const whaleColumns: ReadonlyArray<Column<StoredTrade>> = [
  ["id", "text", (t) => t.id],
  ["seq", "bigint", (t) => t.seq],
  ["trade_id", "text", (t) => t.tradeId],
  ["tx_id", "text", (t) => t.txId],
  ["time_ms", "bigint", (t) => t.time],
  ["venue", "text", (t) => t.venue],
  ["market", "text", (t) => t.market],
  ["contract", "text", (t) => t.contract],
  ["event", "text", (t) => t.event],
  ["title", "text", (t) => t.title],
  ["category", "text", (t) => t.category],
  ["kind", "text", (t) => t.kind],
  ["outcome", "text", (t) => t.outcome],
  ["outcome_label", "text", (t) => t.outcomeLabel],
  ["action", "text", (t) => t.action],
  ["entry", "text", (t) => t.entry],
  ["price", "float8", (t) => t.price],
  ["usd", "float8", (t) => t.usd],
  ["contracts", "float8", (t) => t.contracts],
  ["trader", "text", (t) => t.trader],
  ["trader_name", "text", (t) => t.traderName],
  ["trader_win_rate", "float8", (t) => t.summary?.winRate ?? null],
  ["trader_profit", "float8", (t) => t.summary?.profit ?? null],
  ["trader_settled", "int4", (t) => (t.trader === null ? null : t.summary?.settled ?? 0)],
  ["same_trades", "int4", (t) => t.agreement?.sameSide.trades ?? 0],
  ["same_usd", "float8", (t) => t.agreement?.sameSide.usd ?? 0],
  ["other_trades", "int4", (t) => t.agreement?.otherSide.trades ?? 0],
  ["other_usd", "float8", (t) => t.agreement?.otherSide.usd ?? 0],
  ["result", "text", (t) => t.result],
  ["profit", "float8", (t) => t.profit],
  ["settled_at_ms", "bigint", (t) => t.settledAt],
]

const namedColumns: ReadonlyArray<Column<StoredTrade>> = [
  ["id", "text", (t) => t.id],
  ["seq", "bigint", (t) => t.seq],
  ["trade_id", "text", (t) => t.tradeId],
  ["tx_id", "text", (t) => t.txId],
  ["time_ms", "bigint", (t) => t.time],
  ["venue", "text", (t) => t.venue],
  ["trader", "text", (t) => t.trader],
  ["trader_name", "text", (t) => t.traderName],
  ["market", "text", (t) => t.market],
  ["contract", "text", (t) => t.contract],
  ["event", "text", (t) => t.event],
  ["category", "text", (t) => t.category],
  ["kind", "text", (t) => t.kind],
  ["outcome", "text", (t) => t.outcome],
  ["outcome_label", "text", (t) => t.outcomeLabel],
  ["action", "text", (t) => t.action],
  ["entry", "text", (t) => t.entry],
  ["price", "float8", (t) => t.price],
  ["usd", "float8", (t) => t.usd],
  ["contracts", "float8", (t) => t.contracts],
  ["whale", "bool", (t) => t.whale],
  ["result", "text", (t) => t.result],
  ["settled_at_ms", "bigint", (t) => t.settledAt],
]

const moveColumns: ReadonlyArray<Column<StoredMove>> = [
  ["id", "text", (m) => m.id],
  ["time_ms", "bigint", (m) => m.time],
  ["type", "text", (m) => m.type],
  ["venue", "text", (m) => m.venue],
  ["market", "text", (m) => m.ref],
  ["contract", "text", (m) => m.market],
  ["event", "text", (m) => m.event],
  ["title", "text", (m) => m.title],
  ["category", "text", (m) => m.category],
  ["kind", "text", (m) => m.kind],
  ["outcome", "text", (m) => m.outcome],
  ["price_before", "float8", (m) => m.priceBefore],
  ["price_after", "float8", (m) => m.priceAfter],
  ["minutes", "int4", (m) => m.minutes],
  ["traders", "int4", (m) => m.traders],
  ["usd", "float8", (m) => m.usd],
  ["started_at_ms", "bigint", (m) => m.startedAt],
  ["reached_at_ms", "bigint", (m) => m.reachedAt],
]

const positionColumns: ReadonlyArray<Column<StoredPosition>> = [
  ["id", "text", (p) => p.id],
  ["trader", "text", (p) => p.trader],
  ["contract", "text", (p) => p.contract],
  ["outcome", "text", (p) => p.outcome],
  ["status", "text", (p) => p.status],
  ["bought_contracts", "float8", (p) => p.boughtContracts],
  ["sold_contracts", "float8", (p) => p.soldContracts],
  ["held_contracts", "float8", (p) => p.heldContracts],
  ["usd", "float8", (p) => p.usd],
  ["sold_usd", "float8", (p) => p.soldUsd],
  ["entry_price", "float8", (p) => p.entryPrice],
  ["exit_price", "float8", (p) => p.exitPrice],
  ["realized", "float8", (p) => p.realized],
  ["profit", "float8", (p) => p.profit],
  ["result", "text", (p) => p.result],
  ["opened_at_ms", "bigint", (p) => p.openedAt],
  ["last_trade_at_ms", "bigint", (p) => p.lastTradeAt],
  ["last_bought_at_ms", "bigint", (p) => p.lastBoughtAt],
  ["settled_at_ms", "bigint", (p) => p.settledAt],
]

type Settlement = IntelChanges["settlements"][number]
const settlementColumns: ReadonlyArray<Column<Settlement>> = [
  ["contract", "text", (s) => s.contract],
  ["seq", "bigint", (s) => s.seq],
  ["status", "text", (s) => s.status],
  ["winner", "text", (s) => s.winner],
  ["time_ms", "bigint", (s) => s.time],
]

/**
 * Persists one batch of changes (and position rows) atomically: one statement when every table's rows
 * fit in one chunk (the usual flush), else one transaction.
 */
export const persistIntel: (
  changes: IntelChanges,
  positions?: ReadonlyArray<StoredPosition>,
) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (
    changes: IntelChanges,
    positions: ReadonlyArray<StoredPosition> = [],
  ) {
    if (changes.markets.length + changes.trades.length + changes.moves.length + changes.settlements.length + positions.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const all = statements([
      upsertChunks("intel_markets", "ref", marketColumns, changes.markets, (m) => m.info.ref),
      upsertChunks("whale_trades", "id", whaleColumns, changes.trades.filter((t) => t.whale), (t) => t.id),
      upsertChunks("named_trades", "id", namedColumns, changes.trades.filter((t) => t.trader !== null), (t) => t.id),
      upsertChunks("moves", "id", moveColumns, changes.moves, (m) => m.id),
      upsertChunks("trader_positions", "id", positionColumns, positions, (p) => p.id),
      upsertChunks("intel_settlements", "contract", settlementColumns, changes.settlements, (s) => s.contract),
    ])
    const run = Effect.forEach(all, (statement) => sql.unsafe(statement.text, statement.params), { discard: true })
    yield* (all.length > 1 ? sql.withTransaction(run) : run)
  })

export interface TradeRowDb {
  readonly seq: number
  readonly trade_id: string
  readonly tx_id: string | null
  readonly time_ms: number
  readonly venue: Venue
  readonly contract: string
  readonly outcome: string
  readonly outcome_label: string
  readonly action: "buy" | "sell"
  readonly price: number
  readonly usd: number
  readonly contracts: number
  readonly trader: string | null
  readonly trader_name: string | null
}

interface SettlementRowDb {
  readonly seq: number
  readonly contract: string
  readonly status: "settled" | "void"
  readonly winner: string | null
  readonly time_ms: number
}

/** How far back a restart takes prices from the stored bars: the hour move1h reads, and a few minutes. */
const RESTORED_PRICES_MS = 65 * MINUTE_MS

/**
 * The MarketEvents that rebuild a pipeline's state from the store: every market listed; then named and
 * whale trades and settlements in their original processing order (`seq`), each open contract's prices
 * (its stored bars of the last hour, open and close, and its last trade) merged in before the first of
 * them not older; then the closings; then the prices newer than every trade and settlement.
 */
export const restoreEvents: Effect.Effect<{ readonly events: Array<MarketEvent>; readonly seq: number }, SqlError.SqlError, SqlClient.SqlClient> =
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const markets = yield* sql<{ readonly info: MarketInfo | string; readonly status: MarketLifecycle }>`
      SELECT info, status FROM intel_markets ORDER BY listed_at_ms, ref`
    const tradeColumns = `seq::float8 AS seq, trade_id, tx_id, time_ms::float8 AS time_ms, venue, contract, outcome,
      outcome_label, action, price, usd, contracts, trader, trader_name`
    const trades = yield* sql.unsafe<TradeRowDb>(
      `SELECT ${tradeColumns} FROM whale_trades UNION ALL SELECT ${tradeColumns} FROM named_trades WHERE NOT whale ORDER BY seq`,
    )
    const settlements = yield* sql<SettlementRowDb>`
      SELECT seq::float8 AS seq, contract, status, winner, time_ms::float8 AS time_ms FROM intel_settlements ORDER BY seq`
    const infos = new Map<string, MarketInfo>()
    const events: Array<MarketEvent> = []
    for (const row of markets) {
      const info: MarketInfo = typeof row.info === "string" ? JSON.parse(row.info) : row.info
      infos.set(info.ref, info)
      events.push({ _tag: "MarketOpened", ts: info.listedAt, market: info })
    }
    const sideOf = (contract: string, name: string, label: string) => {
      const sides = infos.get(contract)?.sides
      return sides?.find((s) => s.name === name) ?? { id: name, name, label }
    }
    // Trades and settlements in their processing order; the prices below are merged in by time.
    const ordered: Array<MarketEvent> = []
    let i = 0
    let j = 0
    let seq = 0
    while (i < trades.length || j < settlements.length) {
      const t = trades[i]
      const s = settlements[j]
      if (t !== undefined && (s === undefined || t.seq < s.seq)) {
        i++
        seq = Math.max(seq, t.seq)
        ordered.push({
          _tag: "TradePrinted", ts: t.time_ms, ref: t.contract, tradeId: t.trade_id, txId: t.tx_id,
          side: sideOf(t.contract, t.outcome, t.outcome_label), action: t.action, price: t.price, contracts: t.contracts,
          usd: t.usd, trader: t.trader === null ? null : { id: t.trader.slice(t.trader.indexOf(":") + 1), name: t.trader_name },
        })
      } else if (s !== undefined) {
        j++
        seq = Math.max(seq, s.seq)
        if (s.status === "void" || s.winner === null) ordered.push({ _tag: "MarketVoided", ts: s.time_ms, ref: s.contract })
        else {
          const info = infos.get(s.contract)
          ordered.push({ _tag: "MarketSettled", ts: s.time_ms, ref: s.contract, winner: sideOf(s.contract, s.winner, info?.sides.find((x) => x.name === s.winner)?.label ?? s.winner) })
        }
      }
    }
    const open = yield* sql<{ readonly ref: string; readonly last_price: number | null; readonly last_trade_at: number | null }>`
      SELECT ref, last_price, last_trade_at::float8 AS last_trade_at FROM markets WHERE status = 'open'`
    const bars = yield* sql<{ readonly ref: string; readonly start: number; readonly open: number; readonly close: number }>`
      SELECT ref, start::float8 AS start, open, close FROM price_bars
      WHERE start >= (SELECT max(start) FROM price_bars) - ${RESTORED_PRICES_MS} ORDER BY start, ref`
    const closedRows = yield* sql<{ readonly ref: string; readonly closed_at: number | null }>`
      SELECT ref, closed_at::float8 AS closed_at FROM markets WHERE closed_at IS NOT NULL`
    // No restored event may stand later than the feed had reached at the stop, or the pipeline's clock (and
    // each contract's move detector) would be ahead of the live feed that follows: the detectors would drop
    // its first buys and prices as old, and the position rows would read their windows from a later time.
    // The store does not keep that instant itself; the newest time it holds is a bound below it.
    let stop = Number.NEGATIVE_INFINITY
    for (const e of events) stop = Math.max(stop, e.ts)
    for (const e of ordered) stop = Math.max(stop, e.ts)
    for (const row of open) if (row.last_trade_at !== null) stop = Math.max(stop, row.last_trade_at)
    for (const row of closedRows) if (row.closed_at !== null) stop = Math.max(stop, row.closed_at)
    for (const bar of bars) stop = Math.max(stop, bar.start)
    const closedAt = new Map(closedRows.map((row) => [row.ref, row.closed_at]))
    const closings: Array<MarketEvent> = []
    for (const row of markets) {
      if (row.status !== "closed") continue
      const info: MarketInfo = typeof row.info === "string" ? JSON.parse(row.info) : row.info
      // When it closed, as the market records keep it; else its listed close, never past the stop.
      const ts = closedAt.get(info.ref) ?? Math.min(info.closesAt ?? info.listedAt, Math.max(stop, info.listedAt))
      closings.push({ _tag: "MarketClosed", ts, ref: info.ref })
    }
    // The pipeline's prices come from the live market actors (PriceChanged), which a restart does not
    // replay. An open contract's prices come back from the store: each of its one-minute bars of the last
    // hour before the stop (what move1h reads) as its open at the minute's start and its close at the
    // minute's end (or at the stop, if sooner), then its stored last trade when that is newer. In time
    // order, so each contract's points stay in order.
    const openRefs = new Set(open.filter((row) => infos.has(row.ref)).map((row) => row.ref))
    const prices: Array<MarketEvent & { readonly _tag: "PriceChanged" }> = []
    const lastBarEnd = new Map<string, number>()
    // Each contract's own clock stops no later than its newest bar's start or last trade: a move detector
    // drops a buy older than its clock, and a trade the venue_b join held over the stop arrives after it.
    const contractStop = new Map<string, number>()
    for (const bar of bars) contractStop.set(bar.ref, Math.max(contractStop.get(bar.ref) ?? Number.NEGATIVE_INFINITY, bar.start))
    for (const row of open) if (row.last_trade_at !== null) contractStop.set(row.ref, Math.max(contractStop.get(row.ref) ?? Number.NEGATIVE_INFINITY, row.last_trade_at))
    for (const bar of bars) {
      if (!openRefs.has(bar.ref)) continue
      const end = Math.max(bar.start, Math.min(bar.start + MINUTE_MS - 1, stop, contractStop.get(bar.ref) ?? stop))
      // Both points even when they share a millisecond: the figures keep the open as the minute's first
      // price (move1h's "first price of the hour"), and the close, coming second, is the price in effect.
      prices.push({ _tag: "PriceChanged", ts: bar.start, ref: bar.ref, yesPrice: bar.open })
      prices.push({ _tag: "PriceChanged", ts: end, ref: bar.ref, yesPrice: bar.close })
      lastBarEnd.set(bar.ref, end)
    }
    for (const row of open) {
      if (!openRefs.has(row.ref) || row.last_price === null || row.last_trade_at === null) continue
      if (row.last_trade_at > (lastBarEnd.get(row.ref) ?? Number.NEGATIVE_INFINITY)) {
        prices.push({ _tag: "PriceChanged", ts: row.last_trade_at, ref: row.ref, yesPrice: row.last_price })
      }
    }
    prices.sort((a, b) => a.ts - b.ts || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
    // Each price before the trades and settlements after it (and before those of its millisecond), as the
    // live feed had them: a move detector ignores a price older than its clock, so prices replayed after
    // every trade would leave it without one (a whales move's priceAfter would read null).
    let p = 0
    for (const e of ordered) {
      while (p < prices.length && (prices[p] as MarketEvent).ts <= e.ts) events.push(prices[p++] as MarketEvent)
      events.push(e)
    }
    events.push(...closings, ...prices.slice(p))
    return { events, seq }
  })

/** Rebuilds `pipeline` (fresh) from the store: replays the stored events and drops what they re-derive. */
export const restorePipeline = (pipeline: IntelPipeline): Effect.Effect<{ readonly events: number }, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.map(restoreEvents, ({ events, seq }) => {
    pipeline.applyAll(events)
    pipeline.takeChanges()
    pipeline.takePositionChanges()
    pipeline.continueSeq(seq)
    return { events: events.length }
  })

/** How far each venue's history is stored (epoch ms), by venue. */
export const backfilledUntil: Effect.Effect<ReadonlyMap<Venue, number>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ venue: Venue; until_ms: number }>`SELECT venue, until_ms::float8 AS until_ms FROM backfill_progress`
  return new Map(rows.map((r) => [r.venue, r.until_ms]))
})

export const setBackfilledUntil: (venue: Venue, until: number) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (venue: Venue, until: number) {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      INSERT INTO backfill_progress (venue, until_ms) VALUES (${venue}, ${until})
      ON CONFLICT (venue) DO UPDATE SET until_ms = GREATEST(backfill_progress.until_ms, EXCLUDED.until_ms)`
  })

/** The columns of a `whale_trades` row as `WhaleRowDb` reads them. */
export const WHALE_ROW_COLUMNS = `id, seq::float8 AS seq, trade_id, tx_id, time_ms::float8 AS time_ms, venue, market, contract, event,
  title, category, kind, outcome, outcome_label, action, entry, price, usd, contracts, trader, trader_name,
  trader_win_rate, trader_profit, trader_settled, same_trades, same_usd, other_trades, other_usd, result, profit,
  settled_at_ms::float8 AS settled_at_ms`

const whaleRows = (where: string, params: ReadonlyArray<unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<WhaleRowDb>(`SELECT ${WHALE_ROW_COLUMNS} FROM whale_trades ${where}`, params), (rows) => rows.map(fromWhaleRow)))

/** Stored whale trades (newest first) as the pipeline keeps them; for reads and tests. */
export const storedWhaleTrades = (limit = 1000): Effect.Effect<Array<StoredTrade>, SqlError.SqlError, SqlClient.SqlClient> =>
  whaleRows("ORDER BY time_ms DESC, id LIMIT $1", [limit])

/** Stored whale trades at or after `from` (epoch ms): what the listing window holds in memory at start. */
export const storedWhaleTradesSince = (from: number): Effect.Effect<Array<StoredTrade>, SqlError.SqlError, SqlClient.SqlClient> =>
  whaleRows("WHERE time_ms >= $1", [from])

export const storedWhaleTrade = (id: string): Effect.Effect<StoredTrade | undefined, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.map(whaleRows("WHERE id = $1", [id]), (rows) => rows[0])

/** A `whale_trades` row as read (bigints cast to float8). */
export interface WhaleRowDb extends TradeRowDb {
  readonly id: string
  readonly market: string
  readonly event: string | null
  readonly title: string
  readonly category: Category | null
  readonly kind: Kind | null
  readonly entry: TradeEntry | null
  readonly trader_win_rate: number | null
  readonly trader_profit: number | null
  readonly trader_settled: number | null
  readonly same_trades: number
  readonly same_usd: number
  readonly other_trades: number
  readonly other_usd: number
  readonly result: TradeResult
  readonly profit: number | null
  readonly settled_at_ms: number | null
}

/** A stored whale trade from its row. */
export const fromWhaleRow = (r: WhaleRowDb): StoredTrade => ({
  id: r.id, seq: r.seq, tradeId: r.trade_id, txId: r.tx_id, time: r.time_ms, venue: r.venue, market: r.market,
  contract: r.contract, event: r.event, title: r.title, category: r.category, kind: r.kind, outcome: r.outcome,
  outcomeLabel: r.outcome_label, action: r.action, entry: r.entry, price: r.price, usd: r.usd, contracts: r.contracts,
  trader: r.trader, traderName: r.trader_name, whale: true,
  summary: r.trader === null ? null : { winRate: r.trader_win_rate, profit: r.trader_profit, settled: r.trader_settled ?? 0 },
  agreement: { sameSide: { trades: r.same_trades, usd: r.same_usd }, otherSide: { trades: r.other_trades, usd: r.other_usd } },
  result: r.result, profit: r.profit, settledAt: r.settled_at_ms,
})
