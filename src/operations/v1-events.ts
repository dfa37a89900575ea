// POST /v1/events (tool `query_whale_events`; spec: v1 operations, v1 resources): whale trades as v1 whale
// event rows, most recent first, by the v1 criteria (domain/v1.ts decodes and bounds them), paged by
// `limit` and `offset`. Rows come from the same in-memory index of stored whale trades as GET /v2/trades.
//
// Decisions where the spec is silent:
// - The window is what the service keeps of whale trades: the 30 days of the trade listing. `sinceDays` up
//   to 365 is accepted (default 90) and reads at most those 30 days.
// - `platforms` are v1 identifiers; `venue_e`, `venue_f` and `venue_g` are accepted and match nothing (no
//   feed of theirs is followed). `platformMarketId` is the venue's own id of the contract.
// - `direction` is buy/sell and the side: `_yes` for a contract's first side (Yes, or venue_b's first
//   outcome), `_no` for its second. The sides' order is the intel pipeline's (every contract it has stored,
//   restored from the store at start and never retired), so a trade's direction does not change when its
//   market settles and its actor retires, nor for markets that settled during a backfill. `positionDelta`
//   is the trade's entry, `unknown` when the venue names no trader. `resolution` and `pnlUsd` are the
//   trade row's `result` (null while open) and `profit`.
// - `sportsLeagues` match the markets' sports kinds, case-insensitively, with `-` or spaces for `_`
//   (`nba`, `college-football`) and a few common names (NCAAF, NCAAB, EPL, MLS, UFC, F1, ATP, WTA, PGA);
//   a league that names no sports kind matches nothing; only sports markets match.
// - `keywords`: any one, as a case-insensitive substring of the market's title.
// - Free of the daily trade allowance (the Limits table charges v2 trade rows and stream frames only);
//   one request like any route.
import { Clock, Effect } from "effect"
import { TRADES_WINDOW_DAYS } from "../domain/limits.js"
import { type Direction, followedVenues, kindsOfLeagues, type V1EventCriteria, V1EventsRequest, V1EventsResponse, type WhaleEventRow } from "../domain/v1.js"
import { Markets, type MarketsService } from "../actors/markets/market-bus.js"
import type { MarketInfo } from "../domain/market-events.js"
import { sideIndexOf } from "../intel/backtest-store.js"
import { DAY_MS } from "../intel/config.js"
import { Intel, type IntelService } from "../intel/live.js"
import type { StoredTrade } from "../intel/pipeline.js"
import { isoOf } from "../intel/rows.js"
import { round6 } from "../numbers.js"
import type { TradeQuery } from "../intel/trade-index.js"
import { operation } from "./operation.js"

/** Where the order of a contract's sides is read: made by `contractSidesOf` (the registry alone knows live markets only). */
export interface ContractSides {
  readonly info: (ref: string) => MarketInfo | null | undefined
  readonly _tag: "ContractSides"
}

/**
 * The contracts' sides as stored: the intel pipeline's markets (restored from the store, never retired:
 * they hold every contract a stored trade is on), then the market registry's.
 */
export const contractSidesOf = (intel: IntelService, markets: MarketsService): ContractSides => ({
  _tag: "ContractSides",
  info: (ref) => intel.pipeline.info(ref) ?? markets.info(ref),
})

const directionOf = (sides: ContractSides, t: StoredTrade): Direction =>
  `${t.action}_${sideIndexOf(sides.info(t.contract), t.outcome) === 0 ? "yes" : "no"}`

export const whaleEventOf = (sides: ContractSides, t: StoredTrade): WhaleEventRow => ({
  id: t.id,
  platform: t.venue,
  platformMarketId: t.contract.startsWith(`${t.venue}:`) ? t.contract.slice(t.venue.length + 1) : t.contract,
  marketTitle: t.title,
  marketCategory: t.category,
  direction: directionOf(sides, t),
  outcomeName: t.outcome,
  amount: t.usd,
  price: t.price,
  positionDelta: t.entry ?? "unknown",
  detectedAt: isoOf(t.time),
  resolution: t.result === "open" ? null : t.result,
  pnlUsd: t.profit === null ? null : round6(t.profit), // the trade row's `profit`, rounded as it is
})

/**
 * The index query of the criteria, or null when they can match nothing. `from` (GET /v1/feed's `since`)
 * narrows the window further.
 */
export const whaleEventsQuery = (sides: ContractSides, c: Partial<V1EventCriteria> | undefined, now: number, from?: number): TradeQuery | null => {
  const venues = followedVenues(c?.platforms)
  if (venues !== undefined && venues.length === 0) return null
  const kinds = c?.sportsLeagues === undefined || c.sportsLeagues.length === 0 ? undefined : kindsOfLeagues(c.sportsLeagues)
  if (kinds !== undefined && kinds.length === 0) return null
  const directions = c?.directions === undefined || c.directions.length === 0 ? null : new Set(c.directions)
  const deltas = c?.eventTypes === undefined || c.eventTypes.length === 0 ? null : new Set(c.eventTypes)
  const keywords = c?.keywords === undefined || c.keywords.length === 0 ? null : c.keywords.map((k) => k.toLowerCase())
  const sinceDays = Math.min(c?.sinceDays ?? TRADES_WINDOW_DAYS, TRADES_WINDOW_DAYS)
  return {
    venue: venues, category: c?.categories, kind: kinds, action: "all", entry: "all",
    minUsd: c?.minAmountUsd, maxUsd: c?.maxAmountUsd, priceMin: c?.priceMin, priceMax: c?.priceMax,
    named: false, words: [], from: Math.max(now - sinceDays * DAY_MS, from ?? -Infinity), to: now, sort: "newest",
    accept: (t) =>
      (deltas === null || deltas.has(t.entry ?? "unknown")) &&
      (keywords === null || keywords.some((k) => t.title.toLowerCase().includes(k))) &&
      (directions === null || directions.has(directionOf(sides, t))),
  }
}

export const queryWhaleEvents = operation({
  name: "queryWhaleEvents", tool: "query_whale_events", method: "POST", path: "/v1/events", scope: "read",
  summary: "Whale events (v1 rows) matching the criteria, most recent first, paged by limit and offset",
  input: V1EventsRequest, output: V1EventsResponse,
  run: Effect.fn("V1Events.query")(function* (request) {
    const intel = yield* Intel
    const sides = contractSidesOf(intel, yield* Markets)
    const now = yield* Clock.currentTimeMillis
    const query = whaleEventsQuery(sides, request.criteria, now)
    const rows = query === null ? [] : intel.trades.page(query, undefined, request.offset + request.limit).slice(request.offset)
    return { events: rows.map((t) => whaleEventOf(sides, t)), limit: request.limit, offset: request.offset }
  }),
})
