// The price_change scanner is JSON.parse for one grammar: whatever it returns equals JSON.parse of
// the same text less the three entry fields the decoder never reads, it returns null for everything it
// cannot rebuild exactly (the decoder then uses JSON.parse), and the decoder gives the same output either way.
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nearText, parseOrNull } from "../../../test/support/near-text.js"
import { decodeVenueB } from "./decode.js"
import { scanPriceChange } from "./scan.js"

const BURST = new URL("../../../test/fixtures/feeds/real/polymarket-market-channel-burst.json", import.meta.url)
const realFrames = (JSON.parse(readFileSync(BURST, "utf8")) as ReadonlyArray<unknown>).map((frame) => JSON.stringify(frame))


const digits = fc.stringMatching(/^[1-9][0-9]{20,77}$/)
const entry = fc.record({
  asset_id: fc.oneof(digits, fc.string({ unit: "binary" })),
  price: fc.oneof(fc.constantFrom("0.22", "0.999", "1", "0"), fc.string()),
  size: fc.oneof(fc.constantFrom("0", "12658", "422.69"), fc.string()),
  side: fc.oneof(fc.constantFrom("BUY", "SELL"), fc.string()),
  hash: fc.stringMatching(/^[0-9a-f]{40}$/),
  best_bid: fc.constantFrom("0.31", ""),
  best_ask: fc.constantFrom("0.33", "1"),
})
/** A price_change frame with arbitrary values, envelope keys in any order. */
const priceChangeFrame = fc.tuple(
  fc.array(entry, { maxLength: 6 }),
  fc.oneof(fc.stringMatching(/^0x[0-9a-f]{64}$/), fc.string()),
  fc.oneof(fc.constant("1768478400250"), fc.string()),
  fc.boolean(),
).map(([changes, market, timestamp, realOrder]) => JSON.stringify(realOrder
  ? { market, price_changes: changes, timestamp, event_type: "price_change" }
  : { event_type: "price_change", market, timestamp, price_changes: changes }))

const mutated = nearText(priceChangeFrame)

/**
 * JSON.parse of `text` as the scanner returns it: each entry of `price_changes` without `hash`,
 * `best_bid` and `best_ask`, which it must have had, in the venue's order after the four kept.
 */
const parsedRead = (text: string): unknown => {
  const value = parseOrNull(text) as Record<string, unknown> | null
  const list = value?.["price_changes"]
  if (!Array.isArray(list)) return value
  return {
    ...value,
    price_changes: list.map((entry: Record<string, unknown>) => {
      expect(Object.keys(entry)).toEqual(["asset_id", "price", "size", "side", "hash", "best_bid", "best_ask"])
      const { hash: _hash, best_bid: _bid, best_ask: _ask, ...read } = entry
      return read
    }),
  }
}

const ONE = `{"market":"0xab","price_changes":[{"asset_id":"1","price":"0.4","size":"10","side":"BUY","hash":"h","best_bid":"0.4","best_ask":"0.6"}],"timestamp":"1700000000000","event_type":"price_change"}`

describe("scanPriceChange", () => {
  it("reads the real burst's price_change frames as JSON.parse does, and leaves its book frames to JSON.parse", () => {
    const changes = realFrames.filter((text) => text.includes(`"event_type":"price_change"`))
    expect(changes.length).toBeGreaterThan(0)
    for (const text of changes) expect(scanPriceChange(text)).toStrictEqual(parsedRead(text))
    for (const text of realFrames.filter((t) => !changes.includes(t))) expect(scanPriceChange(text)).toBeNull()
  })

  it("leaves other shapes to JSON.parse", () => {
    for (const text of [
      ONE.replace(`{"market"`, `{ "market"`), // whitespace
      ONE.replace(`"price":"0.4","size":"10"`, `"size":"10","price":"0.4"`), // entry key order
      ONE.replace(`"0xab"`, `"0x\\u0061b"`), // an escape
      ONE.replace(`"timestamp":"1700000000000"`, `"timestamp":1700000000000`), // a number
      ONE.replace(`"market":"0xab"`, `"market":"0xab","market":"0xcd"`), // a repeated key
      ONE.replace(`"market":"0xab"`, `"__proto__":"0xab"`),
      `[${ONE}]`, ONE + " ", "", "PONG",
    ]) expect(scanPriceChange(text)).toBeNull()
    expect(scanPriceChange(ONE.replace(/\[.*\]/, "[]"))).toStrictEqual(JSON.parse(ONE.replace(/\[.*\]/, "[]")))
    expect(scanPriceChange(ONE)).toStrictEqual({
      market: "0xab", price_changes: [{ asset_id: "1", price: "0.4", size: "10", side: "BUY" }], timestamp: "1700000000000",
      event_type: "price_change",
    })
    expect(scanPriceChange(ONE.replace(`"best_bid":"0.4"`, `"best_bid":0.4`))).toBeNull() // an unread field is still checked
  })

  it("returns JSON.parse's value (less the unread fields) or null, for price_change frames with any values and for texts near them", () => {
    fc.assert(fc.property(fc.oneof(priceChangeFrame, mutated), (text) => {
      const scanned = scanPriceChange(text)
      if (scanned !== null) expect(scanned).toStrictEqual(parsedRead(text))
    }), { numRuns: 2_000 })
  })

  it("reads every frame of the grammar with plain values", () => {
    fc.assert(fc.property(fc.array(fc.record({ asset_id: digits, price: fc.constant("0.5"), size: fc.constant("3"), side: fc.constantFrom("BUY", "SELL"), hash: fc.constant("h"), best_bid: fc.constant("0.4"), best_ask: fc.constant("0.6") })), (changes) => {
      const text = JSON.stringify({ event_type: "price_change", market: "0xab", timestamp: "1", price_changes: changes })
      expect(scanPriceChange(text)).toStrictEqual(parsedRead(text))
    }))
  })

  it("gives the decoder the same events and rejections as JSON.parse", () => {
    fc.assert(fc.property(priceChangeFrame, (text) => {
      const spaced = text.replace(/^\{/, "{ ") // the scanner refuses it: JSON.parse reads it
      expect(decodeVenueB(text, 5)).toStrictEqual(decodeVenueB(spaced, 5))
    }), { numRuns: 500 })
  })
})
