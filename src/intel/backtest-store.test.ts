// The backtest history's bookkeeping: what it keeps, dedupe by seq, settlement by trade and by
// contract, window search on out-of-order rows and the re-sort, and the catch-up cursor's holes.
import { describe, expect, it } from "vitest"
import type { SignalBacktest } from "../domain/backtest.js"
import type { Signal } from "../domain/signal.js"
import { BacktestHistory, RESULT, SeqCursor, type HistoryTrade } from "./backtest-store.js"
import { scoreSignal } from "./backtest.js"

let seq = 0
const aTrade = (over: Partial<HistoryTrade> = {}): HistoryTrade => {
  seq++
  return {
    id: `t${seq}`, seq, time: 1_000 + seq, venue: "venue_a", contract: "venue_a:c", outcome: "Yes", title: "T",
    category: "sports", kind: null, action: "buy", entry: null, price: 0.5, usd: 20_000, trader: null, whale: true,
    result: "open", settledAt: null, ...over,
  }
}

describe("BacktestHistory", () => {
  it("keeps whale buys and named buys; sells and small unnamed buys only mark their seq", () => {
    const h = new BacktestHistory()
    const sell = aTrade({ action: "sell" })
    const small = aTrade({ whale: false })
    h.addAll([aTrade(), aTrade({ whale: false, trader: "venue_a:ann" }), sell, small])
    expect(h.size).toBe(2)
    expect(h.hasSeen(sell.seq) && h.hasSeen(small.seq)).toBe(true)
    expect(h.traderRows("venue_a:ann")?.length).toBe(1)
  })

  it("adds a seq once; a known open trade seen again settled takes its result", () => {
    const h = new BacktestHistory()
    const t = aTrade()
    h.add(t)
    h.add(t)
    expect(h.size).toBe(1)
    h.add({ ...t, result: "win", settledAt: 5_000 })
    expect(h.size).toBe(1)
    expect(h.result[0]).toBe(RESULT.win)
    expect(h.ppd[0]).toBe(1)
    expect(h.settledAt[0]).toBe(5_000)
  })

  it("settles by trade id and by contract (winner, or void with no winner)", () => {
    const h = new BacktestHistory()
    h.addAll([
      aTrade({ contract: "k", outcome: "Yes" }), aTrade({ contract: "k", outcome: "No", price: 0.25 }),
      aTrade({ contract: "v" }), aTrade({ id: "solo", contract: "s", price: 0.2 }),
    ])
    h.settleContract("k", "No", 9_000)
    h.settleContract("v", null, 9_000)
    h.settleTrade("solo", "win", 9_000)
    expect([...h.result.slice(0, 4)]).toEqual([RESULT.loss, RESULT.win, RESULT.void, RESULT.win])
    expect([...h.ppd.slice(0, 4)].map((x) => Math.round(x * 1e9) / 1e9)).toEqual([-1, 3, 0, 4])
    // Settling again changes nothing.
    h.settleContract("k", "Yes", 10_000)
    expect(h.result[0]).toBe(RESULT.loss)
  })

  it("finds the first row of a window through rows out of order, and re-sorts when many are", () => {
    const h = new BacktestHistory()
    const early = [...Array.from({ length: 10 }, (_, i) => aTrade({ time: 100 * i })), aTrade({ time: 50 })]
    h.addAll(early)
    expect(h.firstRowFrom(450)).toBe(5)
    expect(h.firstRowFrom(0)).toBe(0)
    const times = (): Array<number> => [...h.time.slice(0, h.size)]
    const late = Array.from({ length: 1_200 }, (_, i) => aTrade({
      time: 10 + (i % 7), trader: "venue_a:ann", venue: i % 3 === 0 ? "venue_b" : "venue_a", title: i % 2 === 0 ? "Lakers" : "Senate",
      result: "win", settledAt: 20,
    }))
    h.addAll(late)
    h.prepare()
    const sorted = times()
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b))
    const list = h.traderRows("venue_a:ann")
    expect(list?.length).toBe(1_200)
    for (let j = 0; j < (list?.length ?? 0); j++) expect(h.trader[list?.rows[j] ?? -1]).toBe(h.traderIndex("venue_a:ann"))
    // The re-sorted columns and rebuilt lists score like a history that arrived in time order.
    const inOrder = new BacktestHistory()
    inOrder.addAll([...early, ...late].sort((a, b) => a.time - b.time))
    const request = (signal: Partial<Signal>): SignalBacktest => ({ signal: { entry: "all", ...signal } as Signal, sizing: { usd: 1 }, days: 1, holdout: false })
    for (const signal of [{ maxUsd: 1e9 }, { venue: ["venue_b"] }, { keywords: ["lakers"] }, { traders: ["venue_a:ann"] }] as ReadonlyArray<Partial<Signal>>) {
      const score = scoreSignal(h, request(signal), 86_400_000)
      expect(score).toEqual(scoreSignal(inOrder, request(signal), 86_400_000))
      expect(score.trades).toBeGreaterThan(300)
    }
  })
})

describe("SeqCursor", () => {
  it("stops at a hole, moves on when it fills, and gives up on it after holeMs", () => {
    const h = new BacktestHistory()
    const cursor = new SeqCursor(1_000)
    for (const s of [1, 2, 4, 5]) h.markSeen(s)
    cursor.advance(h, 5, 0)
    expect(cursor.from).toBe(2)
    h.markSeen(3)
    cursor.advance(h, 5, 10)
    expect(cursor.from).toBe(5)
    h.markSeen(7)
    cursor.advance(h, 7, 20)
    expect(cursor.from).toBe(5)
    cursor.advance(h, 7, 500)
    expect(cursor.from).toBe(5)
    cursor.advance(h, 7, 1_020)
    expect(cursor.from).toBe(7)
  })
})
