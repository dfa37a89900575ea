import { describe, expect, it } from "vitest"
import { intelConfig } from "../../src/intel/config.js"
import { IntelPipeline, type StoredTrade } from "../../src/intel/pipeline.js"
import { tradeRowOf } from "../../src/intel/rows.js"
import { marketCall, marketFigures, winningPositionRows } from "../../src/intel/views.js"
import type { MarketInfo, MarketSide } from "../../src/domain/market-events.js"
import { aMarket, MIN, NO, opened, priced, settled, T0, traded, voided, YES } from "../support/intel-events.js"

const latest = (trades: ReadonlyArray<StoredTrade>): Map<string, StoredTrade> => new Map(trades.map((t) => [t.id, t]))

describe("trades", () => {
  it("keeps every named trade, flags whales, and gives each its entry from the trader's position", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    p.applyAll([
      opened(m),
      traded(m, { ts: T0 + 1, price: 0.4, usd: 500, trader: "ann" }),
      traded(m, { ts: T0 + 2, price: 0.5, usd: 20_000, trader: "ann" }),
      traded(m, { ts: T0 + 3, price: 0.6, usd: 15_000, trader: "ann", side: NO }),
      traded(m, { ts: T0 + 4, price: 0.5, usd: 300 }), // unnamed, small: not kept
      traded(m, { ts: T0 + 5, price: 0.5, usd: 12_000 }), // unnamed whale
    ])
    const trades = p.takeChanges().trades
    expect(trades.map((t) => [t.entry, t.whale, t.trader])).toEqual([
      ["open", false, "venue_a:ann"], ["add", true, "venue_a:ann"], ["flip", true, "venue_a:ann"], [null, true, null],
    ])
    const row = tradeRowOf(trades[1] as StoredTrade)
    expect(row.market).toEqual({ ref: "venue_a:C1", contract: "venue_a:C1", title: "Market C1", venue: "venue_a", category: "sports", kind: "nba" })
    expect(row.trader).toEqual({ ref: "venue_a:ann", name: "ANN", winRate: null, profit: null, settled: 0 })
    expect(row.time).toBe(new Date(T0 + 2).toISOString())
  })

  it("processes a trade once: the same print again adds nothing", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    const t = traded(m, { ts: T0 + 1, price: 0.4, usd: 20_000, trader: "ann", tradeId: "x1" })
    p.applyAll([opened(m), t, t])
    expect(p.takeChanges().trades).toHaveLength(1)
  })

  it("agreement counts earlier whale buys of the market in 24 h; on an event across its contracts", () => {
    const event = "venue_b:event:E1"
    const a = aMarket({ contract: "A", venue: "venue_b", event })
    const b = aMarket({ contract: "B", venue: "venue_b", event })
    const p = new IntelPipeline()
    p.applyAll([
      opened(a), opened(b),
      traded(a, { ts: T0 + 1, price: 0.5, usd: 10_000 }),
      traded(a, { ts: T0 + 2, price: 0.5, usd: 11_000, side: NO }),
      traded(b, { ts: T0 + 3, price: 0.5, usd: 12_000 }),
      traded(a, { ts: T0 + 4, price: 0.5, usd: 13_000 }),
      traded(a, { ts: T0 + 24 * 60 * MIN + 2, price: 0.5, usd: 14_000 }),
    ])
    const trades = p.takeChanges().trades
    expect(trades.map((t) => t.market)).toEqual([event, event, event, event, event])
    expect(trades[3]?.agreement).toEqual({ sameSide: { trades: 1, usd: 10_000 }, otherSide: { trades: 2, usd: 23_000 } })
    // 24 h later the first two have left the window (open at its old end).
    expect(trades[4]?.agreement).toEqual({ sameSide: { trades: 1, usd: 13_000 }, otherSide: { trades: 1, usd: 12_000 } })
  })
})

describe("settlement", () => {
  it("gives whale rows their result and profit, settles positions and updates records", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    p.applyAll([
      opened(m),
      traded(m, { ts: T0 + 1, price: 0.4, usd: 20_000, trader: "ann" }),
      traded(m, { ts: T0 + 2, price: 0.5, usd: 10_000, trader: "bob", side: NO }),
      traded(m, { ts: T0 + 3, price: 0.6, usd: 12_000, trader: "cy", action: "sell" }),
      settled(m, T0 + 10),
    ])
    const changes = p.takeChanges()
    const rows = latest(changes.trades)
    const [ann, bob, cy] = [...rows.values()]
    expect([ann?.result, ann?.profit]).toEqual(["win", 30_000])
    expect([bob?.result, bob?.profit]).toEqual(["loss", -10_000])
    expect(cy?.result).toBe("win")
    expect(changes.settlements).toEqual([{ seq: 4, contract: "venue_a:C1", status: "settled", winner: "Yes", time: T0 + 10 }])
    expect(p.recordRow("venue_a:ann", null, null)).toMatchObject({ trades: 1, settled: 1, wins: 1, profit: 30_000 })
    expect(p.summary("venue_a:bob", "sports", "nba")).toEqual({ winRate: null, profit: -10_000, settled: 1 })
    const positions = p.takePositionChanges()
    expect(positions.map((x) => [x.trader, x.status, x.result, x.profit])).toEqual([
      ["venue_a:ann", "settled", "win", 30_000], ["venue_a:bob", "settled", "loss", -10_000],
    ])
    expect(marketFigures(p, m.ref)).toMatchObject({ status: "settled", result: "Yes", settledAt: T0 + 10, outcomes: [] })
  })

  it("a void refunds: result void, profit 0, no settled bet", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    p.applyAll([opened(m), traded(m, { ts: T0 + 1, price: 0.4, usd: 20_000, trader: "ann" }), voided(m, T0 + 5), voided(m, T0 + 6)])
    const changes = p.takeChanges()
    expect([...latest(changes.trades).values()].map((t) => [t.result, t.profit])).toEqual([["void", 0]])
    expect(changes.settlements).toHaveLength(1)
    expect(p.recordRow("venue_a:ann", null, null)).toMatchObject({ settled: 0, voids: 1 })
  })
})

describe("the result of a settled multi-contract market", () => {
  const nominee = (contract: string, label: string) =>
    aMarket({ contract, event: "venue_a:event:OSC", eventTitle: "Best Picture", title: `Will ${label} win?`, sides: [{ ...YES, label }, { ...NO, label }] })
  const settle = (p: IntelPipeline, markets: ReadonlyArray<MarketInfo>, winners: ReadonlyArray<MarketSide>, usd: ReadonlyArray<number>) =>
    markets.forEach((m, i) => p.applyAll([opened(m), traded(m, { ts: T0 + i, price: 0.5, usd: usd[i] as number }), settled(m, T0 + 100, winners[i])]))

  it("on Yes/No venues is the label of the one contract whose Yes won (its title without a label of its own)", () => {
    const p = new IntelPipeline()
    const [a, b, c] = [nominee("A", "Anora"), nominee("B", "The Brutalist"), nominee("C", "Yes")]
    settle(p, [a, b, c], [NO, YES, NO], [9_000, 1_000, 5_000])
    expect(marketFigures(p, "venue_a:event:OSC")).toMatchObject({ status: "settled", result: "The Brutalist" })
    const q = new IntelPipeline()
    settle(q, [a, c], [NO, YES], [9_000, 1_000])
    expect(marketFigures(q, "venue_a:event:OSC")?.result).toBe("Will Yes win?")
  })

  it("is otherwise the winning side of the most traded settled contract (venue_b names its sides; no Yes won)", () => {
    const p = new IntelPipeline()
    const [a, b] = [nominee("A", "Anora"), nominee("B", "The Brutalist")]
    settle(p, [a, b], [NO, NO], [1_000, 9_000])
    expect(marketFigures(p, "venue_a:event:OSC")).toMatchObject({ status: "settled", result: "No" })
    const liberty = { id: "l", name: "Liberty", label: "Liberty" }
    const sky = { id: "s", name: "Sky", label: "Sky" }
    const over = { id: "o", name: "Over", label: "Over" }
    const under = { id: "u", name: "Under", label: "Under" }
    const game = { venue: "venue_b" as const, event: "venue_b:event:G", eventTitle: "Liberty vs Sky" }
    const moneyline = aMarket({ ...game, contract: "ML", title: "Liberty vs Sky", sides: [liberty, sky] })
    const total = aMarket({ ...game, contract: "OU", title: "O/U 167.5", sides: [over, under] })
    const q = new IntelPipeline()
    settle(q, [moneyline, total], [sky, under], [20_000, 3_000])
    expect(marketFigures(q, "venue_b:event:G")).toMatchObject({ status: "settled", result: "Sky" })
  })
})

describe("moves and figures", () => {
  it("takes a market's point that arrives after another market's newer event moved the clock (a venue_b trade out of its join window)", () => {
    const late = aMarket({ contract: "LATE", venue: "venue_b" })
    const other = aMarket({ contract: "OTHER" })
    const p = new IntelPipeline()
    p.applyAll([opened(late), opened(other), priced(late, T0, 0.6), priced(other, T0 + 15_000, 0.5)])
    // The clock enters a new minute on the other market; the late market's trade of 10 s before comes after.
    p.applyAll([priced(other, T0 + 70_000, 0.5), priced(late, T0 + 60_000, 0.4)])
    p.applyAll([priced(other, T0 + 20 * MIN, 0.5)])
    expect(p.takeChanges().moves.filter((m) => m.ref === late.ref).map((m) => [m.type, m.outcome, m.time]))
      .toEqual([["move", "Yes", T0 + 60_000 + 5 * MIN], ["flip", "No", T0 + 60_000 + 5 * MIN]])
  })

  it("records a move once the Yes price held, and whales when three whales buy one side", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    p.applyAll([
      opened(m), priced(m, T0, 0.4), priced(m, T0 + 2 * MIN, 0.55), priced(m, T0 + 10 * MIN, 0.56),
      traded(m, { ts: T0 + 11 * MIN, price: 0.56, usd: 10_000, trader: "a" }),
      traded(m, { ts: T0 + 12 * MIN, price: 0.56, usd: 10_000, trader: "b" }),
      traded(m, { ts: T0 + 13 * MIN, price: 0.56, usd: 10_000, trader: "c" }),
    ])
    const moves = p.takeChanges().moves
    expect(moves.map((x) => [x.type, x.outcome, x.time])).toEqual([
      ["move", "Yes", T0 + 7 * MIN], ["flip", "Yes", T0 + 7 * MIN], ["whales", "Yes", T0 + 13 * MIN],
    ])
    expect(moves[0]).toMatchObject({ priceBefore: 0.4, minutes: 2, ref: m.ref, venue: "venue_a" })
    expect(moves[2]).toMatchObject({ traders: 3, usd: 30_000 })
    const figures = marketFigures(p, m.ref)
    expect(figures).toMatchObject({ volume1h: 30_000, whaleMoney: 30_000, status: "open", move1h: 0.16 })
    expect(marketFigures(p, m.ref, T0 + 80 * MIN)).toMatchObject({ volume1h: 0, whaleMoney: null })
  })
})

describe("an event's contracts", () => {
  it("are kept in listing order (time, then ref) whatever order they were announced in, as a restart restores them", () => {
    const p = new IntelPipeline()
    const at = (contract: string, listedAt: number) => aMarket({ contract, event: "venue_a:event:E", eventTitle: "E", listedAt })
    p.applyAll([opened(at("E-C", T0)), opened(at("E-B", T0)), opened(at("E-A", T0 + MIN)), opened(at("E-0", T0 - MIN), T0 + 2 * MIN)])
    expect(p.contractsOf("venue_a:event:E")).toEqual(["venue_a:E-0", "venue_a:E-B", "venue_a:E-C", "venue_a:E-A"])
  })
})

describe("an ended event's lead and result", () => {
  it("count the dollars of kept trades (whale or named), which a restart gives back, not every small trade", () => {
    const p = new IntelPipeline()
    const at = (contract: string) => aMarket({ contract, event: "venue_d:event:K", eventTitle: "K", venue: "venue_d", listedAt: T0 })
    const [a, b, c] = [at("K-A"), at("K-B"), at("K-C")]
    p.applyAll([
      opened(a), opened(b), opened(c),
      traded(a, { ts: T0 + 1, price: 0.5, usd: 12_000 }), // a whale: kept
      traded(c, { ts: T0 + 2, price: 0.5, usd: 9_000 }), traded(c, { ts: T0 + 3, price: 0.5, usd: 9_000 }), // small, unnamed: not kept
    ])
    expect(marketFigures(p, "venue_d:event:K")?.lead.ref).toBe("venue_d:K-C") // open: the most traded of all trades
    p.applyAll([settled(a, T0 + MIN), settled(b, T0 + MIN), settled(c, T0 + MIN, NO)]) // two Yes won: the lead decides
    const f = marketFigures(p, "venue_d:event:K")
    expect([f?.lead.ref, f?.result]).toEqual(["venue_d:K-A", "Yes"])
  })
})

describe("a trade delivered twice", () => {
  it("counts once in the market's figures (history and the live feed overlap at the hand-over)", () => {
    const m = aMarket({ contract: "C1" })
    const p = new IntelPipeline()
    const small = traded(m, { ts: T0 + MIN, price: 0.5, usd: 300, tradeId: "k1" })
    const whale = traded(m, { ts: T0 + MIN, price: 0.5, usd: 20_000, tradeId: "k2" })
    p.applyAll([opened(m), small, whale, small, whale])
    expect(marketFigures(p, m.ref, T0 + 2 * MIN)).toMatchObject({ volume1h: 20_300, whaleMoney: 20_000 })
    expect(p.takeChanges().trades).toHaveLength(1)
    // Another trade with its own id at the same time and size still counts.
    p.apply(traded(m, { ts: T0 + MIN, price: 0.5, usd: 300, tradeId: "k3" }))
    expect(marketFigures(p, m.ref, T0 + 2 * MIN)).toMatchObject({ volume1h: 20_600 })
  })
})

describe("a market's hour sums", () => {
  it("read to 6 decimals, without the running sum's float noise", () => {
    const m = aMarket({ contract: "C-NOISE" })
    const p = new IntelPipeline()
    p.apply(opened(m))
    // The hour's sum is kept running (add on a trade, subtract as it leaves the hour): in floats 1,000.1
    // and 0.2 in and out again around a 1.1 that stays leave 1.1000000000000683. Trades' dollars carry 6
    // decimals, so do the sums.
    p.applyAll([
      traded(m, { ts: T0, price: 0.5, usd: 1_000.1, tradeId: "n1" }), traded(m, { ts: T0 + 1, price: 0.5, usd: 0.2, tradeId: "n2" }),
      traded(m, { ts: T0 + 30 * MIN, price: 0.5, usd: 1.1, tradeId: "n3" }),
    ])
    expect(marketFigures(p, m.ref, T0 + 30 * MIN)?.volume1h).toBe(1_001.4)
    expect(marketFigures(p, m.ref, T0 + 61 * MIN)?.volume1h).toBe(1.1)
  })
})

describe("winning positions and the call", () => {
  const config = intelConfig({ winning: { minSettled: 2, minWinRate: 0.5, minProfit: 0 }, records: { minSettledForRates: 2 } })

  it("lists sides held by traders with a winning record in the kind, with record and call", () => {
    const p = new IntelPipeline(config)
    const history = Array.from({ length: 4 }, (_, i) => aMarket({ contract: `H${i}` }))
    // ann and bob win four bets each at 0.4 (whale size): a winning record and a profitable band.
    for (const [i, h] of history.entries()) {
      p.applyAll([
        opened(h),
        traded(h, { ts: T0 + i * 10, price: 0.4, usd: 10_000, trader: "ann" }),
        traded(h, { ts: T0 + i * 10 + 1, price: 0.45, usd: 10_000, trader: "bob" }),
        traded(h, { ts: T0 + i * 10 + 2, price: 0.45, usd: 10_000, trader: "loser", side: NO }),
        settled(h, T0 + i * 10 + 5),
      ])
    }
    const m = aMarket({ contract: "LIVE" })
    p.applyAll([
      opened(m), priced(m, T0 + MIN, 0.42),
      traded(m, { ts: T0 + MIN, price: 0.42, usd: 21_000, trader: "ann" }),
      traded(m, { ts: T0 + 2 * MIN, price: 0.42, usd: 4_200, trader: "bob" }),
      traded(m, { ts: T0 + 3 * MIN, price: 0.58, usd: 5_800, trader: "loser", side: NO }),
    ])
    const rows = winningPositionRows(p)
    expect(rows).toHaveLength(1)
    const row = rows[0]
    expect(row).toMatchObject({ outcome: "Yes", usd: 25_200, entryPrice: 0.42, price: 0.42, openedAt: T0 + MIN, lastBoughtAt: T0 + 2 * MIN })
    expect(row?.lead).toMatchObject({ ref: "venue_a:ann", usd: 21_000, settled: 4, winRate: 1 })
    expect(row?.others.map((h) => h.ref)).toEqual(["venue_a:bob"])
    expect(row?.split).toEqual({ sameSideUsd: 25_200, otherSideUsd: 0, otherSideTraders: 0 })
    expect(row?.record).toEqual({ settled: 12, winRate: 8 / 12, maxPrice: 0.5 }) // the loser's No bets at 0.45 share the band
    const call = marketCall(p, m.ref, rows)
    expect(call).toMatchObject({ outcome: "Yes", action: "buy", price: 0.42, maxPrice: 0.5 })
    expect(call?.reasons.length).toBeLessThanOrEqual(4)
    // Above the record's price the call says watch.
    p.apply(priced(m, T0 + 4 * MIN, 0.7))
    expect(marketCall(p, m.ref)).toMatchObject({ outcome: "Yes", action: "watch" })
    expect(marketCall(p, "venue_a:nothing")).toBeNull()
  })

  it("a position 95 % sold is no longer open: its holder leaves the row (94 % sold still counts)", () => {
    const p = new IntelPipeline(config)
    for (const [i, h] of Array.from({ length: 2 }, (_, i) => aMarket({ contract: `H${i}` })).entries()) {
      p.applyAll([
        opened(h),
        traded(h, { ts: T0 + i * 10, price: 0.4, usd: 10_000, trader: "ann" }),
        traded(h, { ts: T0 + i * 10 + 1, price: 0.4, usd: 10_000, trader: "bob" }),
        settled(h, T0 + i * 10 + 5),
      ])
    }
    const m = aMarket({ contract: "LIVE" })
    p.applyAll([
      opened(m), priced(m, T0 + MIN, 0.5),
      traded(m, { ts: T0 + MIN, price: 0.5, usd: 1_000, trader: "ann" }), // 2,000 contracts
      traded(m, { ts: T0 + MIN + 1, price: 0.5, usd: 1_000, trader: "bob" }),
    ])
    expect(winningPositionRows(p).filter((r) => r.market === m.ref).map((r) => [r.lead?.ref, r.others.map((h) => h.ref)]))
      .toEqual([["venue_a:ann", ["venue_a:bob"]]])
    p.applyAll([
      traded(m, { ts: T0 + 2 * MIN, price: 0.5, usd: 940, trader: "ann", action: "sell" }), // 94 %: reduced
      traded(m, { ts: T0 + 2 * MIN + 1, price: 0.5, usd: 950, trader: "bob", action: "sell" }), // 95 %: exited
    ])
    expect(p.positionRows().filter((r) => r.contract === m.ref).map((r) => [r.trader, r.status, r.heldContracts]))
      .toEqual([["venue_a:ann", "reduced", 120], ["venue_a:bob", "exited", 100]])
    const rows = winningPositionRows(p).filter((r) => r.market === m.ref)
    expect(rows.map((r) => [r.lead?.ref, r.others.map((h) => h.ref), r.usd])).toEqual([["venue_a:ann", [], 60]])
    p.apply(traded(m, { ts: T0 + 3 * MIN, price: 0.5, usd: 950, trader: "ann", action: "sell" }))
    expect(winningPositionRows(p).filter((r) => r.market === m.ref)).toEqual([])
  })
})
