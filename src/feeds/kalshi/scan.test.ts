// The delta scanner is JSON.parse for one shape: whatever it returns are the values JSON.parse reads
// from the same text (every key of it but the unread market_id), it returns null for everything it
// cannot read exactly (the caller then uses JSON.parse), and the session gives the same output either way.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nearText, parseOrNull } from "../../../test/support/near-text.js"
import { kalshiSession } from "./socket.js"
import { scanDelta, type ScannedDelta } from "./scan.js"

/** JSON.parse's reading of `text` as the scanner's fields, or why it has values the fields would not carry. */
const parsedFields = (text: string): ScannedDelta | string => {
  const frame = parseOrNull(text) as { type: unknown; sid: number; seq: number; msg: Record<string, unknown> } | null
  if (frame === null || typeof frame !== "object" || Array.isArray(frame)) return "not an object"
  if (Object.keys(frame).join() !== "type,sid,seq,msg" || frame.type !== "orderbook_delta") return "other keys"
  const msg = frame.msg
  const keys = Object.keys(msg).join()
  if (!/^market_ticker,market_id,price_dollars,delta_fp,side(,ts)?(,ts_ms)?$/.test(keys)) return `other msg keys ${keys}`
  return {
    sid: frame.sid, seq: frame.seq, market_ticker: msg["market_ticker"] as string, price_dollars: msg["price_dollars"] as string,
    delta_fp: msg["delta_fp"] as string, side: msg["side"] as string, ts: msg["ts"] as string | undefined,
    ts_ms: msg["ts_ms"] as number | undefined,
  }
}

const DOC_DELTA = `{"type":"orderbook_delta","sid":2,"seq":3,"msg":{"market_ticker":"FED-23DEC-T3.00","market_id":"9b0f6b43-5b68-4f9f-9f02-9a2d1b8ac1a1","price_dollars":"0.960","delta_fp":"-54.00","side":"yes","ts":"2022-11-22T20:44:01Z","ts_ms":1669149841000}}`


/** A delta frame of the common shape, with arbitrary values in every slot (some the scanner must refuse). */
const deltaFrame = fc.record({
  sid: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(1e16)),
  seq: fc.oneof(fc.nat(), fc.constant(0), fc.constant(999_999_999_999_999), fc.constant(1_000_000_000_000_000)),
  ticker: fc.oneof(fc.stringMatching(/^[A-Z0-9.-]{1,30}$/), fc.string({ unit: "binary" })),
  id: fc.uuid(),
  price: fc.oneof(fc.constantFrom("0.4000", "0.960", "1", "-0.1"), fc.string()),
  change: fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((n) => n.toFixed(2)), fc.string()),
  side: fc.oneof(fc.constantFrom("yes", "no"), fc.string()),
  ts: fc.option(fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.string()), { nil: undefined }),
  tsMs: fc.option(fc.oneof(fc.nat(), fc.integer(), fc.double()), { nil: undefined }),
}).map((f) => JSON.stringify({
  type: "orderbook_delta", sid: f.sid, seq: f.seq,
  msg: {
    market_ticker: f.ticker, market_id: f.id, price_dollars: f.price, delta_fp: f.change, side: f.side,
    ...(f.ts === undefined ? {} : { ts: f.ts }), ...(f.tsMs === undefined ? {} : { ts_ms: f.tsMs }),
  },
}))

const mutated = nearText(deltaFrame)

describe("scanDelta", () => {
  it("reads the venue's documented delta frame as JSON.parse does", () => {
    expect(scanDelta(DOC_DELTA)).toStrictEqual({
      sid: 2, seq: 3, market_ticker: "FED-23DEC-T3.00", price_dollars: "0.960", delta_fp: "-54.00", side: "yes",
      ts: "2022-11-22T20:44:01Z", ts_ms: 1669149841000,
    })
    expect(scanDelta(DOC_DELTA)).toStrictEqual(parsedFields(DOC_DELTA))
    const plain = `{"type":"orderbook_delta","sid":1,"seq":56,"msg":{"market_ticker":"K","market_id":"m","price_dollars":"0.4000","delta_fp":"13303.00","side":"yes"}}`
    expect(scanDelta(plain)).toStrictEqual({
      sid: 1, seq: 56, market_ticker: "K", price_dollars: "0.4000", delta_fp: "13303.00", side: "yes", ts: undefined, ts_ms: undefined,
    })
  })

  it("leaves other shapes to JSON.parse", () => {
    for (const text of [
      DOC_DELTA.replace(`{"type"`, `{ "type"`), // whitespace
      DOC_DELTA.replace(`"sid":2,"seq":3`, `"seq":3,"sid":2`), // key order
      DOC_DELTA.replace("FED-23DEC", "FED\\u002d23DEC"), // an escape
      DOC_DELTA.replace(`"seq":3`, `"seq":03`), // not JSON
      DOC_DELTA.replace(`"seq":3`, `"seq":3.0`),
      DOC_DELTA.replace(`"seq":3`, `"seq":1234567890123456`), // past 15 digits
      DOC_DELTA.replace(`,"ts_ms":1669149841000`, `,"ts_ms":1669149841000,"subaccount":1`),
      `{"type":"orderbook_delta","sid":2,"seq":3,"msg":{"market_ticker":"K","price":96,"delta":-54,"side":"yes"}}`, // legacy
      DOC_DELTA + " ", "", "PONG",
    ]) expect(scanDelta(text)).toBeNull()
  })

  it("returns JSON.parse's values or null, for delta frames with any values and for texts near them", () => {
    fc.assert(fc.property(fc.oneof(deltaFrame, mutated), (text) => {
      const scanned = scanDelta(text)
      if (scanned !== null) expect(scanned).toStrictEqual(parsedFields(text))
    }), { numRuns: 3_000 })
  })

  it("reads every frame of the common shape (no silent fall back for plain values)", () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), fc.stringMatching(/^[A-Z0-9.-]{1,30}$/), fc.constantFrom("yes", "no"), fc.option(fc.nat(), { nil: undefined }), (sid, seq, ticker, side, tsMs) => {
      const text = JSON.stringify({ type: "orderbook_delta", sid, seq, msg: { market_ticker: ticker, market_id: "m", price_dollars: "0.5000", delta_fp: "-1.00", side, ...(tsMs === undefined ? {} : { ts_ms: tsMs }) } })
      expect(scanDelta(text)).toStrictEqual(parsedFields(text))
    }))
  })

  it("gives the session the same output as JSON.parse for one delta with any values, rejections included", () => {
    fc.assert(fc.property(fc.oneof(deltaFrame, mutated), (text) => {
      const parsed = parseOrNull(text) as { sid?: unknown; seq?: unknown; msg?: { market_ticker?: unknown } } | null
      const ticker = typeof parsed?.msg?.market_ticker === "string" ? parsed.msg.market_ticker : "K"
      const sid = typeof parsed?.sid === "number" ? parsed.sid : 1
      const seq = typeof parsed?.seq === "number" ? parsed.seq - 1 : 0
      const snapshot = JSON.stringify({ type: "orderbook_snapshot", sid, seq, msg: { market_ticker: ticker, yes_dollars_fp: [["0.4000", "10.00"]] } })
      const fast = kalshiSession({ venue: "venue_d" })
      const slow = kalshiSession({ venue: "venue_d" })
      fast.opened()
      slow.opened()
      expect(fast.frame(snapshot, 1_000)).toStrictEqual(slow.frame(snapshot, 1_000))
      const spaced = text.replace(`{"type"`, `{ "type"`)
      expect(fast.frame(text, 2_000)).toStrictEqual(slow.frame(spaced, 2_000))
    }), { numRuns: 2_000 })
  })

  it("gives the session the same output as JSON.parse, gaps and drops included", () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom("A", "B"), fc.constantFrom("snapshot", "delta", "bad")), { maxLength: 40 }), (steps) => {
      const fast = kalshiSession({ venue: "venue_a" })
      const slow = kalshiSession({ venue: "venue_a" })
      fast.opened()
      slow.opened()
      let seq = 0
      steps.forEach(([advance, ticker, kind], i) => {
        seq += advance
        const msg = kind === "snapshot"
          ? { market_ticker: ticker, market_id: "m", yes_dollars_fp: [["0.4000", "10.00"]] }
          : { market_ticker: ticker, market_id: "m", price_dollars: kind === "bad" ? "1.5" : "0.4000", delta_fp: "-2.00", side: "no", ts_ms: 1_000 + i }
        const text = JSON.stringify({ type: kind === "snapshot" ? "orderbook_snapshot" : "orderbook_delta", sid: 1, seq, msg })
        const spaced = text.replace(`{"type"`, `{ "type"`) // the scanner refuses it: JSON.parse reads it
        expect(fast.frame(text, 2_000 + i)).toStrictEqual(slow.frame(spaced, 2_000 + i))
      })
    }), { numRuns: 300 })
  })
})
