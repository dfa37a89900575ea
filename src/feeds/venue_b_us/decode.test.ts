// venue_b_us decoder: book (yes side as sent, no side derived), trades by taker intent, both the
// camelCase and the snake_case variants, heartbeats and rejections. No recorded real frames exist;
// these follow the venue's documented examples (venues.md §2).
import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { FeedEvent } from "../../domain/feed-events.js"
import type { Decoded } from "../../domain/feed-events.js"
import { decodeVenueBUs } from "./decode.js"
import { VenueBUsMarketDataFrame } from "./frames.js"
import type { VenueBUsListing, VenueBUsSnakeMarketDataFrame, VenueBUsSnakeTradeFrame, VenueBUsTradeFrame } from "./frames.js"

const AT = 1_800_000_000_000
const isFeedEvent = Schema.is(FeedEvent)
const usd = (value: string) => ({ value, currency: "USD" })
const clean = (decoded: Decoded): ReadonlyArray<FeedEvent> => {
  expect(decoded.rejected).toEqual([])
  expect(decoded.events.every(isFeedEvent)).toBe(true)
  return decoded.events
}

const book: VenueBUsMarketDataFrame = {
  requestId: "md-1", subscriptionType: "SUBSCRIPTION_TYPE_MARKET_DATA",
  marketData: {
    marketSlug: "btc-100k-2025",
    bids: [{ px: usd("0.555"), qty: "10.50" }, { px: usd("0.55"), qty: "3" }],
    offers: [{ px: usd("0.56"), qty: "7" }],
    state: "MARKET_STATE_OPEN",
    stats: { lastTradePx: usd("0.555"), sharesTraded: "100", openInterest: "50" },
    transactTime: "2024-01-15T10:30:00Z",
  },
}

describe("venue_b_us marketData", () => {
  it("→ the yes book as sent and the derived no book (no bid = 1 − yes offer, no ask = 1 − yes bid)", () => {
    const common = { venue: "venue_b_us", ts: Date.UTC(2024, 0, 15, 10, 30), receivedAt: AT, contract: "btc-100k-2025" }
    expect(clean(decodeVenueBUs(JSON.stringify(book), AT))).toEqual([
      { _tag: "BookSnapshot", ...common, outcome: "yes", bids: [{ price: 0.555, size: 10.5 }, { price: 0.55, size: 3 }], asks: [{ price: 0.56, size: 7 }] },
      { _tag: "BookSnapshot", ...common, outcome: "no", bids: [{ price: 0.44, size: 7 }], asks: [{ price: 0.445, size: 10.5 }, { price: 0.45, size: 3 }] },
    ])
  })

  it("the snake_case variant with numeric enums decodes identically", () => {
    const snake: VenueBUsSnakeMarketDataFrame = {
      request_id: "md-1", subscription_type: 1,
      market_data: { market_slug: "btc-100k-2025", bids: book.marketData.bids, offers: book.marketData.offers, state: 1, transact_time: "2024-01-15T10:30:00Z" },
    }
    expect(decodeVenueBUs(snake, AT)).toEqual(decodeVenueBUs(book, AT))
  })

  it("a closed-like state also yields MarketClosed", () => {
    const closed = { marketData: { ...book.marketData, state: "MARKET_STATE_CLOSED" } }
    expect(clean(decodeVenueBUs(closed, AT)).map((e) => e._tag)).toEqual(["BookSnapshot", "BookSnapshot", "MarketClosed"])
  })
})

describe("venue_b_us listing and settlement extensions (simulator conventions, ./frames.ts)", () => {
  const listing: VenueBUsListing = {
    slug: "btc-100k-2025", title: "Will BTC close above 100k?", category: "crypto", kind: "bitcoin", series: "btc-daily",
    outcomes: [{ id: "yes", name: "Yes", label: "Above" }, { id: "no", name: "No", label: "Below" }],
    event: { slug: "btc-daily-2025-01-15", title: "Bitcoin daily" },
    startTime: "2024-01-15T00:00:00Z", endTime: "2024-01-16T00:00:00.000Z",
  }
  const withListing: VenueBUsMarketDataFrame = { marketData: { ...book.marketData, market: listing } }
  const common = { venue: "venue_b_us", ts: Date.UTC(2024, 0, 15, 10, 30), receivedAt: AT, contract: "btc-100k-2025" }

  it("a frame carrying `market` → MarketListed first, then the books", () => {
    expect(Schema.is(VenueBUsMarketDataFrame)(withListing)).toBe(true)
    const events = clean(decodeVenueBUs(JSON.stringify(withListing), AT))
    expect(events.map((e) => e._tag)).toEqual(["MarketListed", "BookSnapshot", "BookSnapshot"])
    expect(events[0]).toEqual({
      _tag: "MarketListed", ...common, event: "btc-daily-2025-01-15", eventTitle: "Bitcoin daily",
      title: "Will BTC close above 100k?", category: "crypto", kind: "bitcoin",
      outcomes: [{ id: "yes", name: "Yes", label: "Above" }, { id: "no", name: "No", label: "Below" }],
      rule: null, series: "btc-daily", opensAt: Date.UTC(2024, 0, 15), closesAt: Date.UTC(2024, 0, 16), feeRate: null,
    })
    // Books are unchanged by the extension.
    expect(events.slice(1)).toEqual(clean(decodeVenueBUs(book, AT)))
  })

  it("the decoder is stateless: every frame with `market` lists again (an upsert downstream)", () => {
    const first = clean(decodeVenueBUs(withListing, AT))
    const again = clean(decodeVenueBUs(withListing, AT + 1))
    expect(again[0]).toEqual({ ...first[0], receivedAt: AT + 1 })
  })

  it("a minimal listing: ids stay yes/no, names default, null event and series, epoch-ms times, venue-style words", () => {
    const minimal = { marketData: { ...book.marketData, market: { title: "Lakers beat Celtics?", category: "Sports", kind: "NBA", series: null, event: null, endTime: 1705363200000 } } }
    expect(clean(decodeVenueBUs(minimal, AT))[0]).toMatchObject({
      _tag: "MarketListed", event: null, eventTitle: null, series: null, category: "sports", kind: "nba",
      outcomes: [{ id: "yes", name: "Yes", label: "Yes" }, { id: "no", name: "No", label: "No" }],
      opensAt: null, closesAt: 1705363200000,
    })
    // Outcome ids in the listing are informational: the books' ids are yes/no.
    const odd = { marketData: { ...book.marketData, market: { ...listing, outcomes: [{ id: "LAL", name: "Lakers" }, { id: "BOS", name: "Celtics" }] } } }
    expect(clean(decodeVenueBUs(odd, AT))[0]).toMatchObject({
      outcomes: [{ id: "yes", name: "Lakers", label: "Lakers" }, { id: "no", name: "Celtics", label: "Celtics" }],
    })
  })

  it("the snake_case variant carries the same extensions", () => {
    const snake: VenueBUsSnakeMarketDataFrame = {
      market_data: {
        market_slug: "btc-100k-2025", bids: book.marketData.bids, offers: book.marketData.offers, transact_time: "2024-01-15T10:30:00Z",
        market: listing, state: "MARKET_STATE_SETTLED", settlement: { result: "no" },
      },
    }
    expect(clean(decodeVenueBUs(snake, AT)).map((e) => e._tag)).toEqual(["MarketListed", "BookSnapshot", "BookSnapshot", "MarketClosed", "MarketSettled"])
  })

  const ended = (result: string): VenueBUsMarketDataFrame => ({
    marketData: { ...book.marketData, bids: [], offers: [], state: "MARKET_STATE_SETTLED", settlement: { result: result as "yes" } },
  })

  it("settlement yes / no → MarketSettled with that outcome, after MarketClosed", () => {
    for (const winner of ["yes", "no"] as const) {
      const events = clean(decodeVenueBUs(JSON.stringify(ended(winner)), AT))
      expect(events.map((e) => e._tag)).toEqual(["BookSnapshot", "BookSnapshot", "MarketClosed", "MarketSettled"])
      expect(events[3]).toEqual({ _tag: "MarketSettled", ...common, winner })
    }
  })

  it("settlement void → MarketVoided", () => {
    const events = clean(decodeVenueBUs(ended("void"), AT))
    expect(events.map((e) => e._tag)).toEqual(["BookSnapshot", "BookSnapshot", "MarketClosed", "MarketVoided"])
    expect(events[3]).toEqual({ _tag: "MarketVoided", ...common })
  })

  it("a malformed extension rejects the frame", () => {
    const frames = [
      ended("maybe"),
      { marketData: { ...book.marketData, settlement: "yes" } },
      { marketData: { ...book.marketData, market: { ...listing, title: "" } } },
      { marketData: { ...book.marketData, market: { ...listing, outcomes: [{ name: "Yes" }] } } },
      { marketData: { ...book.marketData, market: { ...listing, event: { title: "no slug" } } } },
      { marketData: { ...book.marketData, market: [] } },
    ]
    for (const frame of frames) {
      const decoded = decodeVenueBUs(frame, AT)
      expect(decoded.events).toEqual([])
      expect(decoded.rejected).toHaveLength(1)
    }
  })
})

describe("venue_b_us trade", () => {
  const trade = (taker: Record<string, unknown>): VenueBUsTradeFrame => ({
    trade: {
      marketSlug: "btc-100k-2025", price: usd("0.60"), quantity: usd("25"), tradeTime: "2024-01-15T10:30:01.250Z",
      maker: { side: "ORDER_SIDE_SELL", intent: "ORDER_INTENT_SELL_LONG" }, taker: taker as VenueBUsTradeFrame["trade"]["taker"],
    },
  })
  const printed = (taker: Record<string, unknown>) => {
    const events = clean(decodeVenueBUs(trade(taker), AT))
    expect(events).toHaveLength(1)
    return events[0]
  }

  it("BUY_LONG → buy yes at the price, no trader", () => {
    expect(printed({ side: "ORDER_SIDE_BUY", intent: "ORDER_INTENT_BUY_LONG" })).toMatchObject({
      _tag: "TradePrinted", venue: "venue_b_us", contract: "btc-100k-2025", outcome: "yes", action: "buy",
      price: 0.6, contracts: 25, trader: null, txId: null, ts: Date.UTC(2024, 0, 15, 10, 30, 1, 250),
    })
  })

  it("each intent names outcome and action; short intents trade no at 1 − p", () => {
    expect(printed({ side: "ORDER_SIDE_SELL", intent: "ORDER_INTENT_SELL_LONG" })).toMatchObject({ outcome: "yes", action: "sell", price: 0.6 })
    expect(printed({ side: "ORDER_SIDE_SELL", intent: "ORDER_INTENT_BUY_SHORT" })).toMatchObject({ outcome: "no", action: "buy", price: 0.4 })
    expect(printed({ side: "ORDER_SIDE_BUY", intent: "ORDER_INTENT_SELL_SHORT" })).toMatchObject({ outcome: "no", action: "sell", price: 0.4 })
    expect(printed({ side: "ORDER_SIDE_SELL" })).toMatchObject({ outcome: "yes", action: "sell", price: 0.6 })
  })

  it("snake_case with numeric enums and a trade id", () => {
    const snake: VenueBUsSnakeTradeFrame = {
      trade: { market_slug: "btc-100k-2025", trade_id: "T-9", price: usd("0.60"), quantity: usd("25"), trade_time: "2024-01-15T10:30:01.250Z", taker: { side: 2, intent: 3 } },
    }
    expect(clean(decodeVenueBUs(snake, AT))).toMatchObject([{ tradeId: "T-9", outcome: "no", action: "buy", price: 0.4 }])
  })

  it("derived trade ids are stable for the same frame", () => {
    const a = printed({ side: "ORDER_SIDE_BUY", intent: "ORDER_INTENT_BUY_LONG" })
    const b = printed({ side: "ORDER_SIDE_BUY", intent: "ORDER_INTENT_BUY_LONG" })
    expect(a?._tag === "TradePrinted" && b?._tag === "TradePrinted" && a.tradeId === b.tradeId).toBe(true)
  })
})

describe("venue_b_us control and garbage", () => {
  it("heartbeat and lite market data decode to nothing", () => {
    expect(decodeVenueBUs('{"heartbeat":{}}', AT)).toEqual({ events: [], rejected: [] })
    expect(decodeVenueBUs({ marketDataLite: { marketSlug: "x" } }, AT)).toEqual({ events: [], rejected: [] })
  })

  it("errors, unknown frames and bad values are rejections", () => {
    const reasons = [
      '{"requestId":"md-1","error":"market not found"}', '{"hello":1}', "[]", "nope",
      JSON.stringify({ marketData: { ...book.marketData, bids: [{ px: usd("1.5"), qty: "1" }] } }),
      JSON.stringify({ marketData: { ...book.marketData, transactTime: "yesterday" } }),
      JSON.stringify({ trade: { marketSlug: "m", price: usd("0.5"), quantity: usd("1"), tradeTime: "2024-01-15T10:30:00Z", taker: { side: "ORDER_SIDE_HOLD" } } }),
    ].map((frame) => {
      const decoded = decodeVenueBUs(frame, AT)
      expect(decoded.events).toEqual([])
      expect(decoded.rejected).toHaveLength(1)
      return decoded.rejected[0]?.reason
    })
    expect(reasons[0]).toMatch(/venue error/)
  })
})
