// venue_b decoder: every recorded real frame, the burst replay, and one hand-written frame per kind
// and generation (the shapes in ./frames.ts).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { Book } from "../../actors/markets/book.js"
import { FeedEvent } from "../../domain/feed-events.js"
import type { BookDelta, BookSnapshot, Decoded, Level, MarketListed, TradeAttributed } from "../../domain/feed-events.js"
import { decodeVenueB } from "./decode.js"
import { VenueBBook, VenueBLastTradePrice, VenueBMarketMessage } from "./frames.js"
import type { VenueBMarketResolved, VenueBNewMarket, VenueBPriceChange, VenueBTradeRow } from "./frames.js"

const REAL = new URL("../../../test/fixtures/feeds/real/", import.meta.url)
const lines = (name: string) => readFileSync(new URL(name, REAL), "utf8").split("\n").filter((l) => l.length > 0)
const AT = 1_800_000_000_000
const isFeedEvent = Schema.is(FeedEvent)

const only = <T extends FeedEvent["_tag"]>(decoded: Decoded, tag: T): Extract<FeedEvent, { _tag: T }> => {
  expect(decoded.rejected).toEqual([])
  expect(decoded.events).toHaveLength(1)
  const event = decoded.events[0]
  expect(event?._tag).toBe(tag)
  return event as Extract<FeedEvent, { _tag: T }>
}

const asMap = (levels: ReadonlyArray<Level>) => new Map(levels.map((l) => [l.price, l.size]))

describe("venue_b real frames (ssmd, 2026-02-12)", () => {
  it("decodes all 10 book frames without rejection, levels as sent", () => {
    const counts = lines("ssmd-polymarket_book.jsonl").map((line) => {
      const book = only(decodeVenueB(line, AT), "BookSnapshot")
      const raw = JSON.parse(line) as { bids: Array<unknown>; asks: Array<unknown>; timestamp: string; market: string }
      expect(book.ts).toBe(Number(raw.timestamp))
      expect(book.contract).toBe(raw.market)
      expect(book.receivedAt).toBe(AT)
      expect(isFeedEvent(book)).toBe(true)
      return `${book.bids.length}/${book.asks.length}`
    })
    expect(counts).toEqual(["10/38", "26/0", "63/3", "38/38", "28/13", "45/6", "8/27", "17/61", "17/31", "46/8"])
  })

  it("reads best levels regardless of the venue's ascending/descending order", () => {
    const line = lines("ssmd-polymarket_book.jsonl").find((l) => l.includes('"asks":[]'))
    const book = new Book()
    const snapshot = only(decodeVenueB(line ?? "", AT), "BookSnapshot")
    book.applySnapshot(snapshot)
    expect(book.bestBid(snapshot.outcome)?.price).toBe(0.999)
    expect(book.bestAsk(snapshot.outcome)).toBeNull()
  })

  it("decodes all 10 last_trade_price frames as untraded-identity prints with their transaction", () => {
    const trades = lines("ssmd-polymarket_trade.jsonl").map((line) => only(decodeVenueB(line, AT), "TradePrinted"))
    expect(trades.filter((t) => t.action === "buy")).toHaveLength(6)
    expect(trades.filter((t) => t.action === "sell")).toHaveLength(4)
    expect(new Set(trades.map((t) => t.txId)).size).toBe(10)
    expect(new Set(trades.map((t) => t.tradeId)).size).toBe(10)
    expect(trades.every((t) => t.trader === null && isFeedEvent(t))).toBe(true)
    expect(trades[0]).toMatchObject({
      outcome: "1627500284739545390204314775735988068784669364445492030335161034375823784781",
      contract: "0x14002070e74acaf96f70c8dfb881586b156c814fac0c1ac417b84c6c76687d00",
      action: "sell", price: 0.46, contracts: 0.2, ts: 1770921571394,
      txId: "0xdfcc917bc39862f94f76f4d17224f87026c4d2c1b1b211a1e6e479059c59a5e9",
    })
    expect(trades.some((t) => t.contracts === 11.276594)).toBe(true)
  })
})

describe("venue_b frames.ts Schemas describe the real frames", () => {
  it("book, last_trade_price and every burst frame conform", () => {
    expect(lines("ssmd-polymarket_book.jsonl").every((l) => Schema.is(VenueBBook)(JSON.parse(l)))).toBe(true)
    expect(lines("ssmd-polymarket_trade.jsonl").every((l) => Schema.is(VenueBLastTradePrice)(JSON.parse(l)))).toBe(true)
    const burst = JSON.parse(readFileSync(new URL("polymarket-market-channel-burst.json", REAL), "utf8")) as Array<unknown>
    expect(burst.every((frame) => Schema.is(VenueBMarketMessage)(frame))).toBe(true)
  })
})

describe("venue_b real burst (nautilus_trader, 2026-09-29)", () => {
  const text = readFileSync(new URL("polymarket-market-channel-burst.json", REAL), "utf8")
  const frames = JSON.parse(text) as Array<Record<string, unknown>>
  const A = "76670567130917723816490572615540605537878462672464291990940067659127658071111"

  it("decodes the whole array frame: 2 books and 49 two-entry deltas, nothing rejected", () => {
    const decoded = decodeVenueB(text, AT)
    expect(decoded.rejected).toEqual([])
    expect(decoded.events.map((e) => e._tag)).toEqual(["BookSnapshot", ...Array(49).fill("BookDelta"), "BookSnapshot"])
    expect(decoded.events.every(isFeedEvent)).toBe(true)
  })

  it("rebuilds token A's closing book from the first book and A's price_change entries", () => {
    const book = new Book()
    const events = decodeVenueB(text, AT).events
    book.applySnapshot(events[0] as BookSnapshot)
    for (const event of events.slice(1, 50)) {
      const delta = event as BookDelta
      book.applyDelta({ ...delta, changes: delta.changes.filter((c) => c.outcome === A) })
    }
    const closing = events[50] as BookSnapshot
    expect(closing.outcome).toBe(A)
    expect(closing.bids).toHaveLength(23)
    expect(closing.asks).toHaveLength(23)
    expect(asMap(book.levels(A, "bid"))).toEqual(asMap(closing.bids))
    expect(asMap(book.levels(A, "ask"))).toEqual(asMap(closing.asks))
  })

  it("tolerates the transient crossing of frames 47–48 and agrees with the venue's best levels elsewhere", () => {
    const book = new Book()
    const tops: Array<string> = []
    let agree = 0
    for (const [i, frame] of frames.entries()) {
      for (const event of decodeVenueB(frame, AT).events) {
        if (event._tag === "BookSnapshot") book.applySnapshot(event)
        if (event._tag === "BookDelta") book.applyDelta({ ...event, changes: event.changes.filter((c) => c.outcome === A) })
      }
      const entry = (frame as unknown as VenueBPriceChange).price_changes?.find((c) => c.asset_id === A)
      const top = `${book.bestBid(A)?.price}/${book.bestAsk(A)?.price}`
      if (i >= 47 && i <= 49) tops.push(top)
      if (entry !== undefined && top === `${Number(entry.best_bid)}/${Number(entry.best_ask)}`) agree++
    }
    expect(tops).toEqual(["0.311/0.301", "0.301/0.301", "0.29/0.301"])
    expect(agree).toBe(47)
  })

  it("keeps each entry's own token: B's entries mirror A's at 1 − p", () => {
    const deltas = decodeVenueB(text, AT).events.filter((e): e is BookDelta => e._tag === "BookDelta")
    for (const delta of deltas) {
      const a = delta.changes.find((c) => c.outcome === A)
      const b = delta.changes.find((c) => c.outcome !== A)
      expect(delta.mode).toBe("set")
      expect(b?.price).toBeCloseTo(1 - (a?.price ?? 0), 9)
      expect(b?.side).toBe(a?.side === "bid" ? "ask" : "bid")
      expect(b?.size).toBe(a?.size)
    }
  })
})

describe("venue_b hand-written frames", () => {
  const market = "0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af"
  const token = "65818619657568813474341868652308942079804919287380422192892211131408793125422"
  const other = "48331043336612883890938759509493159234755048973500640148014422747788308965732"

  it("book with event_type, doc-style '.48' prices and a numeric timestamp", () => {
    const frame = {
      event_type: "book", asset_id: token, market, timestamp: 123456789000, hash: "0x0",
      bids: [{ price: ".48", size: "30" }, { price: ".50", size: "15" }],
      asks: [{ price: ".52", size: "25" }],
    }
    expect(only(decodeVenueB(frame, AT), "BookSnapshot")).toEqual({
      _tag: "BookSnapshot", venue: "venue_b", ts: 123456789000, receivedAt: AT, contract: market, outcome: token,
      bids: [{ price: 0.48, size: 30 }, { price: 0.5, size: 15 }], asks: [{ price: 0.52, size: 25 }],
    })
  })

  it("initial-dump book without event_type, legacy buys/sells, inside an array frame", () => {
    const frame = JSON.stringify([
      { asset_id: token, market, timestamp: "1", hash: "h", buys: [{ price: "0.4", size: "1" }], sells: [] },
      { asset_id: other, market, timestamp: "1", hash: "h", bids: [], asks: [{ price: "0.6", size: "2" }] },
    ])
    const decoded = decodeVenueB(frame, AT)
    expect(decoded.rejected).toEqual([])
    expect(decoded.events).toMatchObject([
      { _tag: "BookSnapshot", outcome: token, bids: [{ price: 0.4, size: 1 }], asks: [] },
      { _tag: "BookSnapshot", outcome: other, bids: [], asks: [{ price: 0.6, size: 2 }] },
    ])
  })

  it("current price_change: one delta, asset per entry, size 0 removes", () => {
    const frame: VenueBPriceChange = {
      event_type: "price_change", market, timestamp: "1790658674035",
      price_changes: [
        { asset_id: token, price: "0.301", size: "0", side: "BUY", hash: "a", best_bid: "0.3", best_ask: "0.397" },
        { asset_id: other, price: "0.699", size: "1000", side: "SELL", hash: "b", best_bid: "0.603", best_ask: "0.699" },
      ],
    }
    expect(only(decodeVenueB(frame, AT), "BookDelta")).toEqual({
      _tag: "BookDelta", venue: "venue_b", ts: 1790658674035, receivedAt: AT, contract: market, mode: "set",
      changes: [
        { outcome: token, side: "bid", price: 0.301, size: 0 },
        { outcome: other, side: "ask", price: 0.699, size: 1000 },
      ],
    })
  })

  it("legacy price_change: top-level asset_id and changes[]", () => {
    const frame = `{"asset_id":"${token}","changes":[{"price":"0.4","side":"SELL","size":"3300"}],"event_type":"price_change","market":"${market}","timestamp":"1729084877448","hash":"3cd4d6"}`
    expect(only(decodeVenueB(frame, AT), "BookDelta").changes).toEqual([{ outcome: token, side: "ask", price: 0.4, size: 3300 }])
  })

  it("last_trade_price without transaction_hash still prints, with txId null", () => {
    const frame = { event_type: "last_trade_price", asset_id: token, market, price: "0.5", size: "10", side: "BUY", timestamp: "5" }
    expect(only(decodeVenueB(frame, AT), "TradePrinted")).toMatchObject({ action: "buy", txId: null, trader: null, ts: 5 })
  })

  it("tick_size_change → TickSizeChanged; best_bid_ask is ignored", () => {
    const tick = { event_type: "tick_size_change", asset_id: token, market, old_tick_size: "0.01", new_tick_size: "0.001", timestamp: "7" }
    expect(only(decodeVenueB(tick, AT), "TickSizeChanged")).toMatchObject({ outcome: token, tickSize: 0.001, ts: 7 })
    const bba = { event_type: "best_bid_ask", asset_id: token, market, best_bid: "0.4", best_ask: "0.5", spread: "0.1", timestamp: "7" }
    expect(decodeVenueB(bba, AT)).toEqual({ events: [], rejected: [] })
  })

  const listing: VenueBNewMarket = {
    event_type: "new_market", id: "1031769", question: "Will BTC close above 100k?", market, slug: "btc-100k",
    description: "Resolves Yes if …", assets_ids: [token, other], outcomes: ["Up", "Down"],
    event_message: { id: "9001", ticker: "btc", slug: "btc", title: "Bitcoin daily" },
    tags: ["Crypto"], fees_enabled: true, fee_schedule: { exponent: 1, rate: "0.07", taker_only: true, rebate_rate: 0.2 },
    timestamp: "1766790415550", category: "crypto", kind: "bitcoin", series: "btc-updown-daily",
    start_date: "2026-01-01T00:00:00Z", end_date: 1767312000000,
  }

  it("new_market → MarketListed with the simulator's category/kind/series convention", () => {
    const listed: MarketListed = only(decodeVenueB(listing, AT), "MarketListed")
    expect(listed).toEqual({
      _tag: "MarketListed", venue: "venue_b", ts: 1766790415550, receivedAt: AT, contract: market,
      event: "9001", eventTitle: "Bitcoin daily", title: "Will BTC close above 100k?", category: "crypto", kind: "bitcoin",
      outcomes: [{ id: token, name: "Up", label: "Up" }, { id: other, name: "Down", label: "Down" }],
      rule: "Resolves Yes if …", series: "btc-updown-daily", opensAt: Date.UTC(2026, 0, 1), closesAt: 1767312000000,
      feeRate: 0.07,
    })
    expect(isFeedEvent(listed)).toBe(true)
  })

  it("new_market without the extension fields falls back on tags; a contradicting kind is dropped", () => {
    const { category: _c, kind: _k, series: _s, start_date: _o, end_date: _e, timestamp: _t, ...real } = listing
    expect(only(decodeVenueB({ ...real, tags: ["Sports", "NBA"] }, AT), "MarketListed")).toMatchObject({
      category: "sports", kind: "nba", series: null, opensAt: null, closesAt: null, ts: AT,
    })
    expect(only(decodeVenueB({ ...real, category: "politics", kind: "nba" }, AT), "MarketListed")).toMatchObject({
      category: "politics", kind: null,
    })
    expect(only(decodeVenueB({ ...real, fees_enabled: false }, AT), "MarketListed").feeRate).toBe(0)
  })

  it("market_resolved → MarketSettled with the winning token", () => {
    const frame: VenueBMarketResolved = { ...listing, event_type: "market_resolved", winning_asset_id: other, winning_outcome: "Down" }
    expect(only(decodeVenueB(frame, AT), "MarketSettled")).toEqual({
      _tag: "MarketSettled", venue: "venue_b", ts: 1766790415550, receivedAt: AT, contract: market, winner: other,
    })
  })

  it("market_resolved without a winning asset (the 50-50 resolution) → MarketVoided", () => {
    // The simulator's void: empty winner, "50-50", even outcome prices (see ./frames.ts).
    const frame: VenueBMarketResolved = {
      ...listing, event_type: "market_resolved", winning_asset_id: "", winning_outcome: "50-50", outcome_prices: ["0.5", "0.5"],
    }
    const voided = only(decodeVenueB(frame, AT), "MarketVoided")
    expect(voided).toEqual({ _tag: "MarketVoided", venue: "venue_b", ts: 1766790415550, receivedAt: AT, contract: market })
    expect(isFeedEvent(voided)).toBe(true)
    expect(Schema.is(VenueBMarketMessage)(frame)).toBe(true)
    const { winning_asset_id: _w, ...absent } = frame
    expect(only(decodeVenueB(JSON.stringify(absent), AT), "MarketVoided").contract).toBe(market)
    expect(only(decodeVenueB({ ...frame, winning_asset_id: null }, AT), "MarketVoided").contract).toBe(market)
    // A winner that is there but not a token id is still a bad frame, not a void.
    expect(decodeVenueB({ ...frame, winning_asset_id: 7 }, AT).rejected[0]?.reason).toMatch(/winning_asset_id/)
  })

  it("a size past a trillion contracts is rejected (1e308 overflowed to an Infinity the Schema refused; CI's property run)", () => {
    const row = {
      proxyWallet: "0xa0f21e6d351baa9185716b5c00c2925ed9621848", side: "BUY", asset: "1", conditionId: "0x1", price: 0.152,
      timestamp: 1781288632, title: "T", outcome: "Yes", outcomeIndex: 0, name: "", pseudonym: "P", transactionHash: "0xc3",
    }
    expect(decodeVenueB([{ ...row, size: 1e308 }], AT).rejected.map((r) => r.reason)).toEqual(["size is not a size in 0..1000000000000"])
    expect(decodeVenueB([{ ...row, size: 1e12 }], AT).events).toHaveLength(1)
  })

  it("PONG is a heartbeat: nothing decoded, nothing rejected", () => {
    expect(decodeVenueB("PONG", AT)).toEqual({ events: [], rejected: [] })
  })

  describe("trades feed (Data-API Trade rows)", () => {
    const wallet = "0xa0f21e6d351baa9185716b5c00c2925ed9621848"
    const row: VenueBTradeRow = {
      proxyWallet: wallet, side: "BUY", asset: token, conditionId: market, size: 368, price: 0.8299999966799987,
      timestamp: 1781288632, title: "Will JD Vance win?", slug: "vance", eventSlug: "2028", outcome: "Yes",
      outcomeIndex: 0, name: "whale42", pseudonym: "Ultimate-Precedence", transactionHash: "0xc371",
    }

    it("a row → TradeAttributed: wallet id, public name, seconds to ms, float noise removed", () => {
      const attributed: TradeAttributed = only(decodeVenueB(row, AT), "TradeAttributed")
      expect(attributed).toEqual({
        _tag: "TradeAttributed", venue: "venue_b", ts: 1781288632000, receivedAt: AT, contract: market, outcome: token,
        txId: "0xc371", trader: { id: wallet, name: "whale42" }, action: "buy", price: 0.83, contracts: 368,
      })
    })

    it("a checksummed (mixed-case) wallet is the same trader as its lower-case form", () => {
      const checksummed = "0xA0F21E6d351BAA9185716B5c00C2925eD9621848"
      expect(only(decodeVenueB({ ...row, proxyWallet: checksummed }, AT), "TradeAttributed").trader.id).toBe(wallet)
    })

    it("a wallet address is never a name: pseudonym, else null", () => {
      const name = (patch: Partial<VenueBTradeRow>) =>
        only(decodeVenueB({ ...row, ...patch }, AT), "TradeAttributed").trader.name
      expect(name({ name: "" })).toBe("Ultimate-Precedence")
      expect(name({ name: `0xA0F21E6d351BAA9185716B5c00C2925eD9621848-1781288632123` })).toBe("Ultimate-Precedence")
      expect(name({ name: wallet })).toBe("Ultimate-Precedence")
      expect(name({ name: "", pseudonym: "" })).toBeNull()
      expect(name({ name: wallet, pseudonym: wallet })).toBeNull()
    })

    it("an array of rows (the /trades body), ccxt-style digit strings, and non-trade /activity rows", () => {
      const decoded = decodeVenueB(JSON.stringify([
        { ...row, size: "368", price: "0.152", timestamp: "1781288632", outcomeIndex: "0", side: "SELL" },
        { ...row, type: "REDEEM", side: "", asset: "" },
      ]), AT)
      expect(decoded.rejected).toEqual([])
      expect(decoded.events).toMatchObject([{ _tag: "TradeAttributed", action: "sell", price: 0.152, contracts: 368 }])
    })
  })

  describe("rejections", () => {
    const rejects = (frame: unknown) => {
      const decoded = decodeVenueB(frame, AT)
      expect(decoded.events).toEqual([])
      expect(decoded.rejected).toHaveLength(1)
      expect(decoded.rejected[0]?.venue).toBe("venue_b")
      return decoded.rejected[0]?.reason
    }
    const book = { event_type: "book", asset_id: token, market, timestamp: "1", bids: [{ price: "0.4", size: "1" }], asks: [] }

    it("rejects malformed frames with a reason instead of throwing", () => {
      expect(rejects("{not json")).toBe("not JSON")
      expect(rejects({ ...book, bids: [{ price: "1.2", size: "1" }] })).toMatch(/price/)
      expect(rejects({ ...book, bids: [{ price: "0x1", size: "1" }] })).toMatch(/price/)
      expect(rejects({ ...book, bids: [{ price: "0.4", size: "-1" }] })).toMatch(/size/)
      expect(rejects({ ...book, market: undefined })).toMatch(/market/)
      expect(rejects({ ...book, timestamp: "soon" })).toMatch(/timestamp/)
      expect(rejects({ event_type: "mystery" })).toMatch(/unknown event_type/)
      expect(rejects({ hello: 1 })).toMatch(/event_type/)
      expect(rejects(42)).toMatch(/not an object/)
    })

    it("rejects one bad object of an array frame and keeps the others", () => {
      const decoded = decodeVenueB([book, { ...book, bids: "x" }, book], AT)
      expect(decoded.events).toHaveLength(2)
      expect(decoded.rejected).toHaveLength(1)
    })
  })
})
