// GET /v2/positions (list_positions): the sides winning traders hold, from Intel's position rows (rebuilt
// every few minutes), with the shared filters, price, size, holder-count and record filters, three
// sorts and keyset pages. Each holder on a returned row (`lead` and every `others` entry) counts one
// trade toward the account's 5,000 a day.
//
// Decisions (README "Positions"):
// - `trader` keeps rows where any holder is one of the traders; `market` the row's market ref (event
//   or contract) or its contract; `outcome` (needs exactly one `market`) its name or label.
// - `priceMin`/`priceMax` test the current price; rows without a recent price drop out when either is
//   set. `minUsd` tests the dollars on the side; `minTraders` counts winning holders (rows on venues
//   that do not name traders have none, so any `minTraders` removes them).
// - Sorts: `size` = dollars held, `newest` = latest buy, `move` = |move1h| (rows without a reading
//   last); each highest first, ties by market, contract and outcome.
// - Allowance: counter `positions:<accountId>:<UTC day>`. A request when nothing remains, or whose page
//   holds more holders than remain, is QUOTA_EXCEEDED (retry-after = seconds to midnight UTC) and
//   nothing is charged; the sentence says how many remain, so a smaller `limit` can still be asked.
import { Clock, Context, DateTime, Effect, Option, Schema } from "effect"
import { QuotaExceeded } from "../domain/errors.js"
import { DAILY_POSITIONS_ALLOWANCE } from "../domain/limits.js"
import type { MarketObject } from "../domain/market-object.js"
import { WhalePositionRow } from "../domain/position.js"
import { Intel, type IntelService } from "../intel/live.js"
import { positionRowOf } from "../intel/rows.js"
import type { PositionRowData } from "../intel/winning.js"
import { Counters } from "../store/counters.js"
import { checkOutcome, checkRange, outcomeMatches, SharedFilters, sharedMatch } from "./filters.js"
import { listing, type OperationContext } from "./operation.js"
import { PageParams, paginate } from "./paging.js"
import { BooleanParam, IntParam, NumberParam } from "./params.js"

export const ListPositionsInput = Schema.Struct({
  ...SharedFilters,
  priceMin: Schema.optional(NumberParam("priceMin", 0, 1)),
  priceMax: Schema.optional(NumberParam("priceMax", 0, 1)),
  minUsd: Schema.optional(NumberParam("minUsd", 0, 1e12)),
  minTraders: Schema.optional(IntParam("minTraders", 1, 100)),
  backed: Schema.optional(BooleanParam("backed")),
  sort: Schema.optionalWith(Schema.Literal("size", "newest", "move"), { default: () => "size" as const }),
  ...PageParams,
})
export type ListPositionsInput = typeof ListPositionsInput.Type

const holdersOf = (r: PositionRowData): number => (r.lead === null ? 0 : 1) + r.others.length

type PositionKey = readonly [number, string]
const PositionKeySchema = Schema.Tuple(Schema.Number, Schema.String)

const idOf = (r: PositionRowData): string => `${r.market}\u0000${r.contract}\u0000${r.outcome}`

const keyOf = (sort: ListPositionsInput["sort"], r: PositionRowData): PositionKey => {
  const value = sort === "size" ? r.usd : sort === "newest" ? r.lastBoughtAt
    : r.activity?.move1h == null ? -1 : Math.abs(r.activity.move1h)
  return [-value, idOf(r)]
}

const compare = (a: PositionKey, b: PositionKey): number => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

const matches = (input: ListPositionsInput, r: PositionRowData, market: MarketObject): boolean => {
  const holders = [...(r.lead === null ? [] : [r.lead]), ...r.others]
  const shared = { ...input, trader: undefined, outcome: undefined }
  return sharedMatch(shared, { venue: market.venue, category: market.category, kind: market.kind, market: r.market, contract: r.contract }) &&
    (input.trader === undefined || input.trader.length === 0 || holders.some((h) => input.trader?.includes(h.ref) === true)) &&
    (input.outcome === undefined || outcomeMatches(input.outcome, r.outcome, r.outcomeLabel ?? undefined)) &&
    ((input.priceMin === undefined && input.priceMax === undefined) ||
      (r.price !== null && (input.priceMin === undefined || r.price >= input.priceMin) && (input.priceMax === undefined || r.price <= input.priceMax))) &&
    (input.minUsd === undefined || r.usd >= input.minUsd) &&
    (input.minTraders === undefined || holders.length >= input.minTraders) &&
    (input.backed !== true || r.record !== null)
}

const marketOf = (intel: IntelService, r: PositionRowData): MarketObject | undefined => {
  const info = intel.pipeline.info(r.contract)
  if (info === undefined) return undefined
  return { ref: r.market, contract: r.contract, title: info.title, venue: info.venue, category: info.category, kind: info.kind }
}

// The positions allowance -------------------------------------------------------------------------

const DAY_MS = 86_400_000

/** Holders per account per UTC day. A Reference, so a test layer can shrink it. */
export class PositionsAllowanceLimit extends Context.Reference<PositionsAllowanceLimit>()("whalewatch/PositionsAllowanceLimit", {
  defaultValue: (): number => DAILY_POSITIONS_ALLOWANCE,
}) {}

const allowanceKey = (accountId: string, now: number) =>
  `positions:${accountId}:${DateTime.formatIsoDateUtc(DateTime.unsafeMake(Math.floor(now / DAY_MS) * DAY_MS))}`

/** Charges `holders` to the account's day, all or nothing; refuses any request once nothing remains. */
export const chargeHolders: (ctx: OperationContext, holders: number) => Effect.Effect<void, QuotaExceeded, Counters> =
  Effect.fnUntraced(function* (ctx: OperationContext, holders: number) {
    const counters = yield* Counters
    const limit = yield* PositionsAllowanceLimit
    const now = yield* Clock.currentTimeMillis
    const key = allowanceKey(ctx.principal.accountId, now)
    const after = yield* counters.incrBy(key, Math.max(0, holders), 2 * 86_400)
    const before = after - Math.max(0, holders)
    // A request when nothing remains is refused even if its page would hold no holder.
    if (after <= limit && before < limit) return
    if (holders > 0) yield* counters.decrBy(key, holders)
    const midnight = (Math.floor(now / DAY_MS) + 1) * DAY_MS
    const resetSeconds = Math.max(1, Math.ceil((midnight - now) / 1000))
    const remaining = Math.max(0, limit - before)
    const resets = `it resets at midnight UTC (${DateTime.formatIso(DateTime.unsafeMake(midnight))}, in ${resetSeconds} s)`
    return yield* new QuotaExceeded({
      error: remaining === 0
        ? `Daily positions allowance of ${limit} trades used up; ${resets}`
        : `This page holds ${holders} holders but ${remaining} of the daily positions allowance remain; ask for fewer rows, or wait: ${resets}`,
      retryAfter: resetSeconds,
    })
  })

export const listPositions = listing({
  name: "listPositions",
  tool: "list_positions",
  method: "GET",
  path: "/v2/positions",
  scope: "read",
  summary: "Open positions of traders with a winning record, on markets still trading",
  input: ListPositionsInput,
  row: WhalePositionRow,
  run: Effect.fnUntraced(function* (input: typeof ListPositionsInput.Type, ctx: OperationContext) {
    yield* checkOutcome(input)
    yield* checkRange("priceMin", input.priceMin, "priceMax", input.priceMax)
    const intel = yield* Intel
    const all = yield* intel.positions
    const rows: Array<{ readonly data: PositionRowData; readonly market: MarketObject; readonly key: PositionKey }> = []
    for (const data of all) {
      const market = marketOf(intel, data)
      if (market !== undefined && matches(input, data, market)) rows.push({ data, market, key: keyOf(input.sort, data) })
    }
    rows.sort((a, b) => compare(a.key, b.key))
    const page = yield* paginate({
      listing: "listPositions",
      input,
      ctx,
      key: PositionKeySchema,
      keyOf: (r: (typeof rows)[number]) => r.key,
      fetch: (after: Option.Option<PositionKey>, take: number) =>
        Effect.succeed((Option.isNone(after) ? rows : rows.filter((r) => compare(r.key, after.value) > 0)).slice(0, take)),
    })
    yield* chargeHolders(ctx, page.data.reduce((n, r) => n + holdersOf(r.data), 0))
    return { data: page.data.map((r) => positionRowOf(r.data, r.market)), nextCursor: page.nextCursor }
  }),
})
