// Kalshi-family decoder (venue_a, venue_d): one WebSocket v2 frame → FeedEvents. Pure and total: a
// bad frame is a FrameRejected, never a throw. Sequence checking is not here (./sequence.ts, used
// by the socket). Kalshi books are bids only per side, so every book fact is emitted for both
// outcomes: a yes bid at p is a no ask at 1 − p. Shapes and conventions: ./frames.ts.
import type { BookDelta, Decoded, FeedEvent, FeedTrader, FrameRejected, Level } from "../../domain/feed-events.js"
import type { Venue } from "../../domain/enums.js"
import {
  EMPTY, MAX_SIZE, NOT_JSON, array, bad, categoryKind, complement, decimalOrNaN, epochOrNaN, isRecord, isoOrNaN, optionalString,
  parseText, reasonOf, record, rejectedOnly, rejection, string,
} from "../wire.js"
import type { ScannedDelta } from "./scan.js"

export interface KalshiVenue {
  readonly venue: Extract<Venue, "venue_a" | "venue_d">
  /** `msg` field carrying the taker's handle on trades, or null when the venue names no trader. */
  readonly traderField: string | null
}

export type KalshiDecoder = (frame: unknown, receivedAt: number) => Decoded

/** A decoder for one Kalshi-family venue; frame text (`string`) or an already-parsed JSON value. */
export const makeKalshiDecoder = (config: KalshiVenue): KalshiDecoder => (frame, receivedAt) => {
  let value = frame
  if (typeof frame === "string") {
    value = parseText(frame)
    if (value === NOT_JSON) return rejectedOnly(config.venue, "not JSON")
  }
  const events: Array<FeedEvent> = []
  try {
    decodeEnvelope(config, value, receivedAt, events)
  } catch (error) {
    return rejectedOnly(config.venue, reasonOf(error))
  }
  return events.length === 0 ? EMPTY : { events, rejected: EMPTY.rejected }
}

// Known message types that carry nothing for the feed: command responses (the socket reads those
// itself) and event-level channels.
const IGNORED: ReadonlySet<unknown> = new Set([
  "subscribed", "unsubscribed", "ok", "list_subscriptions", "event_lifecycle", "event_fee_update",
  "multivariate_market_lifecycle",
])

const decodeEnvelope = (config: KalshiVenue, value: unknown, receivedAt: number, out: Array<FeedEvent>): void => {
  const frame = record(value, "frame")
  const type = frame["type"]
  const venue = config.venue
  switch (type) {
    case "orderbook_delta": return delta(venue, record(frame["msg"], "msg"), receivedAt, out)
    case "trade": return trade(config, record(frame["msg"], "msg"), receivedAt, out)
    case "ticker": return ticker(venue, record(frame["msg"], "msg"), receivedAt, out)
    case "orderbook_snapshot": return snapshot(venue, record(frame["msg"], "msg"), receivedAt, out)
    case "market_lifecycle_v2": return lifecycle(venue, record(frame["msg"], "msg"), receivedAt, out)
    case "error": {
      const msg = isRecord(frame["msg"]) ? frame["msg"] : {}
      return bad(`venue error ${String(msg["code"])}: ${String(msg["msg"]).slice(0, 80)}`)
    }
    default:
      if (IGNORED.has(type)) return
      return bad(`unknown type ${String(type).slice(0, 40)}`)
  }
}

/** A price in dollars (text or number), else the legacy integer cents, else NaN. */
const dollarsOrCents = (dollars: unknown, cents: unknown): number => {
  if (dollars !== undefined) return decimalOrNaN(dollars)
  return typeof cents === "number" && Number.isInteger(cents) ? cents / 100 : Number.NaN
}

const priceOf = (dollars: unknown, cents: unknown, what: string): number => {
  const p = dollarsOrCents(dollars, cents)
  return p >= 0 && p <= 1 ? p : bad(`${what} is not a price`)
}

const optionalPrice = (dollars: unknown, cents: unknown): number | null => {
  if (dollars === undefined && cents === undefined) return null
  const p = dollarsOrCents(dollars, cents)
  return p >= 0 && p <= 1 ? p : bad("price is not a price")
}

/** Venue time: `ts_ms`, else `ts` (epoch seconds, or RFC 3339 on deltas), else receipt time. */
const venueTime = (msg: Record<string, unknown>, receivedAt: number): number => timeOf(msg["ts_ms"], msg["ts"], receivedAt)

const timeOf = (tsMs: unknown, ts: unknown, receivedAt: number): number => {
  const ms = epochOrNaN(tsMs, 1)
  if (Number.isFinite(ms)) return ms
  if (ts === undefined) return receivedAt
  const seconds = epochOrNaN(ts, 1000)
  if (Number.isFinite(seconds)) return seconds
  const iso = isoOrNaN(ts)
  return Number.isFinite(iso) ? iso : bad("ts is not a time")
}

/** One side's bids from `[price, count]` pairs; `cents` for generation 1 integer prices. Zero counts are skipped. */
const bids = (value: unknown, cents: boolean, what: string): Array<Level> => {
  if (value === undefined || value === null) return []
  const list = array(value, what)
  const result: Array<Level> = []
  for (const pair of list) {
    if (!Array.isArray(pair) || pair.length < 2) return bad(`${what} level is not a pair`)
    const p = cents ? dollarsOrCents(undefined, pair[0]) : decimalOrNaN(pair[0])
    const count = decimalOrNaN(pair[1])
    if (!(p >= 0 && p <= 1)) return bad(`${what} price is not a price`)
    if (!(count >= 0 && count <= MAX_SIZE)) return bad(`${what} count is not a count`)
    if (count > 0) result.push({ price: p, size: count })
  }
  return result
}

const asAsks = (sideBids: ReadonlyArray<Level>): Array<Level> =>
  sideBids.map((level) => ({ price: complement(level.price), size: level.size }))

const snapshot = (venue: Venue, msg: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const contract = string(msg["market_ticker"], "market_ticker")
  let yes: Array<Level>
  let no: Array<Level>
  if ("yes_dollars_fp" in msg || "no_dollars_fp" in msg) {
    yes = bids(msg["yes_dollars_fp"], false, "yes_dollars_fp")
    no = bids(msg["no_dollars_fp"], false, "no_dollars_fp")
  } else if ("yes_dollars" in msg || "no_dollars" in msg) {
    yes = bids(msg["yes_dollars"], false, "yes_dollars")
    no = bids(msg["no_dollars"], false, "no_dollars")
  } else {
    yes = bids(msg["yes"], true, "yes")
    no = bids(msg["no"], true, "no")
  }
  const ts = venueTime(msg, receivedAt)
  out.push({ _tag: "BookSnapshot", venue, ts, receivedAt, contract, outcome: "yes", bids: yes, asks: asAsks(no) })
  out.push({ _tag: "BookSnapshot", venue, ts, receivedAt, contract, outcome: "no", bids: no, asks: asAsks(yes) })
}

const sideOf = (value: unknown, what: string): "yes" | "no" =>
  value === "yes" || value === "no" ? value : bad(`${what} is not yes or no`)

const other = (side: "yes" | "no"): "yes" | "no" => (side === "yes" ? "no" : "yes")

const delta = (venue: Venue, msg: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const change = msg["delta_fp"] !== undefined ? msg["delta_fp"] : msg["delta"]
  out.push(deltaOf(venue, msg["side"], msg["price_dollars"], msg["price"], change, msg["market_ticker"], msg["ts_ms"], msg["ts"], receivedAt))
}

/** One delta from its `msg` fields, however they were read (JSON.parse, or ./scan.ts). */
const deltaOf = (
  venue: Venue, sideText: unknown, dollars: unknown, cents: unknown, raw: unknown, ticker: unknown, tsMs: unknown, ts: unknown,
  receivedAt: number,
): BookDelta => {
  const side = sideOf(sideText, "side")
  const p = priceOf(dollars, cents, "price")
  const change = decimalOrNaN(raw)
  if (!(Math.abs(change) <= MAX_SIZE)) return bad("delta is not a number of contracts")
  return {
    _tag: "BookDelta",
    venue,
    ts: timeOf(tsMs, ts, receivedAt),
    receivedAt,
    contract: string(ticker, "market_ticker"),
    mode: "add",
    changes: [
      { outcome: side, side: "bid", price: p, size: change },
      { outcome: other(side), side: "ask", price: complement(p), size: change },
    ],
  }
}

/**
 * A delta frame read by ./scan.ts: the one event, or the one rejection, the venue's decoder gives for
 * the same frame parsed by JSON.parse (the same checks, in the same order), without building the
 * frame's objects first.
 */
export const decodeKalshiDelta = (venue: KalshiVenue["venue"], scanned: ScannedDelta, receivedAt: number): BookDelta | FrameRejected => {
  try {
    return deltaOf(venue, scanned.side, scanned.price_dollars, undefined, scanned.delta_fp, scanned.market_ticker, scanned.ts_ms,
      scanned.ts, receivedAt)
  } catch (error) {
    return rejection(venue, reasonOf(error))
  }
}

// The taker's outcome: `taker_outcome_side`, else the deprecated `taker_side`, else the book side
// (bid ≡ yes). A Kalshi taker selling yes is indistinguishable from one buying no: both are "buy
// no" here, at the no price, which is what the taker's money did.
const takerOutcome = (msg: Record<string, unknown>): "yes" | "no" => {
  const outcome = msg["taker_outcome_side"] ?? msg["taker_side"]
  if (outcome !== undefined) return sideOf(outcome, "taker_outcome_side")
  const book = msg["taker_book_side"]
  return book === "bid" ? "yes" : book === "ask" ? "no" : bad("trade has no taker side")
}

const traderOf = (config: KalshiVenue, msg: Record<string, unknown>): FeedTrader | null => {
  if (config.traderField === null) return null
  const handle = optionalString(msg[config.traderField])
  return handle === null ? null : { id: handle, name: handle }
}

const trade = (config: KalshiVenue, msg: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const outcome = takerOutcome(msg)
  const yesPrice = priceOf(msg["yes_price_dollars"], msg["yes_price"], "yes price")
  const noPrice = msg["no_price_dollars"] === undefined && msg["no_price"] === undefined
    ? complement(yesPrice)
    : priceOf(msg["no_price_dollars"], msg["no_price"], "no price")
  const count = decimalOrNaN(msg["count_fp"] !== undefined ? msg["count_fp"] : msg["count"])
  if (!(count > 0 && count <= MAX_SIZE)) return bad("count is not a positive count")
  out.push({
    _tag: "TradePrinted",
    venue: config.venue,
    ts: venueTime(msg, receivedAt),
    receivedAt,
    contract: string(msg["market_ticker"], "market_ticker"),
    tradeId: string(msg["trade_id"], "trade_id"),
    outcome,
    action: "buy",
    price: outcome === "yes" ? yesPrice : noPrice,
    contracts: count,
    trader: traderOf(config, msg),
    txId: null,
  })
}

const optionalCount = (fp: unknown, legacy: unknown): number | null => {
  if (fp === undefined && legacy === undefined) return null
  const n = decimalOrNaN(fp !== undefined ? fp : legacy)
  return n >= 0 && n <= MAX_SIZE ? n : bad("volume is not a count")
}

/**
 * A ticker's last price: none on a market that never traded (real tickers carry `"0.0000"` with volume 0
 * there), and never 0 (Kalshi trades between 0.01 and 0.99).
 */
const lastPrice = (price: number | null, volume: number | null): number | null =>
  price === null || price === 0 || volume === 0 ? null : price

const ticker = (venue: Venue, msg: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const volume = optionalCount(msg["volume_fp"], msg["volume"])
  out.push({
    _tag: "PriceReported",
    venue,
    ts: venueTime(msg, receivedAt),
    receivedAt,
    contract: string(msg["market_ticker"], "market_ticker"),
    price: lastPrice(optionalPrice(msg["price_dollars"], msg["price"]), volume),
    bid: optionalPrice(msg["yes_bid_dollars"], msg["yes_bid"]),
    ask: optionalPrice(msg["yes_ask_dollars"], msg["yes_ask"]),
    volume,
  })
}

const secondsOrNull = (value: unknown): number | null => {
  const ms = epochOrNaN(value, 1000)
  return Number.isFinite(ms) ? ms : null
}

const lifecycle = (venue: Venue, msg: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const contract = string(msg["market_ticker"], "market_ticker")
  const common = { venue, ts: receivedAt, receivedAt, contract } as const
  switch (msg["event_type"]) {
    case "created": return listed(venue, contract, msg, receivedAt, out)
    case "closed":
      out.push({ _tag: "MarketClosed", ...common })
      return
    case "determined":
    case "settled": return settled(msg, common, out)
    // A pause (`deactivated`) is not a close: the venue reactivates the market (`activated`) and trading
    // goes on, while a market state never goes from closed back to open.
    // The close time moved (the venue extends or brings forward a market): the listing keeps the new one.
    case "close_date_updated": {
      const closesAt = secondsOrNull(msg["close_ts"])
      if (closesAt === null) return bad("close_date_updated has no close_ts")
      out.push({ _tag: "MarketRescheduled", ...common, closesAt })
      return
    }
    case "activated":
    case "deactivated":
    case "price_level_structure_updated":
    case "metadata_updated":
      return
    default: return bad(`unknown lifecycle event_type ${String(msg["event_type"]).slice(0, 40)}`)
  }
}

const settled = (
  msg: Record<string, unknown>,
  common: { readonly venue: Venue; readonly ts: number; readonly receivedAt: number; readonly contract: string },
  out: Array<FeedEvent>,
): void => {
  const ts = secondsOrNull(msg["settled_ts"]) ?? secondsOrNull(msg["determination_ts"]) ?? common.ts
  const result = msg["result"]
  if (msg["is_void"] === true || result === "void" || result === "") {
    out.push({ _tag: "MarketVoided", ...common, ts })
    return
  }
  if (result === "yes" || result === "no") {
    out.push({ _tag: "MarketSettled", ...common, ts, winner: result })
    return
  }
  if (result === "scalar") {
    const value = decimalOrNaN(msg["settlement_value"])
    if (value === 1 || value === 0) {
      out.push({ _tag: "MarketSettled", ...common, ts, winner: value === 1 ? "yes" : "no" })
      return
    }
    return bad("scalar settlement of a binary market")
  }
  if (result === undefined) return // determined before the result is published
  return bad(`unknown result ${String(result).slice(0, 40)}`)
}

const listed = (
  venue: Venue,
  contract: string,
  msg: Record<string, unknown>,
  receivedAt: number,
  out: Array<FeedEvent>,
): void => {
  const meta = isRecord(msg["additional_metadata"]) ? msg["additional_metadata"] : {}
  const { category, kind } = categoryKind(meta["category"], meta["kind"], undefined)
  const openTs = secondsOrNull(msg["open_ts"])
  out.push({
    _tag: "MarketListed",
    venue,
    ts: receivedAt,
    receivedAt,
    contract,
    event: optionalString(meta["event_ticker"]),
    eventTitle: optionalString(meta["event_title"]),
    title: optionalString(meta["title"]) ?? optionalString(meta["name"]) ?? contract,
    category,
    kind,
    outcomes: [
      { id: "yes", name: "Yes", label: optionalString(meta["yes_sub_title"]) ?? "Yes" },
      { id: "no", name: "No", label: optionalString(meta["no_sub_title"]) ?? "No" },
    ],
    rule: optionalString(meta["rules_primary"]),
    series: optionalString(meta["series_ticker"]),
    opensAt: openTs,
    closesAt: secondsOrNull(msg["close_ts"]),
    feeRate: null,
  })
}
