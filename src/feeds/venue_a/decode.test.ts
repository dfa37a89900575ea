// venue_a decoder (Kalshi family): the recorded real frames, every payload generation of each
// message kind giving identical events, lifecycle, control frames and the taker handle.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { FeedEvent } from "../../domain/feed-events.js"
import type { Decoded } from "../../domain/feed-events.js"
import { decodeVenueA } from "./decode.js"
import { KalshiFrame, KalshiTicker, KalshiTrade } from "./frames.js"
import type { KalshiLifecycleMsg, KalshiTradeFp } from "./frames.js"

const REAL = new URL("../../../test/fixtures/feeds/real/", import.meta.url)
const lines = (name: string) => readFileSync(new URL(name, REAL), "utf8").split("\n").filter((l) => l.length > 0)
const AT = 1_800_000_000_000
const isFeedEvent = Schema.is(FeedEvent)

const clean = (decoded: Decoded): ReadonlyArray<FeedEvent> => {
  expect(decoded.rejected).toEqual([])
  expect(decoded.events.every(isFeedEvent)).toBe(true)
  return decoded.events
}
const only = <T extends FeedEvent["_tag"]>(decoded: Decoded, tag: T): Extract<FeedEvent, { _tag: T }> => {
  const events = clean(decoded)
  expect(events).toHaveLength(1)
  expect(events[0]?._tag).toBe(tag)
  return events[0] as Extract<FeedEvent, { _tag: T }>
}
const without = (o: Record<string, unknown>, keys: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)))
const envelope = (type: string, msg: Record<string, unknown>, seq = 3) => ({ type, sid: 2, seq, msg })

describe("venue_a real frames (ssmd, 2026-02-12)", () => {
  it("ticker: legacy cents and the dollar/fp fields decode to identical values on all 10", () => {
    for (const line of lines("ssmd-kalshi_ticker.jsonl")) {
      const frame = JSON.parse(line) as { type: string; sid: number; msg: Record<string, unknown> }
      const both = only(decodeVenueA(line, AT), "PriceReported")
      const legacy = decodeVenueA({ ...frame, msg: without(frame.msg, ["price_dollars", "yes_bid_dollars", "yes_ask_dollars", "volume_fp"]) }, AT)
      const fixed = decodeVenueA({ ...frame, msg: without(frame.msg, ["price", "yes_bid", "yes_ask", "volume"]) }, AT)
      expect(only(legacy, "PriceReported")).toEqual(both)
      expect(only(fixed, "PriceReported")).toEqual(both)
      // A market that never traded reports price 0 with volume 0: no last price.
      expect(both.price).toBe(Number(frame.msg["volume"]) === 0 ? null : Number(frame.msg["price"]) / 100)
      expect(both.bid).toBeLessThanOrEqual(both.ask ?? 0)
      expect(both.ts).toBe(1770897976000)
    }
  })

  it("ticker: the 3 untraded markets (price \"0.0000\", volume 0) have no last price, their book has bid and ask", () => {
    const untraded = lines("ssmd-kalshi_ticker.jsonl").map((line) => only(decodeVenueA(line, AT), "PriceReported")).filter((t) => t.volume === 0)
    expect(untraded).toHaveLength(3)
    for (const t of untraded) {
      expect(t.price).toBeNull()
      expect(t.bid).not.toBeNull()
    }
  })

  it("trade: all 10 decode as buys of the taker's outcome at that outcome's price; cents = dollars", () => {
    const trades = lines("ssmd-kalshi_trade.jsonl").map((line) => {
      const frame = JSON.parse(line) as { msg: Record<string, unknown> }
      const both = only(decodeVenueA(line, AT), "TradePrinted")
      const legacy = decodeVenueA({ ...frame, msg: without(frame.msg, ["yes_price_dollars", "no_price_dollars", "count_fp"]) }, AT)
      const fixed = decodeVenueA({ ...frame, msg: without(frame.msg, ["yes_price", "no_price", "count"]) }, AT)
      expect(only(legacy, "TradePrinted")).toEqual(both)
      expect(only(fixed, "TradePrinted")).toEqual(both)
      return both
    })
    expect(trades.filter((t) => t.outcome === "no")).toHaveLength(1)
    expect(trades.every((t) => t.action === "buy" && t.trader === null && t.txId === null)).toBe(true)
    expect(trades[1]).toMatchObject({
      contract: "KXBTCD-26FEB1217-T67749.99", tradeId: "d6af7817-8764-6afb-f5b7-ced5fda2581c",
      outcome: "no", price: 0.43, contracts: 90, ts: 1770897984000,
    })
  })
})

describe("venue_a frames.ts Schemas describe the real frames", () => {
  it("ticker and trade lines conform", () => {
    expect(lines("ssmd-kalshi_ticker.jsonl").every((l) => Schema.is(KalshiTicker)(JSON.parse(l)))).toBe(true)
    expect(lines("ssmd-kalshi_trade.jsonl").every((l) => Schema.is(KalshiTrade)(JSON.parse(l)))).toBe(true)
    expect(Schema.is(KalshiFrame)({ type: "orderbook_delta", sid: 2, seq: 3, msg: { market_ticker: "M", price_dollars: "0.960", delta_fp: "-54.00", side: "yes" } })).toBe(true)
  })
})

describe("venue_a orderbook_snapshot, three generations", () => {
  const market = { market_ticker: "FED-23DEC-T3.00", market_id: "9b0f6b43-5b68-4f9f-9f02-9a2d1b8ac1a1" }
  const cents = { ...market, yes: [[8, 300], [22, 333]], no: [[54, 20], [56, 146]] }
  const dollars = { ...market, yes_dollars: [["0.080", 300], ["0.220", 333]], no_dollars: [["0.540", 20], ["0.560", 146]] }
  const fp = { ...market, yes_dollars_fp: [["0.0800", "300.00"], ["0.2200", "333.00"]], no_dollars_fp: [["0.5400", "20.00"], ["0.5600", "146.00"]] }

  it("gives two mirrored BookSnapshots: yes asks = 1 − no bids, no asks = 1 − yes bids", () => {
    const events = clean(decodeVenueA(envelope("orderbook_snapshot", fp), AT))
    expect(events).toEqual([
      {
        _tag: "BookSnapshot", venue: "venue_a", ts: AT, receivedAt: AT, contract: "FED-23DEC-T3.00", outcome: "yes",
        bids: [{ price: 0.08, size: 300 }, { price: 0.22, size: 333 }],
        asks: [{ price: 0.46, size: 20 }, { price: 0.44, size: 146 }],
      },
      {
        _tag: "BookSnapshot", venue: "venue_a", ts: AT, receivedAt: AT, contract: "FED-23DEC-T3.00", outcome: "no",
        bids: [{ price: 0.54, size: 20 }, { price: 0.56, size: 146 }],
        asks: [{ price: 0.92, size: 300 }, { price: 0.78, size: 333 }],
      },
    ])
  })

  it("decodes cents, dollars (dual frames) and fixed point identically", () => {
    const expected = decodeVenueA(envelope("orderbook_snapshot", fp), AT)
    expect(decodeVenueA(envelope("orderbook_snapshot", cents), AT)).toEqual(expected)
    expect(decodeVenueA(envelope("orderbook_snapshot", { ...cents, ...dollars }), AT)).toEqual(expected)
    expect(decodeVenueA(envelope("orderbook_snapshot", { ...cents, ...dollars, ...fp }), AT)).toEqual(expected)
  })

  it("an absent key is an empty side", () => {
    const events = clean(decodeVenueA(envelope("orderbook_snapshot", { ...market, yes_dollars_fp: [["0.0800", "300.00"]] }), AT))
    expect(events).toMatchObject([
      { outcome: "yes", bids: [{ price: 0.08, size: 300 }], asks: [] },
      { outcome: "no", bids: [], asks: [{ price: 0.92, size: 300 }] },
    ])
  })
})

describe("venue_a orderbook_delta", () => {
  const market = { market_ticker: "FED-23DEC-T3.00", market_id: "9b0f6b43" }

  it("current: signed delta_fp → add-mode delta on the side's bids and the other outcome's asks", () => {
    const frame = envelope("orderbook_delta", { ...market, price_dollars: "0.960", delta_fp: "-54.00", side: "yes", ts: "2022-11-22T20:44:01Z", ts_ms: 1669149841000 })
    expect(only(decodeVenueA(frame, AT), "BookDelta")).toEqual({
      _tag: "BookDelta", venue: "venue_a", ts: 1669149841000, receivedAt: AT, contract: "FED-23DEC-T3.00", mode: "add",
      changes: [
        { outcome: "yes", side: "bid", price: 0.96, size: -54 },
        { outcome: "no", side: "ask", price: 0.04, size: -54 },
      ],
    })
  })

  it("legacy: cents price and integer delta, RFC 3339 time, give the same changes", () => {
    const legacy = only(decodeVenueA(envelope("orderbook_delta", { ...market, price: 37, delta: 12, side: "no", ts: "2022-11-22T20:44:01Z" }), AT), "BookDelta")
    const current = only(decodeVenueA(envelope("orderbook_delta", { ...market, price_dollars: "0.3700", delta_fp: "12.00", side: "no" }), AT), "BookDelta")
    expect(legacy.changes).toEqual(current.changes)
    expect(legacy.changes).toEqual([
      { outcome: "no", side: "bid", price: 0.37, size: 12 },
      { outcome: "yes", side: "ask", price: 0.63, size: 12 },
    ])
    expect(legacy.ts).toBe(Date.UTC(2022, 10, 22, 20, 44, 1))
    expect(current.ts).toBe(AT)
  })
})

describe("venue_a trade", () => {
  const current: KalshiTradeFp = {
    trade_id: "d91bc706", market_ticker: "HIGHNY-22DEC23-B53.5", yes_price_dollars: "0.3600", no_price_dollars: "0.6400",
    count_fp: "136.50", taker_outcome_side: "no", taker_book_side: "ask", is_block_trade: false, ts: 1669149841, ts_ms: 1669149841123,
    taker_handle: "whale_joe",
  }

  it("current shape: the taker's outcome, its price, fractional count, ts_ms and the handle", () => {
    expect(only(decodeVenueA(envelope("trade", current), AT), "TradePrinted")).toEqual({
      _tag: "TradePrinted", venue: "venue_a", ts: 1669149841123, receivedAt: AT, contract: "HIGHNY-22DEC23-B53.5",
      tradeId: "d91bc706", outcome: "no", action: "buy", price: 0.64, contracts: 136.5,
      trader: { id: "whale_joe", name: "whale_joe" }, txId: null,
    })
  })

  it("generation 1 (cents, taker_side) and the book side alone agree on the outcome", () => {
    const legacy = { trade_id: "t", market_ticker: "M", yes_price: 36, no_price: 64, count: 136, taker_side: "yes", ts: 1669149841 }
    expect(only(decodeVenueA(envelope("trade", legacy), AT), "TradePrinted")).toMatchObject({ outcome: "yes", price: 0.36, contracts: 136, ts: 1669149841000, trader: null })
    const bookSide = { trade_id: "t", market_ticker: "M", yes_price_dollars: "0.3600", count_fp: "1.00", taker_book_side: "ask", ts_ms: 5 }
    expect(only(decodeVenueA(envelope("trade", bookSide), AT), "TradePrinted")).toMatchObject({ outcome: "no", price: 0.64 })
  })

  it("rejects a trade without a side or with a zero count", () => {
    const { taker_outcome_side: _o, taker_book_side: _b, ...sideless } = current
    expect(decodeVenueA(envelope("trade", sideless), AT).rejected).toHaveLength(1)
    expect(decodeVenueA(envelope("trade", { ...current, count_fp: "0.00" }), AT).rejected).toHaveLength(1)
  })
})

describe("venue_a market_lifecycle_v2", () => {
  const base: KalshiLifecycleMsg = { market_ticker: "KXBTCD-26FEB1217-T67749.99", event_type: "created" }
  const lifecycle = (patch: Record<string, unknown>) =>
    decodeVenueA({ type: "market_lifecycle_v2", sid: 5, msg: { ...base, ...patch } }, AT)

  it("created → MarketListed with labels, rule, event, series and the category/kind convention", () => {
    const listed = only(lifecycle({
      open_ts: 1770894000, close_ts: 1770897600,
      additional_metadata: {
        title: "Bitcoin above 67,749.99 at 5pm?", yes_sub_title: "Above 67,749.99", no_sub_title: "At or below",
        rules_primary: "If the price is above …", event_ticker: "KXBTCD-26FEB1217", event_title: "Bitcoin at 5pm",
        category: "Crypto", kind: "bitcoin", series_ticker: "KXBTCD",
      },
    }), "MarketListed")
    expect(listed).toEqual({
      _tag: "MarketListed", venue: "venue_a", ts: AT, receivedAt: AT, contract: "KXBTCD-26FEB1217-T67749.99",
      event: "KXBTCD-26FEB1217", eventTitle: "Bitcoin at 5pm", title: "Bitcoin above 67,749.99 at 5pm?",
      category: "crypto", kind: "bitcoin",
      outcomes: [{ id: "yes", name: "Yes", label: "Above 67,749.99" }, { id: "no", name: "No", label: "At or below" }],
      rule: "If the price is above …", series: "KXBTCD", opensAt: 1770894000000, closesAt: 1770897600000, feeRate: null,
    })
  })

  it("created with no metadata still lists, titled by its ticker", () => {
    expect(only(lifecycle({}), "MarketListed")).toMatchObject({ title: base.market_ticker, category: null, kind: null, series: null })
  })

  it("determined / settled with yes or no → MarketSettled", () => {
    expect(only(lifecycle({ event_type: "determined", result: "yes", determination_ts: 1770897700 }), "MarketSettled"))
      .toMatchObject({ winner: "yes", ts: 1770897700000 })
    expect(only(lifecycle({ event_type: "settled", result: "no", settled_ts: 1770897800 }), "MarketSettled"))
      .toMatchObject({ winner: "no", ts: 1770897800000 })
    expect(only(lifecycle({ event_type: "settled", result: "scalar", settlement_value: "1.0000" }), "MarketSettled").winner).toBe("yes")
  })

  it("void: result \"void\" or \"\", or is_void → MarketVoided", () => {
    only(lifecycle({ event_type: "determined", result: "void" }), "MarketVoided")
    only(lifecycle({ event_type: "settled", result: "" }), "MarketVoided")
    only(lifecycle({ event_type: "settled", result: "scalar", settlement_value: "0.5000", is_void: true }), "MarketVoided")
  })

  it("closed → MarketClosed; a pause (deactivated), activated and metadata updates → nothing", () => {
    only(lifecycle({ event_type: "closed" }), "MarketClosed")
    expect(lifecycle({ event_type: "deactivated", is_deactivated: true })).toEqual({ events: [], rejected: [] })
    expect(lifecycle({ event_type: "activated" })).toEqual({ events: [], rejected: [] })
    expect(lifecycle({ event_type: "metadata_updated" })).toEqual({ events: [], rejected: [] })
  })

  it("close_date_updated → MarketRescheduled at the new close_ts; without close_ts it is rejected", () => {
    expect(only(lifecycle({ event_type: "close_date_updated", close_ts: 1770901200 }), "MarketRescheduled")).toEqual({
      _tag: "MarketRescheduled", venue: "venue_a", ts: AT, receivedAt: AT, contract: base.market_ticker, closesAt: 1770901200000,
    })
    expect(lifecycle({ event_type: "close_date_updated" }).rejected).toEqual([
      { _tag: "FrameRejected", venue: "venue_a", reason: "close_date_updated has no close_ts" },
    ])
  })

  it("rejects a partial scalar settlement and unknown event types", () => {
    expect(lifecycle({ event_type: "settled", result: "scalar", settlement_value: "0.3000" }).rejected).toHaveLength(1)
    expect(lifecycle({ event_type: "exploded" }).rejected).toHaveLength(1)
  })
})

describe("venue_a control frames and garbage", () => {
  it("command responses decode to nothing; a venue error is a rejection", () => {
    expect(decodeVenueA('{"id":1,"type":"subscribed","msg":{"channel":"orderbook_delta","sid":1}}', AT)).toEqual({ events: [], rejected: [] })
    expect(decodeVenueA('{"id":123,"sid":456,"seq":222,"type":"ok","msg":{"market_tickers":["M1"]}}', AT)).toEqual({ events: [], rejected: [] })
    expect(decodeVenueA('{"id":123,"type":"error","msg":{"code":6,"msg":"Already subscribed"}}', AT).rejected)
      .toEqual([{ _tag: "FrameRejected", venue: "venue_a", reason: "venue error 6: Already subscribed" }])
  })

  it("rejects unknown types, missing msg, arrays and bad prices", () => {
    for (const frame of ['{"type":"ticker_v2","sid":1,"msg":{}}', '{"type":"trade","sid":1}', "[]", "null",
      JSON.stringify(envelope("orderbook_delta", { market_ticker: "M", price_dollars: "1.5", delta_fp: "1", side: "yes" }))]) {
      const decoded = decodeVenueA(frame, AT)
      expect(decoded.events).toEqual([])
      expect(decoded.rejected).toHaveLength(1)
    }
  })
})
