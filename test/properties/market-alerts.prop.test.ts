// Properties of the market alerts' watcher over random price paths: an alert fires at most once, at the
// first price of its side at or beyond a bound (never before), ends with its market if it has not fired,
// and the same events give the same outcomes every time (feed time, no wall clock).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AlertWatch, fires, sidePrice } from "../../src/actors/alerts/market-alerts.js"
import type { OrderedEvent } from "../../src/intel/intel-bus.js"
import type { AlertOutcome, StoredAlert } from "../../src/store/market-alerts.js"

const price = fc.integer({ min: 0, max: 100 }).map((n) => n / 100)
const anAlert = fc.record({
  id: fc.uuid(),
  market: fc.constantFrom("venue_a:M1", "venue_a:M2"),
  side: fc.constantFrom<0 | 1>(0, 1),
  above: fc.option(price, { nil: null }),
  below: fc.option(price, { nil: null }),
}).filter((a) => a.above !== null || a.below !== null).map((a): StoredAlert => ({
  ...a, accountId: "acct", marketObject: { ref: a.market, contract: a.market, title: a.market, venue: "venue_a", category: null, kind: null },
  outcome: a.side === 0 ? "Yes" : "No", note: null, status: "armed", createdAt: 0, triggeredAt: null, triggerPrice: null, endedAt: null,
}))
const anEvent = fc.oneof(
  { weight: 9, arbitrary: fc.record({ ref: fc.constantFrom("venue_a:M1", "venue_a:M2"), yesPrice: price }).map((e) => ({ _tag: "PriceChanged" as const, ...e })) },
  { weight: 1, arbitrary: fc.constantFrom("venue_a:M1", "venue_a:M2").map((ref) => ({ _tag: "MarketVoided" as const, ref })) },
)

const run = (alerts: ReadonlyArray<StoredAlert>, events: ReadonlyArray<OrderedEvent>): Array<AlertOutcome> => {
  const watch = new AlertWatch()
  for (const a of alerts) watch.arm(a)
  const out: Array<AlertOutcome> = []
  for (const e of events) watch.apply(e, out)
  return out
}

describe("market alerts' watcher", () => {
  it("fires each alert at most once, at the first price at or beyond its bound, or ends it with its market", () => {
    fc.assert(fc.property(fc.uniqueArray(anAlert, { selector: (a) => a.id, maxLength: 8 }), fc.array(anEvent, { maxLength: 40 }), (alerts, raw) => {
      const events = raw.map((e, i) => ({ ...e, ts: 1_000 + i })) as ReadonlyArray<OrderedEvent>
      const out = run(alerts, events)
      expect(new Set(out.map((o) => o.id)).size).toBe(out.length)
      for (const alert of alerts) {
        const mine = events.filter((e) => "ref" in e && e.ref === alert.market)
        const first = mine.find((e) => e._tag === "MarketVoided" || (e._tag === "PriceChanged" && fires(alert, sidePrice(e.yesPrice, alert.side))))
        const outcome = out.find((o) => o.id === alert.id)
        if (first === undefined) expect(outcome).toBeUndefined()
        else if (first._tag === "PriceChanged") expect(outcome).toEqual({ _tag: "Triggered", id: alert.id, at: first.ts, price: sidePrice(first.yesPrice, alert.side) })
        else if (first._tag === "MarketVoided") expect(outcome).toEqual({ _tag: "Ended", id: alert.id, at: first.ts })
      }
      expect(run(alerts, events)).toEqual(out)
    }))
  })
})
