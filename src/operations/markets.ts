// GET /v2/markets (list_markets) and GET /v2/markets/{ref} (get_market). The list is computed from
// Intel's live figures (one row per market: an event once, a single contract once), in memory; the
// detail reads the market actors (`Markets`: listing, status, book, prices, bars), Intel (figures,
// call) and the store (whale aggregates, series windows, paired venues). Ordering and shaping are the
// small pure helpers below.
//
// List decisions where the spec is silent (README):
// - Order without `q` and with `q` alike, for open markets: (1) markets with a reading for the sort
//   (`whale_money`: whale buying in the last hour; `volume`: dollars traded in the last hour, above 0;
//   `move`: a Yes-price change over the last hour, by size either way; `newest`: listing time) by that
//   reading, biggest first; (2) markets that traded in the last hour without one, by volume; (3) every
//   other open market, each venue's most traded first (venues interleaved by rank). Ties by ref.
// - Settled rows (`status=settled`, and after the open ones with `status=all`) are markets settled or
//   voided in the last 30 days with at least one whale trade, newest settled first.
// - `sort` has no fixed default: `whale_money` for open markets, `newest settled` for settled ones; an
//   explicit `sort` other than `newest` with `status=settled` is VALIDATION.
// - Closed markets (trading stopped, no result) are in no list status and are not listed.
// - A multi-contract row: `contract` is the most traded contract (whose sides are `outcomes`), `title`
//   the event's title. Leading side = the side with the higher price; rows without a price drop out
//   of `priceMin`/`priceMax`. `series=false` is the same as leaving it out.
// - Live figures move between pages, so a row can shift by a place while a client pages.
//
// Get Market error table (the spec leaves it open): VALIDATION (unknown parameter, unknown `include`
// value, bad `range`), NOT_FOUND (no market or event has that ref), QUOTA_EXCEEDED (the includes would
// pass the per-minute limit; `include=trades` when the daily trade allowance is spent), SCOPE_REQUIRED.
import { Clock, Duration, Effect, Option, Schema } from "effect"
import { coarsen, mergeBars, MINUTE_MS } from "../actors/markets/bars.js"
import { Markets, type MarketsService } from "../actors/markets/market-bus.js"
import type { Venue } from "../domain/enums.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { CALL_READINESS_MS, MARKET_DETAIL_TRADES, MAX_BOOK_LEVELS, MAX_MARKET_Q_LENGTH, SERIES_WINDOWS, TRADES_WINDOW_DAYS } from "../domain/limits.js"
import type { MarketInfo } from "../domain/market-events.js"
import {
  HistoryRange, MarketDetail, type MarketBookSide, type MarketHistory, MarketListRow, type MarketOutcome, type MarketWhales,
  type OtherVenue,
} from "../domain/market.js"
import { DAY_MS, HOUR_MS } from "../intel/config.js"
import { Intel, type IntelService } from "../intel/live.js"
import { isoOf } from "../intel/rows.js"
import { marketFigures, type MarketFigures } from "../intel/views.js"
import { MarketStore } from "../store/markets.js"
import { PriceBarStore } from "../store/price-bars.js"
import { marketsWithWhaleTrades, marketWhaleBuys, seriesWindows, whaleSides, whaleTraders } from "../store/reads.js"
import { chargeTrades } from "./allowance.js"
import { CategoryFilter, containsEveryWord, KindFilter, MarketRefParam, SearchText, VenueFilter, wordsOf } from "./filters.js"
import { listing, operation, type OperationContext } from "./operation.js"
import { PageParams, paginate } from "./paging.js"
import { BooleanParam, NumberParam, Repeatable } from "./params.js"
import { liveTradeRows } from "./trades.js"
import { round6 } from "../numbers.js"

// List Markets ----------------------------------------------------------------------------------

export const MarketSort = Schema.Literal("whale_money", "volume", "move", "newest")
export type MarketSort = typeof MarketSort.Type

export const ListMarketsInput = Schema.Struct({
  ...VenueFilter,
  ...CategoryFilter,
  ...KindFilter,
  status: Schema.optionalWith(Schema.Literal("open", "settled", "all"), { default: () => "open" as const }),
  q: Schema.optional(SearchText("q", MAX_MARKET_Q_LENGTH)),
  priceMin: Schema.optional(NumberParam("priceMin", 0, 1)),
  priceMax: Schema.optional(NumberParam("priceMax", 0, 1)),
  series: Schema.optional(BooleanParam("series")),
  sort: Schema.optional(MarketSort),
  ...PageParams,
})
export type ListMarketsInput = typeof ListMarketsInput.Type

/** [section, rank, ref], ascending: the listing's total order. */
type ListKey = readonly [number, number, string]
const ListKeySchema = Schema.Tuple(Schema.Number, Schema.Number, Schema.String)

const before = (a: ListKey, b: ListKey): boolean =>
  a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]

interface Listed {
  readonly key: ListKey
  readonly row: MarketListRow
}

const isEvent = (f: MarketFigures): boolean => f.lead.event !== null && f.ref === f.lead.event

const rowOf = (f: MarketFigures): MarketListRow => ({
  ref: f.ref,
  contract: f.lead.ref,
  title: isEvent(f) ? (f.lead.eventTitle ?? f.lead.title) : f.lead.title,
  venue: f.venue,
  category: f.lead.category,
  kind: f.lead.kind,
  status: f.status === "void" ? "void" : f.status === "settled" ? "settled" : "open",
  outcomes: f.outcomes,
  outcomeCount: f.contracts.length,
  volume1h: f.volume1h,
  move1h: f.move1h,
  whaleMoney: f.whaleMoney,
  result: f.result,
  settledAt: f.settledAt === null ? null : isoOf(f.settledAt),
})

/** The reading a sort orders by; null = no reading (sorts after). */
const readingOf = (f: MarketFigures, sort: MarketSort, listedAt: number): number | null => {
  switch (sort) {
    case "whale_money": return f.whaleMoney
    case "volume": return f.volume1h !== null && f.volume1h > 0 ? f.volume1h : null
    case "move": return f.move1h === null ? null : Math.abs(f.move1h)
    case "newest": return listedAt
  }
}

/**
 * When a market was listed, for `newest`. A listing that carried no time of its own (a Kalshi history row:
 * the backfill lists it at 0, so it sorts before its trades) counts from its open time, up to now.
 */
export const listingTime = (info: MarketInfo, now: number): number =>
  info.listedAt > 0 || info.opensAt === null ? info.listedAt : Math.min(info.opensAt, now)

const leadingPrice = (f: MarketFigures): number | null =>
  f.outcomes.reduce<number | null>((best, o) => (o.price === null ? best : Math.max(best ?? 0, o.price)), null)

/** Every text `q` searches: titles and every contract's side names and labels. */
const textsOf = (intel: IntelService, f: MarketFigures): Array<string> => {
  const texts = [f.lead.title, f.lead.eventTitle ?? ""]
  for (const c of f.contracts) {
    const info = intel.pipeline.info(c)
    if (info === undefined) continue
    texts.push(info.title, info.sides[0].name, info.sides[0].label, info.sides[1].name, info.sides[1].label)
  }
  return texts
}

const tradedUsd = (intel: IntelService, f: MarketFigures): number =>
  f.contracts.reduce((t, c) => t + (intel.pipeline.contractState(c)?.figures.tradedUsd ?? 0), 0)

/** The rows of a request, in listing order. */
const listMarkets =
  Effect.fnUntraced(function* (intel: IntelService, input: ListMarketsInput, now: number) {
    const words = input.q === undefined ? [] : wordsOf(input.q)
    const open: Array<{ f: MarketFigures; listedAt: number }> = []
    const ended: Array<MarketFigures> = []
    for (const ref of intel.marketRefs()) {
      const f = marketFigures(intel.pipeline, ref, now)
      if (f === undefined) continue
      if (input.venue !== undefined && !input.venue.includes(f.venue)) continue
      if (input.category !== undefined && (f.lead.category === null || !input.category.includes(f.lead.category))) continue
      if (input.kind !== undefined && (f.lead.kind === null || !input.kind.includes(f.lead.kind))) continue
      if (input.series === true && f.lead.series === null) continue
      if (words.length > 0 && !containsEveryWord(words, textsOf(intel, f))) continue
      if (f.status === "open") {
        if (input.status === "settled") continue
        if (input.priceMin !== undefined || input.priceMax !== undefined) {
          const price = leadingPrice(f)
          if (price === null || price < (input.priceMin ?? 0) || price > (input.priceMax ?? 1)) continue
        }
        open.push({ f, listedAt: listingTime(f.lead, now) })
      } else if (f.status === "settled" || f.status === "void") {
        if (input.status === "open") continue
        if (f.settledAt === null || f.settledAt < now - TRADES_WINDOW_DAYS * DAY_MS) continue
        ended.push(f)
      }
    }
    const listed: Array<Listed> = []
    const sort = input.sort ?? "whale_money"
    // Section 3 (rank within venue by all-time dollars) needs each venue's order first.
    const idle: Array<{ f: MarketFigures; usd: number }> = []
    for (const { f, listedAt } of open) {
      const reading = readingOf(f, sort, listedAt)
      if (reading !== null) listed.push({ key: [0, -reading, f.ref], row: rowOf(f) })
      else if (f.lastTradeAt !== null && f.lastTradeAt > now - HOUR_MS) listed.push({ key: [1, -(f.volume1h ?? 0), f.ref], row: rowOf(f) })
      else idle.push({ f, usd: tradedUsd(intel, f) })
    }
    const rankIn = new Map<Venue, number>()
    idle.sort((a, b) => b.usd - a.usd || (a.f.ref < b.f.ref ? -1 : 1))
    for (const { f } of idle) {
      const rank = rankIn.get(f.venue) ?? 0
      rankIn.set(f.venue, rank + 1)
      listed.push({ key: [2, rank, f.ref], row: rowOf(f) })
    }
    if (ended.length > 0) {
      const withWhales = yield* marketsWithWhaleTrades(ended.map((f) => f.ref))
      for (const f of ended) if (withWhales.has(f.ref)) listed.push({ key: [3, -(f.settledAt ?? 0), f.ref], row: rowOf(f) })
    }
    return listed.sort((a, b) => (before(a.key, b.key) ? -1 : before(b.key, a.key) ? 1 : 0))
  })

/** The listing's rows of `input` in its order, unpaged (GET /v1/markets/search takes the first ones). */
export const marketRowsOf = (intel: IntelService, input: ListMarketsInput, now: number) =>
  Effect.map(listMarkets(intel, input, now), (listed) => listed.map((l) => l.row))

const runList =
  Effect.fnUntraced(function* (input: ListMarketsInput, ctx: OperationContext) {
    if ((input.priceMin !== undefined || input.priceMax !== undefined) && input.status !== "open") {
      return yield* new Validation({ error: "priceMin and priceMax need status=open" })
    }
    if (input.status === "settled" && input.sort !== undefined && input.sort !== "newest") {
      return yield* new Validation({ error: "sort must be newest with status=settled (settled markets come newest settled first)" })
    }
    if (input.priceMin !== undefined && input.priceMax !== undefined && input.priceMin > input.priceMax) {
      return yield* new Validation({ error: "priceMin must not be above priceMax" })
    }
    const intel = yield* Intel
    const now = yield* Clock.currentTimeMillis
    let rows: ReadonlyArray<Listed> | undefined
    const page = yield* paginate({
      listing: "listMarkets",
      input,
      ctx,
      key: ListKeySchema,
      keyOf: (l: Listed) => l.key,
      fetch: (after: Option.Option<ListKey>, take: number) =>
        Effect.map(rows === undefined ? listMarkets(intel, input, now) : Effect.succeed(rows), (all) => {
          rows = all
          const start = Option.isNone(after) ? 0 : all.findIndex((l) => before(after.value, l.key))
          return start < 0 ? [] : all.slice(start, start + take)
        }),
    })
    return { data: page.data.map((l) => l.row), nextCursor: page.nextCursor }
  })

export const listMarketsOperation = listing({
  name: "listMarkets",
  tool: "list_markets",
  method: "GET",
  path: "/v2/markets",
  scope: "read",
  summary: "Markets: browse, search, settled",
  input: ListMarketsInput,
  row: MarketListRow,
  run: Effect.fn("Markets.list")(runList),
})

// Get Market ------------------------------------------------------------------------------------

export const INCLUDES = ["book", "whales", "call", "history", "trades"] as const
export type Include = (typeof INCLUDES)[number]

export const GetMarketInput = Schema.Struct({
  ref: MarketRefParam,
  include: Schema.optional(Repeatable("include", Schema.String.pipe(Schema.maxLength(200)))),
  range: Schema.optionalWith(HistoryRange, { default: () => "1d" as const }),
})
export type GetMarketInput = typeof GetMarketInput.Type

/** Comma-separated or repeated; duplicates count once. */
const includesOf = (values: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<Include>, Validation> => {
  const out = new Set<Include>()
  for (const value of values ?? []) {
    for (const part of value.split(",")) {
      const name = part.trim()
      if (name === "") continue
      if (!(INCLUDES as ReadonlyArray<string>).includes(name)) {
        return Effect.fail(new Validation({ error: `include must be one of ${INCLUDES.join(", ")} (got \`${name}\`)` }))
      }
      out.add(name as Include)
    }
  }
  return Effect.succeed(INCLUDES.filter((i) => out.has(i)))
}

interface Resolved {
  readonly ref: string
  readonly contracts: ReadonlyArray<string>
  readonly infos: ReadonlyArray<MarketInfo>
  readonly event: boolean
}

const resolve = (markets: MarketsService, intel: IntelService, ref: string): Resolved | undefined => {
  const fromEvent = markets.contractsOfEvent(ref)
  const contracts = fromEvent.length > 0 ? fromEvent : markets.info(ref) !== null ? [ref] : intel.pipeline.contractsOf(ref)
  const infos = contracts.flatMap((c) => {
    const info = markets.info(c) ?? intel.pipeline.info(c)
    return info === null || info === undefined ? [] : [info]
  })
  const first = infos[0]
  if (first === undefined) return undefined
  return { ref, contracts: infos.map((i) => i.ref), infos, event: first.event !== null && first.event === ref }
}

const sidePrice = (yes: number | null, side: 0 | 1): number | null =>
  yes === null ? null : side === 0 ? yes : Math.round((1 - yes) * 1e9) / 1e9

/**
 * Each contract's sides with its current Yes price: the live actor's, else (a market the live feed has not
 * listed or priced, known from history) the intel pipeline's last price, the one its list row shows.
 */
const outcomesOf = (markets: MarketsService, intel: IntelService, infos: ReadonlyArray<MarketInfo>): Array<MarketOutcome> =>
  infos.flatMap((info) => {
    const book = markets.book(info.ref, 1)
    const yes = markets.yesPrice(info.ref) ?? intel.pipeline.contractState(info.ref)?.figures.lastPrice ?? null
    return info.sides.map((side, i): MarketOutcome => ({
      ref: info.ref,
      contract: info.title,
      name: side.name,
      label: side.label,
      price: sidePrice(yes, i as 0 | 1),
      bid: book?.sides[i]?.bestBid?.price ?? null,
      ask: book?.sides[i]?.bestAsk?.price ?? null,
    }))
  })

// Book cache: per contract ref, at most 5 s old by the Clock; bounded, swept as it fills.
const BOOK_TTL_MS = 5_000
const BOOK_CACHE_MAX = 10_000
const bookCache = new Map<string, { readonly at: number; readonly book: ReadonlyArray<MarketBookSide> }>()

const bookOf = (markets: MarketsService, r: Resolved, now: number): ReadonlyArray<MarketBookSide> | null => {
  if (r.contracts.length !== 1) return null
  const ref = r.contracts[0] as string
  const cached = bookCache.get(ref)
  if (cached !== undefined && now - cached.at < BOOK_TTL_MS && now >= cached.at) return cached.book
  const view = markets.book(ref, MAX_BOOK_LEVELS)
  const book = view === null ? [] : view.sides.map((s): MarketBookSide => ({
    outcome: s.side.name,
    bids: s.bids.slice(0, MAX_BOOK_LEVELS).map((l) => ({ price: l.price, size: l.size })),
    asks: s.asks.slice(0, MAX_BOOK_LEVELS).map((l) => ({ price: l.price, size: l.size })),
  }))
  if (bookCache.size >= BOOK_CACHE_MAX) {
    for (const [key, entry] of bookCache) if (now - entry.at >= BOOK_TTL_MS) bookCache.delete(key)
    if (bookCache.size >= BOOK_CACHE_MAX) bookCache.clear()
  }
  bookCache.set(ref, { at: now, book })
  return book
}

const RANGE_MS: Readonly<Record<HistoryRange, number>> = { "1h": HOUR_MS, "1d": DAY_MS, "7d": 7 * DAY_MS }
/** One price point per minute over an hour or a day, per 10 minutes over a week (at most 1,440 and 1,008). */
const HISTORY_STEP_MS: Readonly<Record<HistoryRange, number>> = { "1h": MINUTE_MS, "1d": MINUTE_MS, "7d": 10 * MINUTE_MS }

const sidesJson = (value: unknown): ReadonlyArray<{ readonly id: string }> => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return Array.isArray(parsed) ? (parsed as ReadonlyArray<{ readonly id: string }>) : []
}

const historyOf =
  Effect.fnUntraced(function* (markets: MarketsService, r: Resolved, range: HistoryRange, now: number) {
    const info = r.infos[0]
    if (r.contracts.length !== 1 || info === undefined) return null
    const from = now - RANGE_MS[range]
    // The store's bars (written within a flush of the actor's, and all a retired or restarted market has),
    // under the live actor's, which are current.
    const stored = yield* PriceBarStore.range(info.ref, from, now + 1)
    const bars = mergeBars(stored, markets.bars(info.ref, from, now + 1))
    const step = HISTORY_STEP_MS[range]
    const prices = (step === MINUTE_MS ? bars : coarsen(bars, step)).map((b) => ({ time: isoOf(b.start), price: b.close, volume: b.usd }))
    let series: MarketHistory["series"] = null
    if (info.series !== null) {
      const rows = yield* seriesWindows(info.venue, info.series, SERIES_WINDOWS)
      const windows = rows.map((w) => ({
        opensAt: isoOf(w.opens_at ?? w.listed_at),
        closesAt: isoOf(w.closes_at ?? w.settled_at ?? w.listed_at),
        result: w.winner !== null && sidesJson(w.sides)[0]?.id === w.winner ? "yes" as const : "no" as const,
      }))
      series = { windows, yesWon: windows.filter((w) => w.result === "yes").length, noWon: windows.filter((w) => w.result === "no").length }
    }
    return { range, prices, series }
  })

const WALLET = /^0x[0-9a-f]{40}$/i

const whalesOf =
  Effect.fnUntraced(function* (intel: IntelService, r: Resolved, now: number) {
    const from = now - (r.contracts.length === 1 ? TRADES_WINDOW_DAYS * DAY_MS : DAY_MS)
    const infoOf = new Map(r.infos.map((i) => [i.ref, i]))
    // On a multi-contract market a side is named with its contract: "<contract title>: <side>".
    const sideName = (contract: string, outcome: string) =>
      r.contracts.length === 1 ? outcome : `${infoOf.get(contract)?.title ?? contract}: ${outcome}`
    const [sides, traders] = yield* Effect.all([whaleSides(r.contracts, from), whaleTraders(r.contracts, from)])
    const whales: MarketWhales = {
      sides: sides.map((s) => ({ outcome: sideName(s.contract, s.outcome), usd: round6(s.usd), trades: s.trades })),
      traders: traders.map((t) => {
        const info = infoOf.get(t.contract)
        const summary = intel.summary(t.trader, info?.category ?? null, info?.kind ?? null)
        const name = t.trader_name !== null && WALLET.test(t.trader_name) ? null : t.trader_name
        const exited = t.bought_contracts > 0 && t.sold_contracts >= 0.95 * t.bought_contracts
        return {
          ref: t.trader, name, winRate: summary.winRate, profit: summary.profit, settled: summary.settled,
          outcome: sideName(t.contract, t.outcome),
          boughtUsd: round6(t.bought_usd),
          soldUsd: round6(t.sold_usd),
          entryPrice: t.bought_contracts > 0 ? Math.min(1, round6(t.bought_usd / t.bought_contracts)) : null,
          exitPrice: t.sold_contracts > 0 ? Math.min(1, round6(t.sold_usd / t.sold_contracts)) : null,
          status: exited ? "exited" as const : t.sold_contracts > 0 ? "reduced" as const : "holding" as const,
          lastTradeAt: isoOf(t.last_ms),
        }
      }),
    }
    return whales
  })

const callOf = (intel: IntelService, ref: string) =>
  Effect.yieldNow().pipe(
    Effect.zipRight(intel.call(ref)),
    Effect.timeout(Duration.millis(CALL_READINESS_MS)),
    Effect.catchTag("TimeoutException", () => Effect.succeed(null)),
  )

const tradesOf =
  Effect.fnUntraced(function* (intel: IntelService, ctx: OperationContext, ref: string) {
    const trades = yield* marketWhaleBuys(ref, MARKET_DETAIL_TRADES)
    const granted = yield* chargeTrades(ctx, trades.length)
    return liveTradeRows(intel, trades.slice(0, granted))
  })

const otherVenuesOf = (r: Resolved) =>
  r.contracts.length !== 1
    ? Effect.succeed<ReadonlyArray<OtherVenue>>([])
    : Effect.map(MarketStore.pairedOf(r.contracts[0] as string), (refs) =>
      refs.flatMap((ref): Array<OtherVenue> => {
        const venue = ref.slice(0, ref.indexOf(":"))
        return venue === "venue_a" || venue === "venue_b" || venue === "venue_b_us" || venue === "venue_d" ? [{ venue, ref }] : []
      }))

const runGet =
  Effect.fnUntraced(function* (input: GetMarketInput, ctx: OperationContext) {
    const includes = yield* includesOf(input.include)
    const markets = yield* Markets
    const intel = yield* Intel
    const r = resolve(markets, intel, input.ref)
    if (r === undefined) return yield* new NotFound({ error: `No market has the ref ${quoted(input.ref)}` })
    if (includes.length > 0) yield* ctx.charge(includes.length)
    const now = yield* Clock.currentTimeMillis
    const first = r.infos[0] as MarketInfo
    const figures = marketFigures(intel.pipeline, r.ref, now)
    const single = r.contracts.length === 1 && !r.event
    const record = single ? markets.record(first.ref) : null
    const status = record?.status ?? figures?.status ?? markets.status(first.ref) ?? "open"
    const settledAt = record?.settledAt ?? figures?.settledAt ?? null
    const result = status !== "settled" ? null : record?.winner?.name ?? figures?.result ?? null
    const has = (i: Include) => includes.includes(i)
    const detail: MarketDetail = {
      ref: r.ref,
      contract: single ? first.ref : null,
      title: r.event ? (first.eventTitle ?? first.title) : first.title,
      venue: first.venue,
      category: first.category,
      kind: first.kind,
      status,
      result,
      settledAt: status === "settled" || status === "void" ? (settledAt === null ? null : isoOf(settledAt)) : null,
      rule: first.rule,
      outcomes: outcomesOf(markets, intel, r.infos),
      otherVenues: yield* otherVenuesOf(r),
      ...(has("book") ? { book: bookOf(markets, r, now) } : {}),
      ...(has("whales") ? { whales: yield* whalesOf(intel, r, now) } : {}),
      ...(has("call") ? { call: yield* callOf(intel, r.ref) } : {}),
      ...(has("history") ? { history: yield* historyOf(markets, r, input.range, now) } : {}),
      ...(has("trades") ? { trades: yield* tradesOf(intel, ctx, r.ref) } : {}),
    }
    return detail
  })

export const getMarket = operation({
  name: "getMarket",
  tool: "get_market",
  method: "GET",
  path: "/v2/markets/:ref",
  scope: "read",
  summary: "One market with optional book, whales, call, history and trades",
  input: GetMarketInput,
  output: MarketDetail,
  run: Effect.fn("Markets.get")(runGet),
})
