// venue_b decoder: one Polymarket market-channel or trades-feed frame → FeedEvents. Pure and total:
// a bad frame (or one bad object of an array frame) becomes a FrameRejected, never a throw; `PONG`
// is a heartbeat (nothing decoded, nothing rejected). Hand-written checks, not a Schema decode per
// frame: this is the ingest hot path (see bench/feeds.ts). Shapes: ./frames.ts.
import type { Decoded, FeedEvent, FeedOutcome, Level } from "../../domain/feed-events.js"
import { canonicalHandle } from "../../domain/refs.js"
import {
  EMPTY, NOT_JSON, array, bad, categoryKind, decimalOrNaN, decodeEach, epoch, epochOrNaN, isRecord, isoOrNaN,
  optionalString, parseText, price, record, rejectedOnly, size, string,
} from "../wire.js"
import { round6 } from "../../numbers.js"
import { scanPriceChange } from "./scan.js"

const VENUE = "venue_b" as const

/** Decodes frame text (`string`) or an already-parsed JSON value. */
export const decodeVenueB = (frame: unknown, receivedAt: number): Decoded => {
  if (typeof frame === "string") {
    if (frame === "PONG" || frame === "PING") return EMPTY
    const value = scanPriceChange(frame) ?? parseText(frame) // most frames: price_change, read without JSON.parse
    if (value === NOT_JSON) return rejectedOnly(VENUE, "not JSON")
    return decodeEach(VENUE, value, (item, out) => decodeObject(item, receivedAt, out))
  }
  return decodeEach(VENUE, frame, (item, out) => decodeObject(item, receivedAt, out))
}

const decodeObject = (item: unknown, receivedAt: number, out: Array<FeedEvent>): void => {
  const o = record(item, "frame")
  switch (o["event_type"]) {
    case "book": return book(o, receivedAt, out)
    case "price_change": return priceChange(o, receivedAt, out)
    case "last_trade_price": return lastTrade(o, receivedAt, out)
    case "tick_size_change": return tickSize(o, receivedAt, out)
    case "best_bid_ask": return // the book carries it, per token; PriceReported is a contract-wide Yes view
    case "new_market": return newMarket(o, receivedAt, out)
    case "market_resolved": return resolved(o, receivedAt, out)
    case undefined:
      if ("bids" in o || "asks" in o || "buys" in o || "sells" in o) return book(o, receivedAt, out)
      if ("proxyWallet" in o) return tradeRow(o, receivedAt, out)
      return bad("no event_type")
    default:
      return bad(`unknown event_type ${String(o["event_type"]).slice(0, 40)}`)
  }
}

const levels = (value: unknown, what: string): Array<Level> => {
  if (value === undefined) return []
  const list = array(value, what)
  const result = new Array<Level>(list.length)
  for (let i = 0; i < list.length; i++) {
    const level = list[i]
    if (!isRecord(level)) return bad(`${what} level is not an object`)
    result[i] = { price: price(level["price"], `${what} price`), size: size(level["size"], `${what} size`) }
  }
  return result
}

const book = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const bidsRaw = o["bids"] ?? o["buys"]
  const asksRaw = o["asks"] ?? o["sells"]
  if (bidsRaw === undefined && asksRaw === undefined) return bad("book without bids or asks")
  out.push({
    _tag: "BookSnapshot",
    venue: VENUE,
    ts: epoch(o["timestamp"], 1, "timestamp"),
    receivedAt,
    contract: string(o["market"], "market"),
    outcome: string(o["asset_id"], "asset_id"),
    bids: levels(bidsRaw, "bids"),
    asks: levels(asksRaw, "asks"),
  })
}

const bookSide = (value: unknown): "bid" | "ask" =>
  value === "BUY" ? "bid" : value === "SELL" ? "ask" : bad("side is not BUY or SELL")

const priceChange = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const ts = epoch(o["timestamp"], 1, "timestamp")
  const contract = string(o["market"], "market")
  const current = o["price_changes"]
  if (current !== undefined) {
    const entries = array(current, "price_changes")
    const changes = entries.map((entry) => {
      const e = record(entry, "price change")
      return {
        outcome: string(e["asset_id"], "asset_id"),
        side: bookSide(e["side"]),
        price: price(e["price"], "price"),
        size: size(e["size"], "size"),
      }
    })
    out.push({ _tag: "BookDelta", venue: VENUE, ts, receivedAt, contract, mode: "set", changes })
    return
  }
  // Legacy form (before 2025-09-15): one token per frame, `changes[]` without asset ids.
  const outcome = string(o["asset_id"], "asset_id")
  const changes = array(o["changes"], "changes").map((entry) => {
    const e = record(entry, "change")
    return { outcome, side: bookSide(e["side"]), price: price(e["price"], "price"), size: size(e["size"], "size") }
  })
  out.push({ _tag: "BookDelta", venue: VENUE, ts, receivedAt, contract, mode: "set", changes })
}

const action = (value: unknown): "buy" | "sell" =>
  value === "BUY" ? "buy" : value === "SELL" ? "sell" : bad("side is not BUY or SELL")

const lastTrade = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const outcome = string(o["asset_id"], "asset_id")
  const txId = optionalString(o["transaction_hash"])
  const ts = epoch(o["timestamp"], 1, "timestamp")
  const p = price(o["price"], "price")
  const contracts = size(o["size"], "size")
  if (contracts === 0) return bad("size is zero")
  out.push({
    _tag: "TradePrinted",
    venue: VENUE,
    ts,
    receivedAt,
    contract: string(o["market"], "market"),
    // No trade id on the wire: the transaction plus what it printed names the print.
    tradeId: `${txId ?? ts}:${outcome}:${String(o["price"])}:${String(o["size"])}`,
    outcome,
    action: action(o["side"]),
    price: p,
    contracts,
    trader: null,
    txId,
  })
}

const tickSize = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const tick = decimalOrNaN(o["new_tick_size"])
  if (!(tick > 0 && tick < 1)) return bad("new_tick_size is not a tick size")
  out.push({
    _tag: "TickSizeChanged",
    venue: VENUE,
    ts: epoch(o["timestamp"], 1, "timestamp"),
    receivedAt,
    contract: string(o["market"], "market"),
    outcome: string(o["asset_id"], "asset_id"),
    tickSize: tick,
  })
}

/** Listing times may be ISO text or epoch ms; absent or unreadable → null. */
const optionalTime = (value: unknown): number | null => {
  const ms = epochOrNaN(value, 1)
  if (Number.isFinite(ms)) return ms
  const iso = isoOrNaN(value)
  return Number.isFinite(iso) ? iso : null
}

/** `new_market` and `market_resolved` carry no reliable venue time: use it when present, else receipt. */
const eventTime = (o: Record<string, unknown>, receivedAt: number): number => {
  const ts = epochOrNaN(o["timestamp"], 1)
  return Number.isFinite(ts) ? ts : receivedAt
}

// The Gamma API sends some lists as JSON-encoded strings; the socket sends arrays. Accept both.
const stringPair = (value: unknown, what: string): readonly [string, string] => {
  let list = value
  if (typeof value === "string" && value.startsWith("[")) {
    try {
      list = JSON.parse(value)
    } catch {
      return bad(`${what} is not a list`)
    }
  }
  const items = array(list, what)
  if (items.length !== 2) return bad(`${what} does not name exactly two outcomes`)
  return [string(items[0], what), string(items[1], what)]
}

const feeRate = (o: Record<string, unknown>): number | null => {
  if (o["fees_enabled"] === false) return 0
  const schedule = o["fee_schedule"]
  if (!isRecord(schedule)) return null
  const rate = decimalOrNaN(schedule["rate"])
  return rate >= 0 && rate < 1 ? rate : null
}

const newMarket = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const ids = stringPair(o["assets_ids"] ?? o["clob_token_ids"], "assets_ids")
  const names = stringPair(o["outcomes"], "outcomes")
  const event = isRecord(o["event_message"]) ? o["event_message"] : null
  const eventId = event === null ? null : event["id"]
  const { category, kind } = categoryKind(o["category"], o["kind"], o["tags"])
  const outcome = (i: 0 | 1): FeedOutcome => ({ id: ids[i], name: names[i], label: names[i] })
  out.push({
    _tag: "MarketListed",
    venue: VENUE,
    ts: eventTime(o, receivedAt),
    receivedAt,
    contract: string(o["market"] ?? o["condition_id"], "market"),
    event: typeof eventId === "string" || typeof eventId === "number" ? String(eventId) : null,
    eventTitle: event === null ? null : optionalString(event["title"]),
    title: string(o["question"], "question"),
    category,
    kind,
    outcomes: [outcome(0), outcome(1)],
    rule: optionalString(o["description"]),
    series: optionalString(o["series"]),
    opensAt: optionalTime(o["start_date"]),
    closesAt: optionalTime(o["end_date"]),
    feeRate: feeRate(o),
  })
}

/** A resolution with no winning asset (empty or absent `winning_asset_id`) is a void (see ./frames.ts). */
const resolved = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const ts = eventTime(o, receivedAt)
  const contract = string(o["market"] ?? o["condition_id"], "market")
  const winner = o["winning_asset_id"]
  if (winner === undefined || winner === null || winner === "") {
    out.push({ _tag: "MarketVoided", venue: VENUE, ts, receivedAt, contract })
    return
  }
  out.push({ _tag: "MarketSettled", venue: VENUE, ts, receivedAt, contract, winner: string(winner, "winning_asset_id") })
}

// A wallet address is never a name; users without a username get `<wallet>-<ms>` as `name`.
const WALLETISH = /^0x[0-9a-fA-F]{40}(?:-\d+)?$/

const publicName = (o: Record<string, unknown>): string | null => {
  const name = optionalString(o["name"])
  if (name !== null && !WALLETISH.test(name)) return name
  const pseudonym = optionalString(o["pseudonym"])
  return pseudonym !== null && !WALLETISH.test(pseudonym) ? pseudonym : null
}

const tradeRow = (o: Record<string, unknown>, receivedAt: number, out: Array<FeedEvent>): void => {
  const type = o["type"]
  if (type !== undefined && type !== "TRADE") return // `/activity` rows: redeems, rebates, merges
  const wallet = canonicalHandle("venue_b", string(o["proxyWallet"], "proxyWallet"))
  const contracts = round6(size(o["size"], "size"))
  if (contracts === 0) return bad("size is zero")
  out.push({
    _tag: "TradeAttributed",
    venue: VENUE,
    ts: epoch(o["timestamp"], 1000, "timestamp"),
    receivedAt,
    contract: string(o["conditionId"], "conditionId"),
    outcome: string(o["asset"], "asset"),
    txId: string(o["transactionHash"], "transactionHash"),
    trader: { id: wallet, name: publicName(o) },
    action: action(o["side"]),
    // Data-API floats carry binary noise (0.8299999966799987); venue prices and sizes have ≤ 6 dp.
    price: round6(price(o["price"], "price")),
    contracts,
  })
}
