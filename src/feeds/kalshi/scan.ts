// A faster JSON.parse for the one frame shape that is most of a Kalshi feed: the current
// fixed-point `orderbook_delta` (venues.md §3.2), serialised as the venue serialises it, keys in that
// order and no whitespace:
//   {"type":"orderbook_delta","sid":2,"seq":3,"msg":{"market_ticker":"…","market_id":"…",
//    "price_dollars":"0.960","delta_fp":"-54.00","side":"yes","ts":"…","ts_ms":1669149841000}}
// (`ts` and `ts_ms` each optional). One anchored regular expression reads the whole frame; it accepts
// only text that is valid JSON and whose parse it can rebuild exactly:
// - strings without a backslash or a control character, so the text between the quotes is the value;
// - integers without a sign, fraction, exponent or leading zero, at most 15 digits, so Number() of
//   the digits is the value JSON.parse gives.
// Anything else (another type, key order, whitespace, an escape, a legacy field) returns null and
// the caller parses with JSON.parse; the result is used exactly as JSON.parse's would be, so every
// check and rejection stays with the decoder. Measured on a 10-minute simulator recording: 0.45 µs a
// frame against 1.4 µs for JSON.parse (113,811 deltas).

const TEXT = String.raw`"([^"\\\u0000-\u001f]*)"`
const INTEGER = String.raw`(0|[1-9]\d{0,14})`

const DELTA = new RegExp(
  String.raw`^\{"type":"orderbook_delta","sid":${INTEGER},"seq":${INTEGER},"msg":\{` +
    String.raw`"market_ticker":${TEXT},"market_id":${TEXT},"price_dollars":${TEXT},"delta_fp":${TEXT},"side":${TEXT}` +
    String.raw`(?:,"ts":${TEXT})?(?:,"ts_ms":${INTEGER})?\}\}$`,
)

/** The frame JSON.parse would return, when `text` is a delta frame of the common shape; else null. */
export const scanDelta = (text: string): Record<string, unknown> | null => {
  const m = DELTA.exec(text)
  if (m === null) return null
  const msg: Record<string, unknown> = {
    market_ticker: m[3], market_id: m[4], price_dollars: m[5], delta_fp: m[6], side: m[7],
  }
  if (m[8] !== undefined) msg["ts"] = m[8]
  if (m[9] !== undefined) msg["ts_ms"] = Number(m[9])
  return { type: "orderbook_delta", sid: Number(m[1]), seq: Number(m[2]), msg }
}
