// GET /v2/traders (list_traders) and GET /v2/traders/{ref} (get_trader): trader rows over the chosen
// markets and window, and one trader's detail with its includes. Figures come from `named_trades`
// (every trade of a named trader, with its result once settled) through the pure record functions of
// src/intel/records.ts and habits.ts; "now" is Effect's Clock. The two SQL reads are at the bottom
// (they belong in src/store/ once that file has an owner).
//
// Decisions (README "Read API"):
// - Listed: traders with a trade in the 30 days before now (any market); `venue` is the shared filter
//   (every venue id): venue_b_us and venue_d name no traders, so they alone list none.
// - `category`/`kind` narrow every figure to those markets; a `kind` outside `category` is VALIDATION.
//   `period` narrows to trades made in the window (a bet counts as settled once its market settled).
// - `q` matches the handle (the part after `<venue>:`, an address on some venues) or the name,
//   case-insensitively, as a substring.
// - Sorting: rated traders (10+ settled bets in scope) first, then the rest, each by the sort value
//   (highest first; `recent` = latest trade first), ties by ref. The list is computed once per filter
//   set and kept 30 s of Clock, so a cursor walk reads one consistent list.
// - Get Trader: a ref on venue_b_us or venue_d is VALIDATION; an unknown trader NOT_FOUND. The record
//   covers the whole history; `rank` is the venue's profit ranking over every trader with a settled bet.
//   Each include costs one more request. `habits.hours[].weekday` is ISO (1 = Monday .. 7 = Sunday,
//   US Eastern); `behaviour[]` is `{ entry (null = venue did not say), trades, share }`.
//   `positions.open` = open or reduced positions, newest trade first; `positions.recent` = the 20
//   latest exited or settled ones. A position row's market `kind` is always null (spec).
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { Category, Kind, kindBelongsTo, KINDS, Venue } from "../domain/enums.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_TRADER_Q_LENGTH } from "../domain/limits.js"
import {
  type TraderDetail, TraderDetail as TraderDetailSchema, type TraderMarketRow, type TraderPositionRow, TraderRow, TraderVenue,
} from "../domain/trader.js"
import { DAY_MS, defaultIntelConfig } from "../intel/config.js"
import { curve, habits } from "../intel/habits.js"
import {
  bestKind, PERIOD_MS, PERIODS, rankByProfit, recordRows, StatsAccumulator, traderRecord, type RecordRow, type RecordTrade,
} from "../intel/records.js"
import { isoOf } from "../intel/rows.js"
import { kindsTraded, similarTraders } from "../intel/similar.js"
import { canonicalTraderRef } from "../domain/refs.js"
import { listing, operation, type OperationContext } from "./operation.js"
import { PageParams, paginate } from "./paging.js"
import { SearchText } from "./filters.js"
import { IntParam, Repeatable } from "./params.js"

const config = defaultIntelConfig
const ACTIVE_MS = 30 * DAY_MS
const CACHE_MS = 30_000

// List Traders --------------------------------------------------------------------------------------

export const TRADER_SORTS = ["profit", "win_rate", "return", "volume", "trades", "recent"] as const
export type TraderSort = (typeof TRADER_SORTS)[number]

export const ListTradersInput = Schema.Struct({
  venue: Schema.optional(Repeatable("venue", Venue)),
  category: Schema.optional(Category),
  kind: Schema.optional(Kind),
  q: Schema.optional(SearchText("q", MAX_TRADER_Q_LENGTH)),
  period: Schema.optionalWith(Schema.Literal(...PERIODS), { default: () => "all" as const }),
  minSettled: Schema.optional(IntParam("minSettled", 1, 100_000)),
  sort: Schema.optionalWith(Schema.Literal(...TRADER_SORTS), { default: () => "profit" as const }),
  ...PageParams,
})
export type ListTradersInput = typeof ListTradersInput.Type

/** One trader's figures in scope, before formatting. */
interface Scored {
  readonly row: TraderRow
  /** [rated ? 0 : 1, −value, ref]: ascending order is the listing order. */
  readonly key: TraderKey
}

type TraderKey = readonly [number, number, string]
const TraderKeySchema = Schema.Tuple(Schema.Number, Schema.Number, Schema.String)

const compareKeys = (a: TraderKey, b: TraderKey): number =>
  a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)

const NONE = -1e300

const sortValue = (row: TraderRow, sort: TraderSort, lastTradeMs: number | null): number => {
  switch (sort) {
    case "profit": return row.profit
    case "win_rate": return row.winRate ?? NONE
    case "return": return row.return ?? NONE
    case "volume": return row.volume
    case "trades": return row.trades
    case "recent": return lastTradeMs ?? NONE
  }
}

/** The accumulated sums of one aggregate row (see `aggregates`). */
const statsOf = (groups: ReadonlyArray<AggregateDb>) => {
  const acc = new StatsAccumulator()
  for (const g of groups) {
    acc.trades += g.trades
    acc.settled += g.settled
    acc.wins += g.wins
    acc.losses += g.settled - g.wins
    acc.profit += g.profit
    acc.volume += g.volume
    acc.staked += g.staked
    acc.traded += g.traded
    acc.buyUsd += g.buy_usd
    acc.buyContracts += g.buy_contracts
    acc.lastTradeAt = acc.lastTradeAt === null ? g.last_ms : Math.max(acc.lastTradeAt, g.last_ms)
  }
  return acc.stats(config)
}

/** Every listed trader in scope, in listing order. */
const scoreTraders = (groups: ReadonlyArray<AggregateDb>, input: ListTradersInput): Array<Scored> => {
  const byTrader = new Map<string, Array<AggregateDb>>()
  for (const g of groups) {
    const list = byTrader.get(g.trader) ?? []
    list.push(g)
    byTrader.set(g.trader, list)
  }
  const q = input.q?.trim().toLowerCase()
  const out: Array<Scored> = []
  for (const [trader, own] of byTrader) {
    const first = own[0] as AggregateDb
    const name = own.reduce<AggregateDb>((a, b) => (b.last_ms > a.last_ms ? b : a), first).name
    if (q !== undefined && q !== "") {
      const handle = trader.slice(trader.indexOf(":") + 1).toLowerCase()
      if (!handle.includes(q) && !(name ?? "").toLowerCase().includes(q)) continue
    }
    const stats = statsOf(own)
    if (input.minSettled !== undefined && stats.settled < input.minSettled) continue
    const kindRows: Array<RecordRow> = []
    for (const kind of new Set(own.map((g) => g.kind))) {
      if (kind === null) continue
      const inKind = own.filter((g) => g.kind === kind)
      kindRows.push({ trader, venue: first.venue, period: input.period, category: inKind[0]?.category ?? null, kind, ...statsOf(inKind) })
    }
    const row: TraderRow = {
      ref: trader, name, venue: first.venue as TraderVenue, winRate: stats.winRate, return: stats.return,
      profit: stats.profit, volume: stats.volume, trades: stats.trades, settled: stats.settled,
      bestKind: bestKind(kindRows, config), lastTradeAt: stats.lastTradeAt === null ? null : isoOf(stats.lastTradeAt),
    }
    const rated = stats.settled >= config.records.minSettledForRates
    out.push({ row, key: [rated ? 0 : 1, -sortValue(row, input.sort, stats.lastTradeAt), trader] })
  }
  return out.sort((a, b) => compareKeys(a.key, b.key))
}

/** Computed lists by filter set, kept `CACHE_MS` of Clock. */
const listCache = new Map<string, { readonly at: number; readonly rows: ReadonlyArray<Scored> }>()

const cachedList =
  Effect.fnUntraced(function* (input: ListTradersInput, now: number) {
    const { limit: _l, cursor: _c, ...filters } = input
    const cacheKey = JSON.stringify(filters)
    const hit = listCache.get(cacheKey)
    if (hit !== undefined && now - hit.at < CACHE_MS && now >= hit.at) return hit.rows
    const groups = yield* aggregates({
      venues: input.venue, category: input.category, kind: input.kind,
      from: input.period === "all" ? null : now - PERIOD_MS[input.period], to: now, activeFrom: now - ACTIVE_MS,
    })
    const rows = scoreTraders(groups, input)
    for (const [key, entry] of listCache) if (now - entry.at >= CACHE_MS || now < entry.at) listCache.delete(key)
    listCache.set(cacheKey, { at: now, rows })
    return rows
  })

export const listTraders = listing({
  name: "listTraders",
  tool: "list_traders",
  method: "GET",
  path: "/v2/traders",
  scope: "read",
  summary: "Traders active in the last 30 days on the venues that name traders",
  input: ListTradersInput,
  row: TraderRow,
  run: Effect.fnUntraced(function* (input: typeof ListTradersInput.Type, ctx: OperationContext) {
    if (input.kind !== undefined && input.category !== undefined && !kindBelongsTo(input.kind, input.category)) {
      return yield* new Validation({ error: `kind \`${input.kind}\` is not in category \`${input.category}\`` })
    }
    const now = yield* Clock.currentTimeMillis
    const rows = yield* cachedList(input, now)
    const page = yield* paginate({
      listing: "listTraders",
      input,
      ctx,
      key: TraderKeySchema,
      keyOf: (s: Scored) => s.key,
      fetch: (after: Option.Option<TraderKey>, take: number) =>
        Effect.succeed(
          (Option.isNone(after) ? rows : rows.filter((s) => compareKeys(s.key, after.value) > 0)).slice(0, take),
        ),
    })
    return { data: page.data.map((s) => s.row), nextCursor: page.nextCursor }
  }),
})

// Get Trader ----------------------------------------------------------------------------------------

export const TRADER_INCLUDES = ["positions", "curve", "habits", "similar"] as const
export type TraderInclude = (typeof TRADER_INCLUDES)[number]

export const GetTraderInput = Schema.Struct({
  ref: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  include: Schema.optional(Repeatable("include", Schema.String.pipe(Schema.maxLength(200)))),
})
export type GetTraderInput = typeof GetTraderInput.Type

/** Comma-separated or repeated; duplicates count once; unknown values are VALIDATION. */
const includesOf = (values: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<TraderInclude>, Validation> => {
  const out = new Set<TraderInclude>()
  for (const value of values ?? []) {
    for (const part of value.split(",")) {
      const name = part.trim()
      if (name === "") continue
      if (!(TRADER_INCLUDES as ReadonlyArray<string>).includes(name)) {
        return Effect.fail(new Validation({ error: `include must be one of ${TRADER_INCLUDES.join(", ")} (got \`${name}\`)` }))
      }
      out.add(name as TraderInclude)
    }
  }
  return Effect.succeed(TRADER_INCLUDES.filter((i) => out.has(i)))
}

const TRADER_REF = /^([a-z_]+):(\S{1,128})$/

const checkRef = (ref: string): Effect.Effect<void, Validation> => {
  const match = TRADER_REF.exec(ref)
  if (match === null) return Effect.fail(new Validation({ error: "ref must be a trader ref `<venue>:<handle>`" }))
  if (match[1] !== "venue_a" && match[1] !== "venue_b") {
    return Effect.fail(new Validation({ error: `ref: only venue_a and venue_b name traders (got \`${match[1]}\`)` }))
  }
  return Effect.void
}

const marketRowOf = (row: RecordRow): TraderMarketRow => ({
  category: row.category as Category,
  kind: row.kind,
  trades: row.trades,
  settled: row.settled,
  winRate: row.winRate,
  return: row.return,
  profit: row.profit,
  volume: row.volume,
  avgEntry: row.avgEntry,
  lastTradeAt: row.lastTradeAt === null ? null : isoOf(row.lastTradeAt),
})

const RECENT_POSITIONS = 20

const positionRowOf = (p: PositionDb): TraderPositionRow => ({
  market: p.title === null || p.venue === null ? null : {
    ref: p.event ?? p.contract, contract: p.contract, title: p.title, venue: p.venue, category: p.category, kind: null,
  },
  outcome: p.outcome,
  entryPrice: p.entry_price ?? (p.bought_contracts > 0 ? p.usd / p.bought_contracts : 0),
  exitPrice: p.exit_price,
  usd: p.usd,
  soldUsd: p.sold_usd,
  status: p.status,
  result: p.result,
  profit: p.profit,
  openedAt: isoOf(p.opened_at_ms),
  lastTradeAt: isoOf(p.last_trade_at_ms),
})

const habitsOf = (trades: ReadonlyArray<RecordTrade>, asOf: number): NonNullable<TraderDetail["habits"]> => {
  const h = habits(trades, asOf, config)
  const total = h.behaviour.reduce((n, b) => n + b.trades, 0)
  return {
    bySize: h.bySize,
    byPrice: h.byPrice,
    behaviour: h.behaviour.map((b) => ({ entry: b.entry === "unknown" ? null : b.entry, trades: b.trades, share: total === 0 ? 0 : b.trades / total })),
    // habits.ts numbers weekdays 0 = Sunday; the API is ISO, 1 = Monday .. 7 = Sunday.
    hours: h.hours.map((c) => ({ weekday: c.weekday === 0 ? 7 : c.weekday, hour: c.hour, trades: c.trades }))
      .sort((a, b) => a.weekday - b.weekday || a.hour - b.hour),
    streaks: h.streaks,
  }
}

/** Every trader's whole record (for rank and similar), kept `CACHE_MS` of Clock. */
let wholeCache: { readonly at: number; readonly groups: ReadonlyArray<AggregateDb> } | null = null
const wholeRecords = (now: number) =>
  wholeCache !== null && now - wholeCache.at < CACHE_MS && now >= wholeCache.at
    ? Effect.succeed(wholeCache.groups)
    : Effect.tap(aggregates({ venues: undefined, category: undefined, kind: undefined, from: null, to: now, activeFrom: null }),
      (groups) => Effect.sync(() => { wholeCache = { at: now, groups } }))

const detail =
  Effect.fnUntraced(function* (given: GetTraderInput, ctx: OperationContext) {
    yield* checkRef(given.ref)
    // A venue_b wallet in any letter case names the same trader (answered in lower case, as the venue writes it).
    const input = { ...given, ref: canonicalTraderRef(given.ref) }
    const includes = yield* includesOf(input.include)
    const now = yield* Clock.currentTimeMillis
    const trades = yield* namedTradesOf(input.ref, now)
    if (trades.length === 0) return yield* new NotFound({ error: `No trader has the ref ${quoted(input.ref)}` })
    const record = traderRecord(recordRows(trades.map((t) => t.trade), now, config), input.ref, "all", config)
    if (record === null) return yield* new NotFound({ error: `No trader has the ref ${quoted(input.ref)}` })
    // Includes are charged once the trader is known, as Get Market does: a 404 costs one request.
    if (includes.length > 0) yield* ctx.charge(includes.length)
    const whole = yield* wholeRecords(now)
    const perTrader = new Map<string, Array<AggregateDb>>()
    for (const g of whole) perTrader.set(g.trader, [...(perTrader.get(g.trader) ?? []), g])
    const totals = [...perTrader].map(([trader, groups]) => ({ trader, venue: (groups[0] as AggregateDb).venue, ...statsOf(groups) }))
    const rank = rankByProfit(totals, config).get(input.ref) ?? null
    const latest = trades.reduce((a, b) => (b.trade.time > a.trade.time ? b : a))
    const { record: r } = record
    const out: Mutable<TraderDetail> = {
      ref: input.ref,
      name: latest.name,
      venue: record.venue as TraderVenue,
      record: { trades: r.trades, settled: r.settled, winRate: r.winRate, return: r.return, profit: r.profit, volume: r.volume },
      byCategory: record.byCategory.map(marketRowOf),
      byKind: record.byKind.map(marketRowOf),
      avgEntry: record.avgEntry,
      rank,
      lastTradeAt: record.lastTradeAt === null ? null : isoOf(record.lastTradeAt),
    }
    const own = trades.map((t) => t.trade)
    if (includes.includes("positions")) {
      const positions = (yield* positionsOf(input.ref)).map(positionRowOf)
      out.positions = {
        open: positions.filter((p) => p.status === "open" || p.status === "reduced"),
        recent: positions.filter((p) => p.status === "exited" || p.status === "settled").slice(0, RECENT_POSITIONS),
      }
    }
    if (includes.includes("curve")) {
      const c = curve(own, now)
      out.curve = { points: c.points.map((p) => ({ time: isoOf(p.time), profit: p.profit, trades: p.trades })), months: c.months }
    }
    if (includes.includes("habits")) out.habits = habitsOf(own, now)
    if (includes.includes("similar")) {
      const candidates = [...perTrader].map(([trader, groups]) => ({
        ref: trader,
        name: groups.reduce((a, b) => (b.last_ms > a.last_ms ? b : a)).name,
        profit: statsOf(groups).profit,
        kinds: KINDS.filter((k) => groups.some((g) => g.kind === k)),
      }))
      out.similar = similarTraders({ ref: input.ref, kinds: kindsTraded(own) }, candidates, config)
        .map((s) => ({ ref: s.ref, name: s.name, profit: s.profit }))
    }
    return out as TraderDetail
  })

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export const getTrader = operation({
  name: "getTrader",
  tool: "get_trader",
  method: "GET",
  path: "/v2/traders/:ref",
  scope: "read",
  summary: "One trader's record, with positions, curve, habits and similar traders on request",
  input: GetTraderInput,
  output: TraderDetailSchema,
  run: detail,
})

// Reads ---------------------------------------------------------------------------------------------

/** Sums per trader × category × kind over `named_trades` (one row per group). */
interface AggregateDb {
  readonly trader: string
  readonly venue: Venue
  readonly category: Category | null
  readonly kind: Kind | null
  readonly name: string | null
  readonly trades: number
  readonly settled: number
  readonly wins: number
  readonly profit: number
  readonly volume: number
  readonly staked: number
  /** volume without voided buys (the return's money). */
  readonly traded: number
  readonly buy_usd: number
  readonly buy_contracts: number
  readonly last_ms: number
}

/**
 * The settlement arithmetic of src/intel/settlement.ts (`settlementProfit` with `scoringPrice`) in SQL,
 * so the sums are taken by the database: a win pays S(1 − p)/p with p clamped to [0.001, 1], a loss
 * costs S, a stake that is not positive risks nothing. `recordStats` over the same trades gives the
 * same figures (test/api/traders.test.ts checks it).
 */
const SETTLED = `action = 'buy' AND result IN ('win', 'loss') AND COALESCE(settled_at_ms, time_ms) <= $1`
const VOIDED = `action = 'buy' AND result = 'void' AND COALESCE(settled_at_ms, time_ms) <= $1`
const STAKE = `CASE WHEN usd > 0 AND usd < 'Infinity'::float8 THEN usd ELSE 0 END`
const PROFIT = `CASE WHEN result = 'win' THEN ${STAKE} * (1 - LEAST(1, GREATEST(0.001, price))) / LEAST(1, GREATEST(0.001, price))
  WHEN result = 'loss' THEN -(${STAKE}) ELSE 0 END`

const aggregates =
  Effect.fnUntraced(function* (q: {
  readonly venues: ReadonlyArray<string> | undefined
  readonly category: Category | undefined
  readonly kind: Kind | undefined
  /** Trades after this (exclusive); null = whole history. */
  readonly from: number | null
  readonly to: number
  /** Only traders with a trade after this; null = every trader. */
  readonly activeFrom: number | null
}) {
    const sql = yield* SqlClient.SqlClient
    const params: Array<unknown> = [q.to]
    const add = (v: unknown) => {
      params.push(v)
      return `$${params.length}`
    }
    const where = ["time_ms <= $1", "venue IN ('venue_a', 'venue_b')"]
    if (q.venues !== undefined && q.venues.length > 0) where.push(`venue = ANY(${add(q.venues)}::text[])`)
    if (q.category !== undefined) where.push(`category = ${add(q.category)}`)
    if (q.kind !== undefined) where.push(`kind = ${add(q.kind)}`)
    if (q.from !== null) where.push(`time_ms > ${add(q.from)}`)
    if (q.activeFrom !== null) {
      where.push(`trader IN (SELECT DISTINCT trader FROM named_trades WHERE time_ms > ${add(q.activeFrom)} AND time_ms <= $1)`)
    }
    const text = `
      SELECT trader, venue, category, kind,
        (array_agg(trader_name ORDER BY time_ms DESC, id))[1] AS name,
        count(*)::float8 AS trades,
        (count(*) FILTER (WHERE ${SETTLED}))::float8 AS settled,
        (count(*) FILTER (WHERE ${SETTLED} AND result = 'win'))::float8 AS wins,
        COALESCE(sum(${PROFIT}) FILTER (WHERE ${SETTLED}), 0)::float8 AS profit,
        COALESCE(sum(${STAKE}), 0)::float8 AS volume,
        COALESCE(sum(${STAKE}) FILTER (WHERE ${SETTLED}), 0)::float8 AS staked,
        COALESCE(sum(${STAKE}) FILTER (WHERE NOT (${VOIDED})), 0)::float8 AS traded,
        COALESCE(sum(${STAKE}) FILTER (WHERE action = 'buy'), 0)::float8 AS buy_usd,
        COALESCE(sum(CASE WHEN contracts > 0 AND contracts < 'Infinity'::float8 THEN contracts ELSE 0 END) FILTER (WHERE action = 'buy'), 0)::float8 AS buy_contracts,
        max(time_ms)::float8 AS last_ms
      FROM named_trades WHERE ${where.join(" AND ")}
      GROUP BY trader, venue, category, kind
      ORDER BY trader, category NULLS FIRST, kind NULLS FIRST`
    return yield* sql.unsafe<AggregateDb>(text, params)
  }, Effect.orDie)

interface NamedTradeDb {
  readonly id: string
  readonly trader: string
  readonly trader_name: string | null
  readonly venue: Venue
  readonly time_ms: number
  readonly category: Category | null
  readonly kind: Kind | null
  readonly action: "buy" | "sell"
  readonly price: number
  readonly contracts: number
  readonly usd: number
  readonly entry: RecordTrade["entry"]
  readonly result: RecordTrade["result"]
  readonly settled_at_ms: number | null
}

/** One trader's trades up to `to`, as records.ts reads them. */
const namedTradesOf =
  Effect.fnUntraced(function* (trader: string, to: number) {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<NamedTradeDb>`
      SELECT id, trader, trader_name, venue, time_ms::float8 AS time_ms, category, kind, action, price, contracts, usd,
        entry, result, settled_at_ms::float8 AS settled_at_ms
      FROM named_trades WHERE trader = ${trader} AND time_ms <= ${to} ORDER BY time_ms, id`
    return rows.map((r) => ({
      name: r.trader_name,
      trade: {
        id: r.id, trader: r.trader, venue: r.venue, time: r.time_ms, category: r.category, kind: r.kind, action: r.action,
        price: r.price, contracts: r.contracts, usd: r.usd, entry: r.entry, result: r.result, settledAt: r.settled_at_ms,
      } satisfies RecordTrade,
    }))
  }, Effect.orDie)

interface PositionDb {
  readonly contract: string
  readonly outcome: string
  readonly status: TraderPositionRow["status"]
  readonly bought_contracts: number
  readonly usd: number
  readonly sold_usd: number | null
  readonly entry_price: number | null
  readonly exit_price: number | null
  readonly profit: number | null
  readonly result: TraderPositionRow["result"]
  readonly opened_at_ms: number
  readonly last_trade_at_ms: number
  readonly event: string | null
  readonly title: string | null
  readonly venue: Venue | null
  readonly category: Category | null
}

/** One trader's positions with their markets, latest trade first. */
const positionsOf =
  Effect.fnUntraced(function* (trader: string) {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<PositionDb>`
      SELECT p.contract, p.outcome, p.status, p.bought_contracts, p.usd, p.sold_usd, p.entry_price, p.exit_price, p.profit,
        p.result, p.opened_at_ms::float8 AS opened_at_ms, p.last_trade_at_ms::float8 AS last_trade_at_ms,
        m.event, m.title, m.venue, m.category
      FROM trader_positions p LEFT JOIN intel_markets m ON m.ref = p.contract
      WHERE p.trader = ${trader} ORDER BY p.last_trade_at_ms DESC, p.id`
  }, Effect.orDie)


