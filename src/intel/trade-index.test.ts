import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { StoredTrade } from "./pipeline.js"
import { type TradeKey, type TradeQuery, TradeIndex } from "./trade-index.js"

const DAY = 86_400_000
const T0 = Date.UTC(2026, 0, 1)

const trade = (i: number, o: Partial<StoredTrade> = {}): StoredTrade => ({
  id: `wt_${String(i).padStart(4, "0")}`, seq: i, tradeId: `t${i}`, txId: null, time: T0 + i * 60_000, venue: "venue_a",
  market: "venue_a:M", contract: "venue_a:M", event: null, title: "Will it rain?", category: "culture", kind: "weather",
  outcome: "Yes", outcomeLabel: "Yes", action: "buy", entry: "open", price: 0.5, usd: 20_000, contracts: 40_000,
  trader: "venue_a:alice", traderName: "alice", whale: true, summary: null, agreement: null, result: "open", profit: null,
  settledAt: null, ...o,
})

const base: TradeQuery = { action: "all", entry: "all", named: false, words: [], from: -Infinity, to: Infinity, sort: "newest" }

/** The reference: every row the query matches, in its order, after the key. */
const expected = (rows: ReadonlyArray<StoredTrade>, q: TradeQuery, key: TradeKey | undefined, take: number) => {
  const value = (t: StoredTrade) => (q.sort === "size" ? t.usd : t.time)
  return rows
    .filter((t) => t.time >= q.from && t.time <= q.to)
    .filter((t) => q.venue === undefined || q.venue.includes(t.venue))
    .filter((t) => q.trader === undefined || (t.trader !== null && q.trader.includes(t.trader)))
    .filter((t) => q.market === undefined || q.market.includes(t.market) || q.market.includes(t.contract))
    .filter((t) => q.action === "all" || t.action === q.action)
    .filter((t) => q.minUsd === undefined || t.usd >= q.minUsd)
    .filter((t) => q.result === undefined || t.result === q.result)
    .filter((t) => q.words.every((w) => `${t.title} ${t.outcome} ${t.outcomeLabel}`.toLowerCase().includes(w)))
    .filter((t) => key === undefined || value(t) < key[0] || (value(t) === key[0] && t.id > key[1]))
    .sort((a, b) => value(b) - value(a) || (a.id < b.id ? -1 : 1))
    .slice(0, take)
}

const arbitraryTrade = (i: number) =>
  fc.record({
    time: fc.integer({ min: 0, max: 40 }).map((m) => T0 + m * 60_000),
    usd: fc.constantFrom(10_000, 20_000, 30_000),
    trader: fc.constantFrom("venue_a:alice", "venue_a:bob", null),
    contract: fc.constantFrom("venue_a:E1A", "venue_a:E1B", "venue_a:C1"),
    action: fc.constantFrom("buy" as const, "sell" as const),
    result: fc.constantFrom("open" as const, "win" as const),
    title: fc.constantFrom("Rain in Paris?", "Sun in Rome?"),
  }).map((o) => trade(i, { ...o, market: o.contract === "venue_a:C1" ? o.contract : "venue_a:event:E1" }))

const arbitraryQuery: fc.Arbitrary<TradeQuery> = fc.record({
  sort: fc.constantFrom("newest" as const, "size" as const),
  trader: fc.option(fc.subarray(["venue_a:alice", "venue_a:bob", "venue_a:zed"], { minLength: 1 }), { nil: undefined }),
  market: fc.option(fc.subarray(["venue_a:event:E1", "venue_a:E1A", "venue_a:C1"], { minLength: 1 }), { nil: undefined }),
  action: fc.constantFrom("buy" as const, "sell" as const, "all" as const),
  minUsd: fc.option(fc.constantFrom(15_000, 30_000), { nil: undefined }),
  result: fc.option(fc.constantFrom("open" as const, "win" as const), { nil: undefined }),
  words: fc.constantFrom([], ["rain"], ["in", "rome"]),
  from: fc.integer({ min: 0, max: 20 }).map((m) => T0 + m * 60_000),
  to: fc.integer({ min: 20, max: 40 }).map((m) => T0 + m * 60_000),
}).map((q) => ({ ...base, ...q }))

describe("TradeIndex", () => {
  it("pages exactly like filtering and sorting every row, through every cursor, with settled rows replacing open ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { maxLength: 60 }).chain((seeds) => fc.tuple(...seeds.map((_, i) => arbitraryTrade(i)))),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 7 }),
        arbitraryQuery,
        (trades, settle, take, q) => {
          const index = new TradeIndex(30)
          // Two batches, as flushes deliver them; then the settled versions of some rows.
          index.upsert(trades.slice(0, Math.floor(trades.length / 2)))
          index.upsert(trades.slice(Math.floor(trades.length / 2)))
          const current = new Map(trades.map((t) => [t.id, t]))
          const settled = settle.flatMap((n) => {
            const t = trades[n % Math.max(1, trades.length)]
            return t === undefined ? [] : [{ ...t, result: "win" as const, profit: 1 }]
          })
          index.upsert(settled)
          for (const t of settled) current.set(t.id, t)
          const rows = [...current.values()]
          // Walk every page by the last row's key, as the cursor does.
          let key: TradeKey | undefined
          for (let pages = 0; pages < 100; pages++) {
            const page = index.page(q, key, take)
            expect(page).toEqual(expected(rows, q, key, take))
            const last = page[page.length - 1]
            if (page.length < take || last === undefined) return
            key = [q.sort === "size" ? last.usd : last.time, last.id]
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it("keeps only whale trades and drops rows older than the window and a day, by feed time", () => {
    const index = new TradeIndex(30)
    index.upsert([trade(1, { whale: false }), trade(2)])
    expect(index.size).toBe(1)
    index.upsert([trade(3, { time: T0 + 31 * DAY - 1 })])
    expect(index.size).toBe(2)
    index.upsert([trade(4, { time: T0 + 31 * DAY + 2 * 60_000 + 3_600_000 })])
    expect(index.page(base, undefined, 10).map((t) => t.id)).toEqual(["wt_0004", "wt_0003"])
  })

  it("applies the extra test only to rows every other filter passed", () => {
    const index = new TradeIndex(30)
    index.upsert([trade(1), trade(2, { venue: "venue_d" }), trade(3)])
    const seen: Array<string> = []
    const page = index.page({ ...base, venue: ["venue_a"], accept: (t) => (seen.push(t.id), t.id !== "wt_0003") }, undefined, 10)
    expect(page.map((t) => t.id)).toEqual(["wt_0001"])
    expect(seen).toEqual(["wt_0003", "wt_0001"])
  })
})
