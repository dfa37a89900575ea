// Undoing a fill whose write failed takes out that fill only, whatever was applied to the holding since
// (a group commit applies every waiting order before its one write).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyFill, applySettlement, emptyAccount, holdingKey, type AccountContext, type RecordedFill, undoFill } from "./account.machine.js"

const market = { ref: "venue_a:M", contract: "venue_a:M", title: "M", venue: "venue_a", category: null, kind: null } as const
const fillOf = (seq: number, action: "buy" | "sell", contracts: number, cost: number): RecordedFill => ({
  seq, ref: "venue_a:M", market, outcome: "Yes", action, contracts, cost, at: 1_000 + seq, source: "hand", bot: null,
})
const KEY = holdingKey("venue_a:M", "Yes", "hand", null)

/** Applies fills in order; returns the account and what each apply gave (for undo). */
const applyAll = (fills: ReadonlyArray<RecordedFill>) => {
  let context: AccountContext = emptyAccount("a")
  const applied = fills.map((fill) => {
    const r = applyFill(context, fill)
    context = r.context
    return { fill, before: r.before, profit: r.profit }
  })
  return { context, applied }
}

describe("undoFill", () => {
  it("two buys on one holding, the first one's write fails: the second stays", () => {
    const a = fillOf(1, "buy", 10, 5)
    const b = fillOf(2, "buy", 4, 2.2)
    const { context, applied } = applyAll([a, b])
    const undone = undoFill(context, a, applied[0]!.before, applied[0]!.profit)
    expect(undone.holdings[KEY]).toMatchObject({ contracts: 4, cost: 2.2, status: "open" })
    // Putting `before` back (null: no holding) would have taken b out too.
  })

  it("a sale's undo puts its contracts and cost basis back on the holding as it is now", () => {
    const { context, applied } = applyAll([fillOf(1, "buy", 10, 5), fillOf(2, "sell", 4, 2.4), fillOf(3, "buy", 2, 1)])
    const sale = applied[1]!
    const undone = undoFill(context, sale.fill, sale.before, sale.profit)
    expect(undone.holdings[KEY]).toMatchObject({ contracts: 12, cost: 6 })
    expect(undone.realized).toBe(0)
  })

  it("buys only: undoing any failed ones, in any order, leaves what the stored ones alone make", () => {
    fc.assert(fc.property(
      fc.array(fc.record({ contracts: fc.integer({ min: 1, max: 1_000 }), cents: fc.integer({ min: 1, max: 99 }), fails: fc.boolean() }), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 0, max: 1_000 }),
      (orders, seed) => {
        const fills = orders.map((o, i) => fillOf(i + 1, "buy", o.contracts, (o.contracts * o.cents) / 100))
        const all = applyAll(fills)
        const applied = all.applied
        let context = all.context
        const failed = applied.filter((_, i) => orders[i]!.fails)
        // Undo in a shuffled order (the failed writes' fibers finish in any order).
        const order = failed.map((f, i) => ({ f, r: (i * 7_919 + seed) % 101 })).sort((x, y) => x.r - y.r).map((x) => x.f)
        for (const f of order) context = undoFill(context, f.fill, f.before, f.profit)
        const expected = applyAll(fills.filter((_, i) => !orders[i]!.fails)).context.holdings[KEY]
        const got = context.holdings[KEY]
        if (expected === undefined) expect(got).toBeUndefined()
        else {
          expect(got?.contracts).toBeCloseTo(expected.contracts, 6)
          expect(got?.cost).toBeCloseTo(expected.cost, 6)
        }
      },
    ), { numRuns: 300, seed: 3 })
  })
})

describe("a fill after its market settled", () => {
  const settle = (context: AccountContext, winner: string | null) => applySettlement(context, "venue_a:M", winner, 9_000)
  for (const winner of ["Yes", "No", null] as const) {
    it(`joins the settled holding as a restore would make it (${winner ?? "void"})`, () => {
      const a = fillOf(1, "buy", 10, 4)
      const b = fillOf(2, "buy", 6, 3)
      // Live: a, the settlement, then b late. Restore: a and b, then the settlement.
      const live = applyFill(settle(applyAll([a]).context, winner), b)
      const restored = settle(applyAll([a, b]).context, winner)
      expect(live.context.holdings[KEY]).toEqual(restored.holdings[KEY])
      expect(live.context.realized).toBeCloseTo(restored.realized, 9)
      expect([live.context.wins, live.context.losses]).toEqual([restored.wins, restored.losses])
      // And its undo puts the settled holding and realized back.
      const undone = undoFill(live.context, b, live.before, live.profit)
      expect(undone.holdings[KEY]).toEqual(settle(applyAll([a]).context, winner).holdings[KEY])
      expect(undone.realized).toBeCloseTo(settle(applyAll([a]).context, winner).realized, 9)
    })

    it(`a late sale (a bot's mirrored exit) is taken as if before the settlement, as a restore would (${winner ?? "void"})`, () => {
      fc.assert(fc.property(
        fc.integer({ min: 2, max: 1_000 }), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 99 }),
        (contracts, cents, percentSold, saleCents) => {
          const a = fillOf(1, "buy", contracts, (contracts * cents) / 100)
          const soldContracts = Math.max(1, Math.round((contracts * percentSold) / 100))
          const sale = fillOf(2, "sell", soldContracts, (soldContracts * saleCents) / 100)
          const live = applyFill(settle(applyAll([a]).context, winner), sale)
          const restored = settle(applyAll([a, sale]).context, winner)
          const got = live.context.holdings[KEY]
          const expected = restored.holdings[KEY]
          expect(got === undefined).toBe(expected === undefined)
          if (got !== undefined && expected !== undefined) {
            expect(got.status).toBe("settled")
            expect(got.contracts).toBeCloseTo(expected.contracts, 6)
            expect(got.cost).toBeCloseTo(expected.cost, 6)
            expect(got.payout ?? 0).toBeCloseTo(expected.payout ?? 0, 6)
          }
          expect(live.context.realized).toBeCloseTo(restored.realized, 6)
          expect([live.context.wins, live.context.losses]).toEqual([restored.wins, restored.losses])
          expect(live.profit).toBeCloseTo(applyAll([a, sale]).applied[1]!.profit ?? NaN, 9)
          // Its undo puts the settled holding, realized, wins and losses back.
          const settledOnly = settle(applyAll([a]).context, winner)
          const undone = undoFill(live.context, sale, live.before, live.profit)
          expect(undone.holdings[KEY]?.contracts).toBeCloseTo(settledOnly.holdings[KEY]!.contracts, 6)
          expect(undone.holdings[KEY]?.cost).toBeCloseTo(settledOnly.holdings[KEY]!.cost, 6)
          expect(undone.realized).toBeCloseTo(settledOnly.realized, 6)
          expect([undone.wins, undone.losses]).toEqual([settledOnly.wins, settledOnly.losses])
        },
      ), { numRuns: 200, seed: 21 })
    })
  }
})

describe("applyFill", () => {
  it("a bot holding carries the bot's name of its newest fill (a signal bot may be renamed between fills)", () => {
    const botFill = (seq: number, name: string): RecordedFill => ({ ...fillOf(seq, "buy", 5, 2), source: "bot", bot: { id: "signal:s1", name } })
    const { context } = applyAll([botFill(1, "Old name"), botFill(2, "New name")])
    expect(context.holdings[holdingKey("venue_a:M", "Yes", "bot", "signal:s1")]).toMatchObject({ contracts: 10, bot: { id: "signal:s1", name: "New name" } })
  })
})
