// Decoder totality, for every venue decoder. Invariants:
// 1. No input makes a decoder throw: garbage text, arbitrary JSON values, truncated real frames,
//    real frames with any one field replaced by arbitrary JSON.
// 2. Text that is not JSON (and not a heartbeat) is exactly one rejection and no event.
// 3. A truncated real frame is exactly one rejection and no event.
// 4. Whatever comes out is a valid FeedEvent (the domain Schema accepts it: finite numbers, known
//    tags, enum words), and a decoded frame is never silently dropped: it gives an event or a
//    rejection unless it is a known no-op (heartbeat, command response, empty dump).
// 5. The one-pass decimal reader gives exactly the double `Number()` gives for every decimal text
//    of the venues' grammar, and NaN for everything else.
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { FeedEvent } from "../../src/domain/feed-events.js"
import type { Decoded } from "../../src/domain/feed-events.js"
import { decodeVenueA } from "../../src/feeds/venue_a/decode.js"
import { decodeVenueB } from "../../src/feeds/venue_b/decode.js"
import { decodeVenueBUs } from "../../src/feeds/venue_b_us/decode.js"
import { decodeVenueD } from "../../src/feeds/venue_d/decode.js"
import { decimalOrNaN } from "../../src/feeds/wire.js"

const REAL = new URL("../fixtures/feeds/real/", import.meta.url)
const read = (name: string) => readFileSync(new URL(name, REAL), "utf8")
const lines = (name: string) => read(name).split("\n").filter((l) => l.length > 0)
const isFeedEvent = Schema.is(FeedEvent)
const AT = 1_800_000_000_000

const burst = read("polymarket-market-channel-burst.json")
const kalshiSamples = [
  ...lines("ssmd-kalshi_ticker.jsonl"),
  ...lines("ssmd-kalshi_trade.jsonl"),
  '{"type":"orderbook_snapshot","sid":2,"seq":2,"msg":{"market_ticker":"FED-23DEC-T3.00","market_id":"9b0f","yes_dollars_fp":[["0.0800","300.00"],["0.2200","333.00"]],"no_dollars_fp":[["0.5400","20.00"],["0.5600","146.00"]]}}',
  '{"type":"orderbook_snapshot","sid":2,"seq":2,"msg":{"market_ticker":"FED-23DEC-T3.00","yes":[[8,300]],"no":[[54,20]],"yes_dollars":[["0.080",300]],"no_dollars":[["0.540",20]]}}',
  '{"type":"orderbook_delta","sid":2,"seq":3,"msg":{"market_ticker":"FED-23DEC-T3.00","price_dollars":"0.960","delta_fp":"-54.00","side":"yes","ts_ms":1669149841000}}',
  '{"type":"orderbook_delta","sid":2,"seq":3,"msg":{"market_ticker":"FED-23DEC-T3.00","price":96,"delta":-54,"side":"no","ts":"2022-11-22T20:44:01Z"}}',
  '{"type":"trade","sid":11,"seq":4,"msg":{"trade_id":"d91b","market_ticker":"HIGHNY","yes_price_dollars":"0.360","no_price_dollars":"0.640","count_fp":"136.00","taker_outcome_side":"no","ts_ms":1669149841000,"taker_handle":"whale"}}',
  '{"type":"market_lifecycle_v2","sid":5,"msg":{"market_ticker":"M","event_type":"created","open_ts":1,"close_ts":2,"additional_metadata":{"title":"T","category":"crypto","kind":"bitcoin","series_ticker":"S","yes_sub_title":"Up","no_sub_title":"Down"}}}',
  '{"type":"market_lifecycle_v2","sid":5,"msg":{"market_ticker":"M","event_type":"settled","result":"yes","settled_ts":3}}',
  '{"type":"market_lifecycle_v2","sid":5,"msg":{"market_ticker":"M","event_type":"determined","result":"void"}}',
]
const venueBSamples = [
  ...lines("ssmd-polymarket_book.jsonl"),
  ...lines("ssmd-polymarket_trade.jsonl"),
  ...(JSON.parse(burst) as Array<unknown>).map((frame) => JSON.stringify(frame)),
  '{"event_type":"tick_size_change","asset_id":"1","market":"0x1","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"7"}',
  '{"event_type":"new_market","id":"1","question":"Q","market":"0x1","assets_ids":["1","2"],"outcomes":["Yes","No"],"event_message":{"id":"9","title":"E"},"tags":["Crypto"],"fee_schedule":{"rate":"0.07","exponent":1},"category":"crypto","kind":"bitcoin","timestamp":"5"}',
  '{"event_type":"market_resolved","id":"1","question":"Q","market":"0x1","assets_ids":["1","2"],"outcomes":["Yes","No"],"winning_asset_id":"1","winning_outcome":"Yes","timestamp":"6"}',
  '{"event_type":"price_change","asset_id":"1","market":"0x1","timestamp":"1","hash":"h","changes":[{"price":"0.4","side":"SELL","size":"3300"}]}',
  '[{"proxyWallet":"0xa0f21e6d351baa9185716b5c00c2925ed9621848","side":"BUY","asset":"1","conditionId":"0x1","size":368,"price":0.152,"timestamp":1781288632,"title":"T","outcome":"Yes","outcomeIndex":0,"name":"","pseudonym":"P","transactionHash":"0xc3"}]',
]
const usSamples = [
  '{"requestId":"md-1","subscriptionType":"SUBSCRIPTION_TYPE_MARKET_DATA","marketData":{"marketSlug":"btc","bids":[{"px":{"value":"0.555","currency":"USD"},"qty":"0.50"}],"offers":[{"px":{"value":"0.56","currency":"USD"},"qty":"3"}],"state":"MARKET_STATE_OPEN","stats":{},"transactTime":"2024-01-15T10:30:00Z"}}',
  '{"market_data":{"market_slug":"btc","bids":[],"offers":[{"px":{"value":"0.56","currency":"USD"},"qty":"3"}],"state":1,"transact_time":"2024-01-15T10:30:00Z"}}',
  '{"trade":{"marketSlug":"btc","price":{"value":"0.6","currency":"USD"},"quantity":{"value":"25","currency":"USD"},"tradeTime":"2024-01-15T10:30:01Z","maker":{"side":"ORDER_SIDE_SELL"},"taker":{"side":"ORDER_SIDE_BUY","intent":"ORDER_INTENT_BUY_SHORT"}}}',
  '{"trade":{"market_slug":"btc","price":{"value":"0.6","currency":"USD"},"quantity":{"value":"25","currency":"USD"},"trade_time":"2024-01-15T10:30:01Z","taker":{"side":2,"intent":4}}}',
  '{"heartbeat":{}}',
]

interface Subject {
  readonly name: string
  readonly decode: (frame: unknown, receivedAt: number) => Decoded
  readonly samples: ReadonlyArray<string>
  readonly heartbeats: ReadonlyArray<string>
}
const subjects: ReadonlyArray<Subject> = [
  { name: "venue_b", decode: decodeVenueB, samples: venueBSamples, heartbeats: ["PONG", "PING"] },
  { name: "venue_b_us", decode: decodeVenueBUs, samples: usSamples, heartbeats: [] },
  { name: "venue_a", decode: decodeVenueA, samples: kalshiSamples, heartbeats: [] },
  { name: "venue_d", decode: decodeVenueD, samples: kalshiSamples, heartbeats: [] },
]

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Every number anywhere in an event is finite (Schema.Number alone admits NaN and Infinity). */
const finite = (value: unknown): boolean =>
  typeof value === "number" ? Number.isFinite(value)
    : Array.isArray(value) ? value.every(finite)
    : value !== null && typeof value === "object" ? Object.values(value).every(finite)
    : true

/** Decodes without throwing and returns only valid FeedEvents (fails the property otherwise). */
const total = (subject: Subject, frame: unknown): Decoded => {
  const decoded = subject.decode(frame, AT)
  for (const event of decoded.events) {
    if (!isFeedEvent(event) || !finite(event)) throw new Error(`invalid event ${JSON.stringify(event)}`)
    if (event.venue !== subject.name) throw new Error(`wrong venue ${event.venue}`)
  }
  for (const rejected of decoded.rejected) {
    if (rejected._tag !== "FrameRejected" || rejected.venue !== subject.name || rejected.reason.length === 0) {
      throw new Error("malformed rejection")
    }
  }
  return decoded
}

/** Replaces the value at one random path of a JSON value. */
const mutate = (value: unknown, path: ReadonlyArray<number>, replacement: unknown): unknown => {
  if (path.length === 0 || value === null || typeof value !== "object") return replacement
  const [step = 0, ...rest] = path
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement
    const i = step % value.length
    return value.map((item, j) => (j === i ? mutate(item, rest, replacement) : item))
  }
  const keys = Object.keys(value)
  if (keys.length === 0) return replacement
  const key = keys[step % keys.length] as string
  return { ...(value as Record<string, unknown>), [key]: mutate((value as Record<string, unknown>)[key], rest, replacement) }
}

describe.each(subjects)("$name decoder is total", (subject) => {
  it("garbage text: one rejection, no event, no throw", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        fc.pre(!subject.heartbeats.includes(text) && !isJson(text))
        const decoded = total(subject, text)
        expect(decoded.events).toEqual([])
        expect(decoded.rejected).toHaveLength(1)
      }),
      { numRuns: 500 },
    )
  })

  it("arbitrary JSON values, as text and as parsed values: an event or a rejection, never a throw", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        for (const frame of [value, JSON.stringify(value)]) {
          const decoded = total(subject, frame)
          const emptyDump = Array.isArray(value) && value.length === 0
          if (!emptyDump) expect(decoded.events.length + decoded.rejected.length).toBeGreaterThan(0)
        }
      }),
      { numRuns: 500 },
    )
  })

  it("every truncated sample frame is one rejection", () => {
    fc.assert(
      fc.property(fc.constantFrom(...subject.samples), fc.double({ min: 0, max: 1, noNaN: true }), (sample, at) => {
        const text = sample.slice(0, Math.floor(at * (sample.length - 1)))
        const decoded = total(subject, text)
        expect(decoded.events).toEqual([])
        expect(decoded.rejected).toHaveLength(1)
      }),
      { numRuns: 500 },
    )
    for (const sample of subject.samples) for (let k = 0; k < sample.length; k += 7) total(subject, sample.slice(0, k))
    const truncatedBurst = total(subject, burst.slice(0, burst.length / 2))
    expect(truncatedBurst.rejected).toHaveLength(1)
  })

  it("every sample decodes cleanly", () => {
    for (const sample of subject.samples) {
      const decoded = total(subject, sample)
      expect(decoded.rejected).toEqual([])
    }
  })

  it("sample frames with one field replaced by anything: valid events or rejections, never a throw", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...subject.samples),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom("", "NaN", "1e999", "-0", ".", "0x1", " 1", "Infinity", -1, 2, 1e308)),
        (sample, path, replacement) => {
          const mutated = mutate(JSON.parse(sample), path, replacement)
          total(subject, mutated)
          total(subject, JSON.stringify(mutated))
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe("decimal reading", () => {
  const grammar = /^-?(?:\d+\.?\d*|\.\d+)$/
  const reference = (text: string) => (text.length < 40 && grammar.test(text) ? Number(text) : Number.NaN)

  it("equals Number() on decimal text and rejects the rest", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.stringMatching(/^-?\d{0,9}\.?\d{0,9}$/),
          fc.stringMatching(/^-?\d{8,24}(\.\d{0,20})?$/),
          fc.double().map(String),
          fc.string({ maxLength: 12 }),
          fc.constantFrom("", ".", "-", "-.", "5.", ".48", "1e3", "0x10", " 1", "1 ", "Infinity", "-0", "00.10"),
        ),
        (text) => {
          expect(Object.is(decimalOrNaN(text), reference(text))).toBe(true)
        },
      ),
      { numRuns: 20_000 },
    )
  })
})
