import { describe, expect, it } from "vitest"
import { moveId, stableHash, whaleTradeId } from "./ids.js"

describe("whaleTradeId", () => {
  it("is stable and derived from venue, contract and the venue's trade id", () => {
    const key = { venue: "venue_a", contract: "c1", tradeId: "t9", txId: "0xabc" }
    expect(whaleTradeId(key)).toBe(whaleTradeId({ ...key }))
    expect(whaleTradeId(key)).toMatch(/^wt_[0-9a-f]{20}$/)
    expect(whaleTradeId(key)).not.toBe(whaleTradeId({ ...key, contract: "c2" }))
    expect(whaleTradeId(key)).not.toBe(whaleTradeId({ ...key, venue: "venue_b" }))
  })

  it("prefers the trade id; the tx id only without one; null without either", () => {
    const withTrade = whaleTradeId({ venue: "venue_b", contract: "c", tradeId: "t1", txId: "x" })
    expect(withTrade).toBe(whaleTradeId({ venue: "venue_b", contract: "c", tradeId: "t1", txId: "other" }))
    const byTx = whaleTradeId({ venue: "venue_b", contract: "c", tradeId: null, txId: "x" })
    expect(byTx).toBe(whaleTradeId({ venue: "venue_b", contract: "c", tradeId: "", txId: "x" }))
    // A trade id equal to a tx id names something else.
    expect(byTx).not.toBe(whaleTradeId({ venue: "venue_b", contract: "c", tradeId: "x", txId: null }))
    expect(whaleTradeId({ venue: "venue_b", contract: "c", tradeId: null, txId: null })).toBeNull()
  })
})

describe("stableHash", () => {
  it("cannot be fooled by moving a separator between parts", () => {
    expect(stableHash(["a:b", "c"])).not.toBe(stableHash(["a", "b:c"]))
    expect(stableHash(["ab", ""])).not.toBe(stableHash(["a", "b"]))
  })

  it("reads -0 and 0 as one time", () => {
    expect(stableHash([0])).toBe(stableHash([-0]))
  })
})

describe("moveId", () => {
  it("names market, type, outcome and recording time", () => {
    const key = { market: "m", type: "move" as const, outcome: "Yes", time: 1_000 }
    expect(moveId(key)).toBe(moveId({ ...key }))
    expect(moveId(key)).toMatch(/^mv_[0-9a-f]{20}$/)
    expect(moveId(key)).not.toBe(moveId({ ...key, type: "flip" }))
    expect(moveId(key)).not.toBe(moveId({ ...key, time: 1_001 }))
  })
})
