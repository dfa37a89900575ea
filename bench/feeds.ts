// Decode throughput per venue next to plain JSON.parse of the same frames, in the same run.
// Frames are generated here in each venue's current wire shape, mixed as a live feed is (mostly
// book deltas, then trades, some snapshots), from a fixed seed. Target: decode/parse ≥ 0.5.
// Run: node --import tsx bench/feeds.ts [framesPerVenue]
import { Book } from "../src/actors/markets/book.js"
import type { BookDelta, BookSnapshot, Decoded } from "../src/domain/feed-events.js"
import { decodeVenueA } from "../src/feeds/venue_a/decode.js"
import { decodeVenueB } from "../src/feeds/venue_b/decode.js"
import { decodeVenueBUs } from "../src/feeds/venue_b_us/decode.js"
import { decodeVenueD } from "../src/feeds/venue_d/decode.js"

const FRAMES = Number(process.argv[2] ?? 300_000)
const ROUNDS = 3

let seed = 20260929
const rand = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(rand() * items.length)] as T
const tick = (p: number, dp = 3): string => p.toFixed(dp)
const digits = (n: number): string => Array.from({ length: n }, () => Math.floor(rand() * 10)).join("")
const hex = (n: number): string => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(rand() * 16)]).join("")

// --- venue_b: Polymarket market channel -------------------------------------------------------
const venueBFrames = (): Array<string> => {
  const markets = Array.from({ length: 50 }, () => ({ market: `0x${hex(64)}`, yes: digits(77), no: digits(77) }))
  const levels = (from: number, to: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ price: tick(from + ((to - from) * i) / n), size: (rand() * 5000).toFixed(2) }))
  return Array.from({ length: FRAMES }, () => {
    const m = pick(markets)
    const r = rand()
    const ts = String(1790658661234 + Math.floor(rand() * 1e6))
    if (r < 0.7) {
      const p = 0.01 + rand() * 0.98
      const size = rand() < 0.3 ? "0" : (rand() * 2000).toFixed(2)
      return JSON.stringify({
        market: m.market,
        price_changes: [
          { asset_id: m.yes, price: tick(p), size, side: "BUY", hash: hex(40), best_bid: tick(p), best_ask: tick(p + 0.01) },
          { asset_id: m.no, price: tick(1 - p), size, side: "SELL", hash: hex(40), best_bid: tick(1 - p - 0.01), best_ask: tick(1 - p) },
        ],
        timestamp: ts,
        event_type: "price_change",
      })
    }
    if (r < 0.9) {
      return JSON.stringify({
        asset_id: pick([m.yes, m.no]), event_type: "last_trade_price", fee_rate_bps: "0", market: m.market,
        price: tick(0.01 + rand() * 0.98, 2), side: pick(["BUY", "SELL"]), size: (rand() * 500).toFixed(6), timestamp: ts,
        transaction_hash: `0x${hex(64)}`,
      })
    }
    return JSON.stringify({
      market: m.market, asset_id: m.yes, timestamp: ts, hash: hex(40),
      bids: levels(0.01, 0.45, 20), asks: levels(0.99, 0.46, 20), event_type: "book", tick_size: "0.001", last_trade_price: "0.455",
    })
  })
}

// --- venue_b_us: Polymarket US markets socket ---------------------------------------------------
const venueBUsFrames = (): Array<string> => {
  const slugs = Array.from({ length: 50 }, (_, i) => `nba-lal-bos-2026-01-${String(i).padStart(2, "0")}`)
  const usd = (value: string) => ({ value, currency: "USD" })
  return Array.from({ length: FRAMES }, () => {
    const slug = pick(slugs)
    const time = new Date(1790658661234 + Math.floor(rand() * 1e9)).toISOString()
    if (rand() < 0.6) {
      const mid = 0.2 + rand() * 0.6
      return JSON.stringify({
        requestId: "md-1", subscriptionType: "SUBSCRIPTION_TYPE_MARKET_DATA",
        marketData: {
          marketSlug: slug,
          bids: Array.from({ length: 5 }, (_, i) => ({ px: usd(tick(mid - 0.01 * (i + 1))), qty: (rand() * 900).toFixed(2) })),
          offers: Array.from({ length: 5 }, (_, i) => ({ px: usd(tick(mid + 0.01 * (i + 1))), qty: (rand() * 900).toFixed(2) })),
          state: "MARKET_STATE_OPEN",
          stats: { lastTradePx: usd(tick(mid)), sharesTraded: "100000", openInterest: "5000" },
          transactTime: time,
        },
      })
    }
    return JSON.stringify({
      requestId: "tr-1", subscriptionType: "SUBSCRIPTION_TYPE_TRADE",
      trade: {
        marketSlug: slug, price: usd(tick(0.05 + rand() * 0.9, 2)), quantity: usd(String(1 + Math.floor(rand() * 400))), tradeTime: time,
        maker: { side: "ORDER_SIDE_SELL", intent: "ORDER_INTENT_SELL_LONG" },
        taker: { side: "ORDER_SIDE_BUY", intent: pick(["ORDER_INTENT_BUY_LONG", "ORDER_INTENT_BUY_SHORT"]) },
      },
    })
  })
}

// --- venue_a / venue_d: Kalshi v2, fixed-point generation -----------------------------------------
const kalshiFrames = (handles: boolean): Array<string> => {
  const tickers = Array.from({ length: 50 }, (_, i) => ({ ticker: `KXBTCD-26FEB1217-T${67000 + i * 250}.99`, id: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}` }))
  let seq = 0
  const dollars = (p: number) => p.toFixed(4)
  return Array.from({ length: FRAMES }, () => {
    const t = pick(tickers)
    const r = rand()
    const tsMs = 1770897984000 + Math.floor(rand() * 1e6)
    if (r < 0.7) {
      return JSON.stringify({
        type: "orderbook_delta", sid: 2, seq: ++seq,
        msg: { market_ticker: t.ticker, market_id: t.id, price_dollars: dollars(0.01 + Math.floor(rand() * 98) / 100), delta_fp: ((rand() - 0.5) * 400).toFixed(2), side: pick(["yes", "no"]), ts_ms: tsMs },
      })
    }
    if (r < 0.9) {
      const yes = 0.01 + Math.floor(rand() * 98) / 100
      return JSON.stringify({
        type: "trade", sid: 3, seq: ++seq,
        msg: {
          trade_id: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`, market_ticker: t.ticker, yes_price_dollars: dollars(yes), no_price_dollars: dollars(1 - yes),
          count_fp: (1 + rand() * 300).toFixed(2), taker_outcome_side: pick(["yes", "no"]), taker_book_side: pick(["bid", "ask"]), is_block_trade: false,
          ts: Math.floor(tsMs / 1000), ts_ms: tsMs, ...(handles ? { taker_handle: `trader_${Math.floor(rand() * 5000)}` } : {}),
        },
      })
    }
    if (r < 0.95) {
      const bid = 0.01 + Math.floor(rand() * 90) / 100
      return JSON.stringify({
        type: "ticker", sid: 1,
        msg: {
          market_ticker: t.ticker, market_id: t.id, price_dollars: dollars(bid + 0.01), yes_bid_dollars: dollars(bid), yes_ask_dollars: dollars(bid + 0.02),
          volume_fp: "13446.00", open_interest_fp: "892.00", dollar_volume: 6723, dollar_open_interest: 446, yes_bid_size_fp: "14.00", yes_ask_size_fp: "84.00",
          last_trade_size_fp: "0.00", ts: Math.floor(tsMs / 1000), ts_ms: tsMs,
        },
      })
    }
    const side = (n: number) => Array.from({ length: n }, (_, i) => [dollars(0.01 + i * 0.02), (rand() * 900).toFixed(2)])
    return JSON.stringify({ type: "orderbook_snapshot", sid: 2, seq: ++seq, msg: { market_ticker: t.ticker, market_id: t.id, yes_dollars_fp: side(15), no_dollars_fp: side(15) } })
  })
}

// --- measurement ------------------------------------------------------------------------------
// The machines are shared: parse and decode are timed chunk by chunk, alternately, so a burst of
// outside load hits both alike; each chunk keeps its fastest time over the rounds.
const CHUNK = 5_000
let sink = 0
const timeChunk = (frames: ReadonlyArray<string>, from: number, run: (frame: string) => void): number => {
  const to = Math.min(from + CHUNK, frames.length)
  const start = process.hrtime.bigint()
  for (let i = from; i < to; i++) run(frames[i] as string)
  return Number(process.hrtime.bigint() - start) / 1e9
}
const race = (frames: ReadonlyArray<string>, a: (frame: string) => void, b: (frame: string) => void): [number, number] => {
  const chunks = Math.ceil(frames.length / CHUNK)
  const bestA = new Array<number>(chunks).fill(Number.POSITIVE_INFINITY)
  const bestB = new Array<number>(chunks).fill(Number.POSITIVE_INFINITY)
  for (let i = 0; i < 4; i++) timeChunk(frames, i * CHUNK, a) + timeChunk(frames, i * CHUNK, b) // warm up
  for (let round = 0; round < ROUNDS; round++) {
    for (let c = 0; c < chunks; c++) {
      bestA[c] = Math.min(bestA[c] as number, timeChunk(frames, c * CHUNK, a))
      bestB[c] = Math.min(bestB[c] as number, timeChunk(frames, c * CHUNK, b))
    }
  }
  return [bestA.reduce((x, y) => x + y, 0), bestB.reduce((x, y) => x + y, 0)]
}

const venues: ReadonlyArray<{ name: string; frames: () => Array<string>; decode: (frame: unknown, at: number) => Decoded }> = [
  { name: "venue_b", frames: venueBFrames, decode: decodeVenueB },
  { name: "venue_b_us", frames: venueBUsFrames, decode: decodeVenueBUs },
  { name: "venue_a", frames: () => kalshiFrames(true), decode: decodeVenueA },
  { name: "venue_d", frames: () => kalshiFrames(false), decode: decodeVenueD },
]

console.log(`node ${process.version}, ${FRAMES} frames per venue, best of ${ROUNDS}`)
/** Book upkeep of the decoded book events: one Book per contract, one apply per event. */
const bookRate = (events: ReadonlyArray<BookSnapshot | BookDelta>): number => {
  let fastest = Number.POSITIVE_INFINITY
  for (let round = 0; round < ROUNDS; round++) {
    const books = new Map<string, Book>()
    const start = process.hrtime.bigint()
    for (const event of events) {
      let book = books.get(event.contract)
      if (book === undefined) books.set(event.contract, (book = new Book()))
      book.apply(event)
      sink += book.bestBid(event._tag === "BookSnapshot" ? event.outcome : (event.changes[0]?.outcome ?? ""))?.size ?? 0
    }
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9)
  }
  return events.length / fastest
}

console.log("venue       avg B   parse k/s  parse MB/s  decode k/s  decode MB/s  events/frame  rejected  decode/parse  book k ev/s")
for (const venue of venues) {
  const frames = venue.frames()
  const bytes = frames.reduce((n, f) => n + Buffer.byteLength(f), 0)
  let events = 0
  let rejected = 0
  const bookEvents: Array<BookSnapshot | BookDelta> = []
  for (const frame of frames) {
    const d = venue.decode(frame, 1)
    events += d.events.length
    rejected += d.rejected.length
    for (const e of d.events) if (e._tag === "BookSnapshot" || e._tag === "BookDelta") bookEvents.push(e)
  }
  const [parse, decode] = race(
    frames,
    (f) => {
      sink += JSON.parse(f) === null ? 0 : 1
    },
    (f) => {
      sink += venue.decode(f, 1).events.length
    },
  )
  const row = [
    venue.name.padEnd(10),
    String(Math.round(bytes / frames.length)).padStart(6),
    (frames.length / parse / 1e3).toFixed(0).padStart(10),
    (bytes / parse / 1e6).toFixed(0).padStart(11),
    (frames.length / decode / 1e3).toFixed(0).padStart(11),
    (bytes / decode / 1e6).toFixed(0).padStart(12),
    (events / frames.length).toFixed(2).padStart(13),
    String(rejected).padStart(9),
    (parse / decode).toFixed(2).padStart(13),
    (bookRate(bookEvents) / 1e3).toFixed(0).padStart(12),
  ]
  console.log(row.join(" "))
}
if (sink < 0) console.log(sink)
