import { describe, expect, it } from "vitest"
import { intelConfig } from "./config.js"
import { PositionBook, positionHistory, whaleStatusOf, type PositionTrade } from "./positions.js"

let seq = 0
const trade = (action: "buy" | "sell", outcome: string, contracts: number, price: number, time: number, contract = "c1"): PositionTrade =>
  ({ id: `t${++seq}`, trader: "venue_a:ann", time, contract, outcome, action, price, contracts, usd: contracts * price })

describe("entries", () => {
  it("open, add, trim, close, then open again", () => {
    const trades = [
      trade("buy", "Yes", 100, 0.4, 1), trade("buy", "Yes", 100, 0.5, 2), trade("sell", "Yes", 50, 0.6, 3),
      trade("sell", "Yes", 150, 0.7, 4), trade("buy", "Yes", 10, 0.3, 5),
    ]
    const { entries } = positionHistory(trades)
    expect(trades.map((t) => entries.get(t.id))).toEqual(["open", "add", "trim", "close", "open"])
  })

  it("buying the other side while holding one is a flip; buying more of it then is an add", () => {
    const trades = [trade("buy", "Yes", 10, 0.4, 1), trade("buy", "No", 10, 0.6, 2), trade("buy", "No", 5, 0.6, 3), trade("buy", "Yes", 5, 0.4, 4)]
    const { entries } = positionHistory(trades)
    expect(trades.map((t) => entries.get(t.id))).toEqual(["open", "flip", "add", "add"])
  })

  it("a position's dollars and contracts are rounded to 6 decimals (sums of many trades carry no float dust)", () => {
    const trades = Array.from({ length: 30 }, (_, i) => trade("buy", "Yes", 0.1 + i / 7, 0.37 + (i % 5) / 100, i + 1))
    const [row] = positionHistory(trades).positions
    for (const value of [row?.usd, row?.boughtContracts, row?.entryPrice]) {
      expect(value).toBeDefined()
      expect(Number((value ?? 0).toFixed(6))).toBe(value)
    }
    expect(row?.usd).toBeCloseTo(trades.reduce((sum, t) => sum + t.usd, 0), 5)
  })

  it("positions on different contracts do not touch", () => {
    const trades = [trade("buy", "Yes", 10, 0.4, 1, "c1"), trade("buy", "No", 10, 0.6, 2, "c2")]
    expect(trades.map((t) => positionHistory(trades).entries.get(t.id))).toEqual(["open", "open"])
  })

  it("a sale of a side never seen bought is unknown (null) and starts no position", () => {
    const sale = trade("sell", "Yes", 10, 0.5, 1)
    const history = positionHistory([sale])
    expect(history.entries.get(sale.id)).toBeNull()
    expect(history.positions).toEqual([])
  })

  it("a sale of more than is held closes and is clipped to the held size, dollars prorated", () => {
    const trades = [trade("buy", "Yes", 10, 0.5, 1), trade("sell", "Yes", 20, 0.6, 2)]
    const { entries, positions } = positionHistory(trades)
    expect(entries.get(trades[1]?.id ?? "")).toBe("close")
    expect(positions[0]).toMatchObject({ soldContracts: 10, heldContracts: 0, status: "exited" })
    expect(positions[0]?.soldUsd).toBeCloseTo(6)
    expect(positions[0]?.profit).toBeCloseTo(1)
  })

  it("trades on a settled contract are ignored", () => {
    const book = new PositionBook()
    book.apply(trade("buy", "Yes", 10, 0.5, 1))
    book.settle("c1", { status: "settled", time: 2, winner: "Yes" })
    expect(book.apply(trade("buy", "Yes", 10, 0.5, 3))).toBeNull()
    expect(book.rows()).toHaveLength(1)
  })
})

describe("position rows", () => {
  it("open → reduced → exited at exactly 95 % sold", () => {
    const book = new PositionBook()
    book.apply(trade("buy", "Yes", 20, 0.5, 1))
    expect(book.rows()[0]?.status).toBe("open")
    book.apply(trade("sell", "Yes", 18, 0.5, 2))
    expect(book.rows()[0]?.status).toBe("reduced")
    book.apply(trade("sell", "Yes", 1, 0.5, 3))
    expect(book.rows()[0]).toMatchObject({ status: "exited", heldContracts: 1 })
  })

  it("the exit share is configurable", () => {
    const book = new PositionBook(intelConfig({ positions: { exitShare: 0.5 } }))
    book.apply(trade("buy", "Yes", 10, 0.5, 1))
    book.apply(trade("sell", "Yes", 5, 0.5, 2))
    expect(book.rows()[0]?.status).toBe("exited")
  })

  it("averages entry and exit prices and realises sales at average cost", () => {
    const book = new PositionBook()
    book.apply(trade("buy", "Yes", 100, 0.4, 1))
    book.apply(trade("buy", "Yes", 100, 0.6, 2))
    book.apply(trade("sell", "Yes", 50, 0.7, 3))
    book.apply(trade("sell", "Yes", 50, 0.9, 4))
    const row = book.rows()[0]
    expect(row?.entryPrice).toBeCloseTo(0.5)
    expect(row?.exitPrice).toBeCloseTo(0.8)
    expect(row?.usd).toBeCloseTo(100)
    expect(row?.soldUsd).toBeCloseTo(80)
    expect(row?.profit).toBeCloseTo(30)
    expect(row).toMatchObject({ status: "reduced", result: null, openedAt: 1, lastTradeAt: 4 })
  })

  it("profit is null while nothing is realised and the market is open", () => {
    const book = new PositionBook()
    book.apply(trade("buy", "Yes", 10, 0.5, 1))
    expect(book.rows()[0]).toMatchObject({ profit: null, soldUsd: null, exitPrice: null, result: null, settledAt: null })
  })

  it("at settlement the held part pays 1 or 0 per contract; a void refunds at cost", () => {
    const settleAs = (winner: string | null) => {
      const book = new PositionBook()
      book.apply(trade("buy", "Yes", 100, 0.4, 1))
      book.apply(trade("sell", "Yes", 50, 0.5, 2))
      book.settle("c1", winner === null ? { status: "void", time: 9 } : { status: "settled", time: 9, winner })
      return book.rows()[0]
    }
    expect(settleAs("Yes")).toMatchObject({ status: "settled", result: "win", settledAt: 9 })
    expect(settleAs("Yes")?.profit).toBeCloseTo(5 + 30)
    expect(settleAs("No")?.profit).toBeCloseTo(5 - 20)
    expect(settleAs(null)?.profit).toBeCloseTo(5)
    expect(settleAs(null)?.result).toBe("void")
  })

  it("an exited position stays exited at settlement; its remainder still pays", () => {
    const book = new PositionBook()
    book.apply(trade("buy", "Yes", 100, 0.5, 1))
    book.apply(trade("sell", "Yes", 96, 0.5, 2))
    book.settle("c1", { status: "settled", time: 3, winner: "Yes" })
    expect(book.rows()[0]).toMatchObject({ status: "exited", result: "win" })
    expect(book.rows()[0]?.profit).toBeCloseTo(2)
  })

  it("buying after a full close starts a new position", () => {
    const { positions } = positionHistory([trade("buy", "Yes", 10, 0.5, 1), trade("sell", "Yes", 10, 0.5, 2), trade("buy", "Yes", 4, 0.5, 3)])
    expect(positions.map((p) => [p.status, p.openedAt])).toEqual([["exited", 1], ["open", 3]])
  })

  it("a whale on a market is holding, reduced or exited", () => {
    const { positions } = positionHistory([trade("buy", "Yes", 10, 0.5, 1), trade("buy", "No", 10, 0.5, 1), trade("sell", "No", 1, 0.5, 2)])
    expect(positions.map(whaleStatusOf)).toEqual(["holding", "reduced"])
  })

  it("batch settlements apply after trades of the same millisecond", () => {
    const buy = trade("buy", "Yes", 10, 0.5, 5)
    const { positions } = positionHistory([buy], new Map([["c1", { status: "settled", time: 5, winner: "No" }]]))
    expect(positions[0]).toMatchObject({ status: "settled", result: "loss" })
    expect(positions[0]?.profit).toBeCloseTo(-5)
  })
})
