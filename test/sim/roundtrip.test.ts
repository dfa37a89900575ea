// Every frame the simulator publishes, and every row of its REST history, decodes through the
// venue's own decoder with zero rejections: the encoders and the decoders agree on the wire.
import { describe, expect, it } from "vitest"
import { VENUES, type Venue } from "../../src/domain/enums.js"
import type { Decoded, FeedEvent } from "../../src/domain/feed-events.js"
import { decodeVenueA } from "../../src/feeds/venue_a/decode.js"
import { decodeVenueB } from "../../src/feeds/venue_b/decode.js"
import { decodeVenueBUs } from "../../src/feeds/venue_b_us/decode.js"
import { decodeVenueD } from "../../src/feeds/venue_d/decode.js"
import { encode } from "../../src/sim/encode.js"
import { historyRequest } from "../../src/sim/history.js"
import { SimModel } from "../../src/sim/model.js"

const unique = (reasons: Array<string>): Array<string> => [...new Set(reasons)]

const DECODERS: Record<Venue, (frame: unknown, receivedAt: number) => Decoded> = {
  venue_a: decodeVenueA, venue_b: decodeVenueB, venue_b_us: decodeVenueBUs, venue_d: decodeVenueD,
}
// Kalshi messages travel in an envelope the server adds; wrap them the same way here.
const wire = (venue: Venue, frame: unknown, seq: number): string =>
  venue === "venue_a" || venue === "venue_d"
    ? JSON.stringify({ ...(frame as { type: string; msg: unknown }), sid: 1, seq })
    : JSON.stringify(frame)

describe("simulator frames decode", () => {
  const model = new SimModel({ seed: 7, start: Date.UTC(2026, 2, 1), historyDays: 2 })

  it("live frames of every venue decode with zero rejections", () => {
    const rejected: Array<string> = []
    const tags = new Map<Venue, Set<string>>()
    const decodedEvents: Array<FeedEvent> = []
    const ended: Array<{ venue: Venue; contract: string; winner: string | null }> = []
    let seq = 0
    // Force the rarer events too: a void and a settlement on every venue.
    for (let i = 0; i < 2400; i++) {
      const events = model.step()
      if (i === 100) {
        for (const venue of VENUES) {
          const [a, b] = model.openContracts().filter((c) => c.venue === venue && c.group === null)
          if (a !== undefined) {
            events.push(...model.command((out) => model.endContract(a, null, out)))
            ended.push({ venue, contract: a.id, winner: null })
          }
          if (b !== undefined) {
            events.push(...model.command((out) => model.endContract(b, 1, out)))
            ended.push({ venue, contract: b.id, winner: b.outcomes[1].id })
          }
        }
      }
      for (const event of events) {
        const venue = event.contract.venue
        for (const f of encode(event)) {
          const decoded = DECODERS[venue](wire(venue, f.frame, ++seq), event.ts)
          for (const r of decoded.rejected) rejected.push(`${venue} ${event.type}: ${r.reason}`)
          const set = tags.get(venue) ?? new Set<string>()
          for (const e of decoded.events) set.add(e._tag)
          tags.set(venue, set)
          decodedEvents.push(...decoded.events)
        }
      }
    }
    expect(unique(rejected)).toEqual([])
    expect([...(tags.get("venue_b") ?? [])].sort()).toEqual(expect.arrayContaining(["BookDelta", "BookSnapshot", "MarketListed", "MarketSettled", "MarketVoided", "TradeAttributed", "TradePrinted"]))
    expect([...(tags.get("venue_a") ?? [])].sort()).toEqual(expect.arrayContaining(["BookDelta", "BookSnapshot", "MarketClosed", "MarketListed", "MarketSettled", "MarketVoided", "PriceReported", "TradePrinted"]))
    expect([...(tags.get("venue_b_us") ?? [])].sort()).toEqual(expect.arrayContaining(["BookSnapshot", "MarketClosed", "MarketListed", "MarketSettled", "MarketVoided", "TradePrinted"]))
    // Every venue lists, and each forced end decodes as that contract's settlement (the sim's
    // winner) or void.
    for (const venue of VENUES) expect(tags.get(venue)?.has("MarketListed"), `${venue} MarketListed`).toBe(true)
    expect(new Set(ended.map((e) => e.venue))).toEqual(new Set(VENUES))
    for (const end of ended) {
      const endings = decodedEvents.filter((e) =>
        e.venue === end.venue && "contract" in e && e.contract === end.contract && (e._tag === "MarketSettled" || e._tag === "MarketVoided"))
      expect(endings, `${end.venue} ${end.contract}`).toContainEqual(end.winner === null
        ? expect.objectContaining({ _tag: "MarketVoided" })
        : expect.objectContaining({ _tag: "MarketSettled", winner: end.winner }))
      expect(endings.filter((e) => e._tag === (end.winner === null ? "MarketSettled" : "MarketVoided"))).toEqual([])
    }
  })

  it("history rows of every venue decode with zero rejections", () => {
    const rejected: Array<string> = []
    const tags = new Map<string, Set<string>>()
    for (const venue of VENUES) {
      for (const what of ["markets", "trades", "settlements"]) {
        const answer = historyRequest(model, `/history/${venue}/${what}`, new URLSearchParams({ limit: "1000" }))
        const rows = (answer?.body as { data: Array<unknown> }).data
        expect(rows.length).toBeGreaterThan(0)
        const set = new Set<string>()
        for (const row of rows) {
          const decoded = DECODERS[venue](JSON.stringify(row), model.now)
          for (const r of decoded.rejected) rejected.push(`${venue} ${what}: ${r.reason}`)
          for (const e of decoded.events) set.add(e._tag)
        }
        tags.set(`${venue} ${what}`, set)
      }
    }
    expect(unique(rejected)).toEqual([])
    // Listings list and settlements settle or void, on every venue (the live test above voided one).
    for (const venue of VENUES) {
      expect(tags.get(`${venue} markets`)?.has("MarketListed"), `${venue} markets`).toBe(true)
      expect([...(tags.get(`${venue} settlements`) ?? [])], `${venue} settlements`).toEqual(expect.arrayContaining(["MarketSettled", "MarketVoided"]))
    }
  })
})
