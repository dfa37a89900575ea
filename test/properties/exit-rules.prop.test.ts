// Properties of the exit rules' watcher over random price paths: a rule fires at most once, at the first
// price of its side at or below its stop, at or above its target, or its trail or more below the highest
// price seen since it was armed (never before), ends with its market if it has not fired, and the same
// events give the same steps every time.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sidePrice } from "../../src/actors/alerts/market-alerts.js"
import { ExitWatch, exitReason, type ExitStep } from "../../src/actors/exits/exit-rules.js"
import type { OrderedEvent } from "../../src/intel/intel-bus.js"
import type { StoredExitRule } from "../../src/store/exit-rules.js"

const price = fc.integer({ min: 0, max: 100 }).map((n) => n / 100)
const aRule = fc.record({
  id: fc.uuid(),
  market: fc.constantFrom("venue_a:M1", "venue_a:M2"),
  side: fc.constantFrom<0 | 1>(0, 1),
  stopLoss: fc.option(price, { nil: null }),
  takeProfit: fc.option(price, { nil: null }),
  trailingStop: fc.option(fc.integer({ min: 1, max: 99 }).map((n) => n / 100), { nil: null }),
}).filter((r) => r.stopLoss !== null || r.takeProfit !== null || r.trailingStop !== null).map((r): StoredExitRule => ({
  ...r, accountId: "acct", marketObject: { ref: r.market, contract: r.market, title: r.market, venue: "venue_a", category: null, kind: null },
  outcome: r.side === 0 ? "Yes" : "No", trailHigh: null, status: "armed", createdAt: 0, doneAt: null, reason: null, orderId: null,
}))
const anEvent = fc.oneof(
  { weight: 9, arbitrary: fc.record({ ref: fc.constantFrom("venue_a:M1", "venue_a:M2"), yesPrice: price }).map((e) => ({ _tag: "PriceChanged" as const, ...e })) },
  { weight: 1, arbitrary: fc.constantFrom("venue_a:M1", "venue_a:M2").map((ref) => ({ _tag: "MarketSettled" as const, ref })) },
  { weight: 1, arbitrary: fc.constantFrom("venue_a:M1", "venue_a:M2").map((ref) => ({ _tag: "MarketClosed" as const, ref })) },
)

const run = (rules: ReadonlyArray<StoredExitRule>, events: ReadonlyArray<OrderedEvent>): Array<ExitStep> => {
  const watch = new ExitWatch()
  for (const r of rules) watch.arm(r)
  const out: Array<ExitStep> = []
  for (const e of events) watch.apply(e, out)
  return out
}

describe("exit rules' watcher", () => {
  it("fires each rule at most once, at the first price that reaches a level (the trail off the running high), or ends it", () => {
    fc.assert(fc.property(fc.uniqueArray(aRule, { selector: (r) => r.id, maxLength: 8 }), fc.array(anEvent, { maxLength: 40 }), (rules, raw) => {
      const events = raw.map((e, i) => ({ ...e, ts: 1_000 + i, ...(e._tag === "MarketSettled" ? { winner: { id: "yes", name: "Yes", label: "Yes" } } : {}) })) as unknown as ReadonlyArray<OrderedEvent>
      const out = run(rules, events)
      expect(new Set(out.map((s) => s.rule.id)).size).toBe(out.length)
      for (const rule of rules) {
        let high = -Infinity
        let expected: ExitStep | undefined
        // A sale after the market closed (at that point of the feed) is tried as one that cannot fill.
        let closed = false
        for (const e of events) {
          if (!("ref" in e) || e.ref !== rule.market) continue
          if (e._tag === "MarketClosed") closed = true
          if (e._tag === "MarketSettled") {
            expected = { _tag: "End", rule, at: e.ts, reason: "market settled", high }
            break
          }
          if (e._tag !== "PriceChanged") continue
          const p = sidePrice(e.yesPrice, rule.side)
          high = Math.max(high, p)
          const reason = exitReason(rule, p, high)
          if (reason !== null) {
            expected = { _tag: "Sell", rule, at: e.ts, price: p, reason, high, open: !closed }
            break
          }
        }
        expect(out.find((s) => s.rule.id === rule.id)).toEqual(expected)
      }
      expect(run(rules, events)).toEqual(out)
    }))
  })

  it("a rule re-armed after a sale that could not fill knows of a close that came meanwhile (a late print does not sell)", () => {
    const [rule] = fc.sample(aRule.filter((r) => r.takeProfit !== null), { numRuns: 1, seed: 3 })
    if (rule === undefined) throw new Error("no rule")
    const at = (e: object, ts: number) => ({ ...e, ts }) as unknown as OrderedEvent
    const watch = new ExitWatch()
    watch.arm(rule)
    const steps: Array<ExitStep> = []
    const yes = (p: number) => (rule.side === 0 ? p : 1 - p)
    watch.apply(at({ _tag: "PriceChanged", ref: rule.market, yesPrice: yes(1) }, 1), steps) // fires
    watch.apply(at({ _tag: "MarketClosed", ref: rule.market }, 2), steps)
    watch.arm(rule, 1) // its sale found no bid: re-armed, as the layer does
    watch.apply(at({ _tag: "PriceChanged", ref: rule.market, yesPrice: yes(1) }, 3), steps)
    expect(steps.map((s) => [s.at, s._tag === "Sell" && s.open])).toEqual([[1, true], [3, false]])
  })

  it("a restart that re-arms the rules not yet fired with the highs taken before it gives the same steps as no restart", () => {
    fc.assert(fc.property(
      fc.uniqueArray(aRule, { selector: (r) => r.id, maxLength: 8 }), fc.array(anEvent, { maxLength: 40 }), fc.nat(),
      (rules, raw, cut) => {
        const events = raw.map((e, i) => ({ ...e, ts: 1_000 + i, ...(e._tag === "MarketSettled" ? { winner: { id: "yes", name: "Yes", label: "Yes" } } : {}) })) as unknown as ReadonlyArray<OrderedEvent>
        const k = events.length === 0 ? 0 : cut % (events.length + 1)
        const before = new ExitWatch()
        for (const r of rules) before.arm(r)
        const steps: Array<ExitStep> = []
        for (const e of events.slice(0, k)) before.apply(e, steps)
        // What the store holds at the restart: the rules not ended, each trailing one with its last high.
        const highs = new Map(before.takeHighs().map((h) => [h.id, h.high]))
        const after = new ExitWatch()
        for (const r of rules) if (!steps.some((s) => s.rule.id === r.id)) after.arm({ ...r, trailHigh: highs.get(r.id) ?? null })
        // …and the markets closed by then, as the store has them.
        for (const e of events.slice(0, k)) if (e._tag === "MarketClosed") after.markClosed(e.ref)
        for (const e of events.slice(k)) after.apply(e, steps)
        // A step's `high` matters only to a trail (what a rule that cannot sell is re-armed with, and the high it ends with).
        const seen = (s: ExitStep) => ({ ...s, rule: s.rule.id, ...(s.rule.trailingStop === null ? { high: null } : {}) })
        expect(steps.map(seen)).toEqual(run(rules, events).map(seen))
      },
    ))
  })
})
