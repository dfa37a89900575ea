// venue_d decoder: the Kalshi family as venue_a, under venue_d's id and with no trader identity.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { decodeVenueA } from "../venue_a/decode.js"
import { decodeVenueD } from "./decode.js"
import type { KalshiTradeFp } from "./frames.js"

const REAL = new URL("../../../test/fixtures/feeds/real/", import.meta.url)
const lines = (name: string) => readFileSync(new URL(name, REAL), "utf8").split("\n").filter((l) => l.length > 0)
const AT = 1_800_000_000_000

describe("venue_d", () => {
  it("decodes every real ticker and trade frame as venue_a does, under its own venue id", () => {
    for (const line of [...lines("ssmd-kalshi_ticker.jsonl"), ...lines("ssmd-kalshi_trade.jsonl")]) {
      const d = decodeVenueD(line, AT)
      expect(d.rejected).toEqual([])
      expect(d.events).toHaveLength(1)
      expect(d.events).toEqual(decodeVenueA(line, AT).events.map((e) => ({ ...e, venue: "venue_d" })))
    }
  })

  it("names no trader, even when a frame carries venue_a's handle field", () => {
    const msg: KalshiTradeFp = {
      trade_id: "t1", market_ticker: "M", yes_price_dollars: "0.5500", no_price_dollars: "0.4500", count_fp: "10.00",
      taker_outcome_side: "yes", ts_ms: 1, taker_handle: "someone",
    }
    const decoded = decodeVenueD({ type: "trade", sid: 1, seq: 1, msg }, AT)
    expect(decoded.events).toMatchObject([{ _tag: "TradePrinted", venue: "venue_d", trader: null, price: 0.55, contracts: 10 }])
  })

  it("snapshot, delta and lifecycle carry venue_d", () => {
    const snapshot = decodeVenueD({ type: "orderbook_snapshot", sid: 1, seq: 1, msg: { market_ticker: "M", yes_dollars_fp: [["0.1000", "5.00"]] } }, AT)
    expect(snapshot.events.map((e) => `${e._tag}:${e.venue}`)).toEqual(["BookSnapshot:venue_d", "BookSnapshot:venue_d"])
    const settled = decodeVenueD({ type: "market_lifecycle_v2", sid: 2, msg: { market_ticker: "M", event_type: "settled", result: "void" } }, AT)
    expect(settled.events).toMatchObject([{ _tag: "MarketVoided", venue: "venue_d", contract: "M" }])
    expect(decodeVenueD("garbage", AT).rejected).toEqual([{ _tag: "FrameRejected", venue: "venue_d", reason: "not JSON" }])
  })
})
