// venue_b_us decoder: one Polymarket US markets-socket frame → FeedEvents. Pure and total: a bad
// frame is a FrameRejected, never a throw; `{"heartbeat":{}}` decodes to nothing. Both the
// camelCase and the snake_case variants are read. Shapes and conventions: ./frames.ts.
import type { Decoded, FeedEvent, FeedOutcome, Level } from "../../domain/feed-events.js"
import {
  EMPTY, NOT_JSON, array, bad, categoryKind, complement, decimalOrNaN, epochOrNaN, isRecord, isoOrNaN, optionalString,
  parseText, price, reasonOf, record, rejectedOnly, size, string,
} from "../wire.js"

const VENUE = "venue_b_us" as const

/** Decodes frame text (`string`) or an already-parsed JSON value. */
export const decodeVenueBUs = (frame: unknown, receivedAt: number): Decoded => {
  let value = frame
  if (typeof frame === "string") {
    value = parseText(frame)
    if (value === NOT_JSON) return rejectedOnly(VENUE, "not JSON")
  }
  const events: Array<FeedEvent> = []
  try {
    decodeObject(value, receivedAt, events)
  } catch (error) {
    return rejectedOnly(VENUE, reasonOf(error))
  }
  return events.length === 0 ? EMPTY : { events, rejected: EMPTY.rejected }
}

const decodeObject = (value: unknown, receivedAt: number, out: Array<FeedEvent>): void => {
  const o = record(value, "frame")
  const book = o["marketData"] ?? o["market_data"]
  if (book !== undefined) return marketData(record(book, "marketData"), receivedAt, out)
  const trade = o["trade"]
  if (trade !== undefined) return tradeFrame(record(trade, "trade"), receivedAt, out)
  if (o["heartbeat"] !== undefined) return
  if (o["marketDataLite"] !== undefined || o["market_data_lite"] !== undefined) return // top of book only
  if (o["error"] !== undefined) return bad(`venue error: ${String(JSON.stringify(o["error"])).slice(0, 80)}`)
  return bad("unknown frame")
}

/** `{value, currency}` (the venue's form) or bare decimal text / number. */
const money = (value: unknown): unknown => (isRecord(value) ? value["value"] : value)

const time = (value: unknown, what: string): number => {
  const iso = isoOrNaN(value)
  if (Number.isFinite(iso)) return iso
  const ms = epochOrNaN(value, 1)
  return Number.isFinite(ms) ? ms : bad(`${what} is not a time`)
}

const levels = (value: unknown, what: string): Array<Level> => {
  if (value === undefined) return []
  const list = array(value, what)
  const result = new Array<Level>(list.length)
  for (let i = 0; i < list.length; i++) {
    const level = record(list[i], `${what} level`)
    result[i] = { price: price(money(level["px"]), `${what} px`), size: size(level["qty"], `${what} qty`) }
  }
  return result
}

const mirrored = (side: ReadonlyArray<Level>): Array<Level> =>
  side.map((level) => ({ price: complement(level.price), size: level.size }))

const CLOSED_STATES: ReadonlySet<unknown> = new Set([
  "MARKET_STATE_CLOSED", "MARKET_STATE_HALTED", "MARKET_STATE_SUSPENDED", "MARKET_STATE_EXPIRED",
  "MARKET_STATE_SETTLED", "MARKET_STATE_TERMINATED",
])

const marketData = (m: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const contract = string(m["marketSlug"] ?? m["market_slug"], "marketSlug")
  const ts = time(m["transactTime"] ?? m["transact_time"], "transactTime")
  const bids = levels(m["bids"], "bids")
  const asks = levels(m["offers"], "offers")
  // Extensions (./frames.ts): the listing comes first, so the books never precede it.
  const listing = m["market"]
  if (listing !== undefined) listed(record(listing, "market"), contract, ts, receivedAt, out)
  out.push({ _tag: "BookSnapshot", venue: VENUE, ts, receivedAt, contract, outcome: "yes", bids, asks })
  out.push({
    _tag: "BookSnapshot", venue: VENUE, ts, receivedAt, contract, outcome: "no", bids: mirrored(asks), asks: mirrored(bids),
  })
  if (CLOSED_STATES.has(m["state"])) out.push({ _tag: "MarketClosed", venue: VENUE, ts, receivedAt, contract })
  const settlement = m["settlement"]
  if (settlement !== undefined) settled(record(settlement, "settlement"), contract, ts, receivedAt, out)
}

/** Listing times may be ISO text or epoch ms; absent or unreadable → null. */
const optionalTime = (value: unknown): number | null => {
  const iso = isoOrNaN(value)
  if (Number.isFinite(iso)) return iso
  const ms = epochOrNaN(value, 1)
  return Number.isFinite(ms) ? ms : null
}

const OUTCOME_IDS = ["yes", "no"] as const
const OUTCOME_NAMES = ["Yes", "No"] as const

const listed = (l: Record<string, unknown>, contract: string, ts: number, receivedAt: number, out: Array<FeedEvent>): void => {
  const sides = l["outcomes"] === undefined ? [] : array(l["outcomes"], "market outcomes")
  if (sides.length !== 0 && sides.length !== 2) return bad("market outcomes does not name exactly two outcomes")
  const outcome = (i: 0 | 1): FeedOutcome => {
    const side = sides[i]
    if (side === undefined) return { id: OUTCOME_IDS[i], name: OUTCOME_NAMES[i], label: OUTCOME_NAMES[i] }
    const o = record(side, "market outcome")
    const name = string(o["name"], "market outcome name")
    return { id: OUTCOME_IDS[i], name, label: optionalString(o["label"]) ?? name }
  }
  const event = l["event"] === undefined || l["event"] === null ? null : record(l["event"], "market event")
  const { category, kind } = categoryKind(l["category"], l["kind"], l["tags"])
  out.push({
    _tag: "MarketListed",
    venue: VENUE,
    ts,
    receivedAt,
    contract,
    event: event === null ? null : string(event["slug"], "market event slug"),
    eventTitle: event === null ? null : optionalString(event["title"]),
    title: string(l["title"], "market title"),
    category,
    kind,
    outcomes: [outcome(0), outcome(1)],
    rule: optionalString(l["rule"]),
    series: optionalString(l["series"]),
    opensAt: optionalTime(l["startTime"]),
    closesAt: optionalTime(l["endTime"]),
    feeRate: null,
  })
}

const settled = (s: Record<string, unknown>, contract: string, ts: number, receivedAt: number, out: Array<FeedEvent>): void => {
  const result = s["result"]
  if (result === "yes" || result === "no") {
    out.push({ _tag: "MarketSettled", venue: VENUE, ts, receivedAt, contract, winner: result })
    return
  }
  if (result === "void") {
    out.push({ _tag: "MarketVoided", venue: VENUE, ts, receivedAt, contract })
    return
  }
  return bad("settlement result is not yes, no or void")
}

type Taker = { readonly outcome: "yes" | "no"; readonly action: "buy" | "sell" }

const INTENTS: ReadonlyMap<unknown, Taker> = new Map<unknown, Taker>([
  ["ORDER_INTENT_BUY_LONG", { outcome: "yes", action: "buy" }], [1, { outcome: "yes", action: "buy" }],
  ["ORDER_INTENT_SELL_LONG", { outcome: "yes", action: "sell" }], [2, { outcome: "yes", action: "sell" }],
  ["ORDER_INTENT_BUY_SHORT", { outcome: "no", action: "buy" }], [3, { outcome: "no", action: "buy" }],
  ["ORDER_INTENT_SELL_SHORT", { outcome: "no", action: "sell" }], [4, { outcome: "no", action: "sell" }],
])
const SIDES: ReadonlyMap<unknown, Taker> = new Map<unknown, Taker>([
  ["ORDER_SIDE_BUY", { outcome: "yes", action: "buy" }], [1, { outcome: "yes", action: "buy" }],
  ["ORDER_SIDE_SELL", { outcome: "yes", action: "sell" }], [2, { outcome: "yes", action: "sell" }],
])

const takerOf = (value: unknown): Taker => {
  const taker = record(value, "taker")
  return INTENTS.get(taker["intent"]) ?? SIDES.get(taker["side"]) ?? bad("taker has no known intent or side")
}

const tradeFrame = (t: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const contract = string(t["marketSlug"] ?? t["market_slug"], "marketSlug")
  const timeRaw = t["tradeTime"] ?? t["trade_time"]
  const ts = time(timeRaw, "tradeTime")
  const yesPrice = price(money(t["price"]), "price")
  const contracts = size(money(t["quantity"]), "quantity")
  if (!(contracts > 0)) return bad("quantity is zero")
  const taker = takerOf(t["taker"])
  const id = t["tradeId"] ?? t["trade_id"]
  out.push({
    _tag: "TradePrinted",
    venue: VENUE,
    ts,
    receivedAt,
    contract,
    tradeId: typeof id === "string" && id.length > 0
      ? id
      : `${contract}:${String(timeRaw)}:${decimalOrNaN(money(t["price"]))}:${contracts}:${taker.outcome}${taker.action}`,
    outcome: taker.outcome,
    action: taker.action,
    price: taker.outcome === "yes" ? yesPrice : complement(yesPrice),
    contracts,
    trader: null,
    txId: null,
  })
}
