import { describe, expect, it } from "vitest"
import { anAttribution, aPrint } from "../../../test/actors/market-builders.js"
import { needsAttribution, TradeJoin } from "./join.js"

const whale = { id: "0xabc", name: "whale" }
const print = (t: number, txId = "0x1") => aPrint({ venue: "venue_b", contract: "M", outcome: "tokY", price: 0.42, contracts: 100, t, txId, tradeId: `${txId}:tokY:0.42:100` })
const attribution = (t: number, txId = "0x1") =>
  anAttribution({ venue: "venue_b", contract: "M", outcome: "tokY", price: 0.42, contracts: 100, t, txId, trader: whale })

describe("TradeJoin (venue_b prints × trades feed, by txId, in feed time)", () => {
  it("holds only venue_b prints without a trader that carry a transaction", () => {
    expect(needsAttribution(print(0))).toBe(true)
    expect(needsAttribution(aPrint({ venue: "venue_a", txId: "0x1" }))).toBe(false)
    expect(needsAttribution({ ...print(0), txId: null })).toBe(false)
    expect(needsAttribution({ ...print(0), trader: whale })).toBe(false)
  })

  it("print then attribution: one trade with the trader, the print's time and id", () => {
    const join = new TradeJoin()
    expect(join.print(print(1_000), 1_000)).toBeNull()
    const trade = join.attribution(attribution(4_000), 4_000)
    expect(trade).toMatchObject({ ts: 1_000, tradeId: "0x1:tokY:0.42:100", trader: whale, txId: "0x1" })
    expect(join.flush(60_000)).toEqual([])
    expect(join.counters).toMatchObject({ joined: 1, printsAlone: 0, attributionsAlone: 0 })
  })

  it("attribution then print: joined when the print comes", () => {
    const join = new TradeJoin()
    expect(join.attribution(attribution(500), 500)).toBeNull()
    expect(join.print(print(2_000), 2_000)).toMatchObject({ ts: 2_000, trader: whale })
    expect(join.flush(60_000)).toEqual([])
  })

  it("print alone after the window: emitted without trader, only once feed time passes it", () => {
    const join = new TradeJoin({ windowMs: 10_000, rememberMs: 60_000 })
    join.print(print(1_000), 1_000)
    expect(join.flush(10_999)).toEqual([])
    const [alone] = join.flush(11_000)
    expect(alone).toMatchObject({ ts: 1_000, trader: null, tradeId: "0x1:tokY:0.42:100" })
    // The late attribution is not a second trade.
    expect(join.attribution(attribution(12_000), 12_000)).toBeNull()
    expect(join.flush(30_000)).toEqual([])
    expect(join.counters).toMatchObject({ printsAlone: 1, duplicates: 1 })
  })

  it("attribution alone after the window (lost print, backfill): a trade made from it", () => {
    const join = new TradeJoin({ windowMs: 10_000, rememberMs: 60_000 })
    join.attribution(attribution(3_000), 3_000)
    const [alone] = join.flush(13_000)
    expect(alone).toMatchObject({
      _tag: "TradePrinted", venue: "venue_b", contract: "M", ts: 3_000, tradeId: "0x1:tokY:0.42:100", outcome: "tokY",
      price: 0.42, contracts: 100, trader: whale, txId: "0x1",
    })
    expect(join.print(print(14_000), 14_000)).toBeNull()
    expect(join.flush(100_000)).toEqual([])
  })

  it("flushes in arrival order and forgets keys after `rememberMs`", () => {
    const join = new TradeJoin({ windowMs: 1_000, rememberMs: 5_000 })
    join.print(print(0, "0xa"), 0)
    join.attribution(attribution(10, "0xb"), 10)
    join.print(print(20, "0xc"), 20)
    expect(join.flush(2_000).map((t) => t.txId)).toEqual(["0xa", "0xb", "0xc"])
    join.flush(10_000)
    // Forgotten: the same key is a new trade again.
    expect(join.print(print(10_000, "0xa"), 10_000)).toBeNull()
    expect(join.flush(20_000).map((t) => t.txId)).toEqual(["0xa"])
  })

  it("a redelivered attribution after a join is dropped", () => {
    const join = new TradeJoin()
    join.print(print(0), 0)
    join.attribution(attribution(100), 100)
    expect(join.attribution(attribution(200), 200)).toBeNull()
    expect(join.flush(100_000)).toEqual([])
    expect(join.counters.duplicates).toBe(1)
  })
})
