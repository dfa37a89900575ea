// The simulator's paged REST history per venue, for backfill. It covers HISTORY_DAYS of generated
// history before the simulation's start and everything the live model has done since. Rows are the
// venue's own frames (the same encoders as the sockets), so the feed decoders read them unchanged:
//
//   GET /history/<venue>/markets?cursor=&limit=              listings, in listing order
//   GET /history/<venue>/trades?since=&until=&cursor=&limit=  trades, in time order
//   GET /history/<venue>/settlements?since=&until=&cursor=&limit=  settlements and voids, in time order
//
// Response: `{ "data": [row, …], "nextCursor": string | null }`. `since` / `until` are ISO 8601 or epoch
// ms (inclusive; `until` defaults to the simulation's now); `limit` 1..1000, default 200; `cursor` is
// the previous page's `nextCursor`, valid only for the same listing and filters.
//
// Rows per venue:
//   venue_b     markets: `new_market` objects; trades: Data-API `Trade` rows (wallet, name,
//               pseudonym, transaction hash); settlements: `market_resolved` objects (void: empty
//               `winning_asset_id`, `winning_outcome` "50-50").
//   venue_a/d   markets: `market_lifecycle_v2` `created` envelopes; trades: `trade` envelopes (venue_a
//               with `taker_handle`); settlements: `determined` + `settled` envelopes (void: `settled`
//               with `result` "void"). Envelopes carry `sid: 0` and no `seq` (not a subscription).
//   venue_b_us  markets: `{marketData}` with the `market` listing extension; trades: `{trade}`;
//               settlements: `{marketData}` with state MARKET_STATE_SETTLED and `settlement`.
import { VENUES, type Venue } from "../domain/enums.js"
import type { Encoded } from "./encoded.js"
import type { Ended, Listed, Traded } from "./history-log.js"
import { created } from "./kalshi/encode.js"
import type { SimModel } from "./model.js"
import { encoderOf } from "./encode.js"
import { marketData } from "./venue_b_us/encode.js"
import { newMarket, tradeRow } from "./venue_b/encode.js"

export interface HttpAnswer {
  readonly status: number
  readonly body: unknown
}

const fail = (status: number, error: string): HttpAnswer => ({ status, body: { error } })

const kalshi = (venue: Venue): boolean => venue === "venue_a" || venue === "venue_d"
const envelope = (e: Encoded): unknown => ({ ...(e.frame as object), sid: 0 })

const listingRow = (venue: Venue, e: Listed): unknown => {
  if (venue === "venue_b") return newMarket(e.contract, e.ts).frame
  if (kalshi(venue)) return envelope(created(e.contract))
  return marketData(e.contract, e.ts, [], [], true).frame
}

const tradeRows = (venue: Venue, e: Traded): Array<unknown> => {
  if (venue === "venue_b") return [tradeRow(e.contract, e.trade).frame]
  return encoderOf(venue)(e).filter((x) => x.channel === "trade" || venue === "venue_b_us")
    .map((x) => (kalshi(venue) ? envelope(x) : x.frame))
}

const endingRows = (venue: Venue, e: Ended): Array<unknown> =>
  encoderOf(venue)(e).map((x) => (kalshi(venue) ? envelope(x) : x.frame))

const time = (value: string | null, what: string): number | string | null => {
  if (value === null || value === "") return null
  if (/^\d{1,16}$/.test(value)) return Number(value)
  const ms = Date.parse(value)
  return Number.isFinite(ms) ? ms : `${what} must be an ISO 8601 time or epoch milliseconds`
}

/** First index whose `ts` is at least `since` (rows are in time order). */
const lowerBound = <T extends { readonly ts: number }>(rows: ReadonlyArray<T>, since: number): number => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((rows[mid]?.ts ?? Infinity) < since) lo = mid + 1
    else hi = mid
  }
  return lo
}

const encodeCursor = (scope: string, index: number): string => Buffer.from(`${scope}|${index}`).toString("base64url")
const decodeCursor = (scope: string, cursor: string): number | null => {
  const text = Buffer.from(cursor, "base64url").toString()
  const at = text.lastIndexOf("|")
  if (at < 0 || text.slice(0, at) !== scope) return null
  const n = Number(text.slice(at + 1))
  return Number.isInteger(n) && n >= 0 ? n : null
}

/** Answers one history request, or null when the path is not a history path. */
export const historyRequest = (model: SimModel, path: string, query: URLSearchParams): HttpAnswer | null => {
  const m = /^\/history\/([a-z_]+)\/(markets|trades|settlements)\/?$/.exec(path)
  if (m === null) return null
  const venue = VENUES.find((v) => v === m[1])
  if (venue === undefined) return fail(404, `venue must be one of ${VENUES.join(", ")}`)
  const what = m[2] as "markets" | "trades" | "settlements"
  const limitText = query.get("limit")
  const limit = limitText === null ? 200 : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return fail(400, "limit must be an integer from 1 to 1000")
  const since = time(query.get("since"), "since")
  const until = time(query.get("until"), "until")
  if (typeof since === "string") return fail(400, since)
  if (typeof until === "string") return fail(400, until)
  const from = since ?? -Infinity
  const to = until ?? model.now
  const scope = `${what}|${venue}|${from}|${to}`
  const cursorText = query.get("cursor")
  const cursor = cursorText === null || cursorText === "" ? null : decodeCursor(scope, cursorText)
  if (cursorText !== null && cursorText !== "" && cursor === null) return fail(400, "cursor is not a cursor of this listing")

  const page = <T extends { readonly ts: number }>(rows: ReadonlyArray<T>, keep: (row: T) => boolean, encode: (row: T) => Array<unknown>): HttpAnswer => {
    const data: Array<unknown> = []
    let i = cursor ?? (what === "markets" ? 0 : lowerBound(rows, from))
    let taken = 0
    for (; i < rows.length && taken < limit; i++) {
      const row = rows[i] as T
      if (what !== "markets" && row.ts > to) {
        i = rows.length
        break
      }
      if (!keep(row)) continue
      data.push(...encode(row))
      taken++
    }
    const more = i < rows.length && (what === "markets" || (rows[i]?.ts ?? Infinity) <= to)
    return { status: 200, body: { data, nextCursor: more ? encodeCursor(scope, i) : null } }
  }

  switch (what) {
    case "markets": return page(model.history.listings(venue), (e) => e.ts >= from && e.ts <= to, (e) => [listingRow(venue, e)])
    case "trades": return page(model.history.trades(venue), () => true, (e) => tradeRows(venue, e))
    case "settlements": return page(model.history.endings(venue), (e) => e.type !== "closed", (e) => endingRows(venue, e))
  }
}
