import { createActor } from "xstate"
import { describe, expect, it } from "vitest"
import { aListing, aSnapshot, aDelta } from "../../../test/actors/market-builders.js"
import type { MarketEvent, MarketRecord } from "../../domain/market-events.js"
import { infoOf, type MarketInput, type TradeEvent } from "./market-live.js"
import { round6 } from "../../numbers.js"
import { lifecycleOf, listedStart, marketMachine, type MarketStart, recordOf } from "./market.machine.js"

const info = infoOf(aListing({ contract: "C1", t: 1_000, labels: ["Astros", "Astros"] }))
const [YES, NO] = info.sides

const started = (start: MarketStart = listedStart(info)) => {
  const events: Array<MarketEvent> = []
  const actor = createActor(marketMachine, { input: start })
  actor.on("*", (e) => void events.push(e.event))
  actor.start()
  const batch = (...inputs: Array<MarketInput>) => actor.send({ type: "feed.batch", inputs })
  return { actor, events, batch, tags: () => events.map((e) => e._tag), status: () => lifecycleOf(actor.getSnapshot()) }
}

const trade = (ts: number, price: number, side = YES, contracts = 10): MarketInput => ({
  _tag: "trade",
  trade: {
    _tag: "TradePrinted", ts, ref: info.ref, tradeId: `t${ts}`, txId: null, side, action: "buy", price, contracts,
    usd: round6(price * contracts), trader: null,
  } satisfies TradeEvent,
})
const book = (event: Parameters<typeof aSnapshot>[0] & object): MarketInput => aSnapshot(event)

describe("market statechart", () => {
  it("announces a fresh listing and starts open", () => {
    const m = started()
    expect(m.status()).toBe("open")
    expect(m.events).toEqual([{ _tag: "MarketOpened", ts: 1_000, market: info }])
  })

  it("open → closed → settled", () => {
    const m = started()
    m.batch({ _tag: "close", ts: 2_000 })
    expect(m.status()).toBe("closed")
    m.batch({ _tag: "settle", ts: 3_000, winner: NO })
    expect(m.status()).toBe("settled")
    expect(m.events.slice(1)).toEqual([
      { _tag: "MarketClosed", ts: 2_000, ref: info.ref },
      { _tag: "MarketSettled", ts: 3_000, ref: info.ref, winner: NO },
    ])
    expect(recordOf(m.actor.getSnapshot())).toMatchObject({ status: "settled", winner: NO, closedAt: 2_000, settledAt: 3_000 })
  })

  it("open → settled directly, and open → void", () => {
    const a = started()
    a.batch({ _tag: "settle", ts: 2_000, winner: YES })
    expect(a.status()).toBe("settled")
    const b = started()
    b.batch({ _tag: "void", ts: 2_000 })
    expect(b.status()).toBe("void")
    expect(b.tags()).toEqual(["MarketOpened", "MarketVoided"])
  })

  it("closed → void; a second close is ignored", () => {
    const m = started()
    m.batch({ _tag: "close", ts: 2_000 }, { _tag: "close", ts: 2_500 })
    m.batch({ _tag: "void", ts: 3_000 })
    expect(m.status()).toBe("void")
    expect(m.tags()).toEqual(["MarketOpened", "MarketClosed", "MarketVoided"])
  })

  it("a settled market ignores later trades, books and settlements (Kalshi: determined, then settled)", () => {
    const m = started()
    m.batch({ _tag: "settle", ts: 2_000, winner: YES }, trade(2_100, 0.9))
    m.batch({ _tag: "settle", ts: 2_200, winner: YES }, { _tag: "settle", ts: 2_300, winner: NO }, book({ t: 2_400, bids: [[0.5, 1]] }))
    m.batch({ _tag: "void", ts: 2_500 }, { _tag: "close", ts: 2_600 })
    expect(m.tags()).toEqual(["MarketOpened", "MarketSettled"])
    expect(m.actor.getSnapshot().context.winner).toEqual(YES)
    expect(m.actor.getSnapshot().context.live.lastPrice).toBeNull()
  })

  it("applies a frame's data before a settlement inside it, not after", () => {
    const m = started()
    m.batch(trade(1_500, 0.6), { _tag: "settle", ts: 2_000, winner: YES }, trade(2_100, 0.7))
    expect(m.tags()).toEqual(["MarketOpened", "TradePrinted", "PriceChanged", "MarketSettled"])
    expect(m.actor.getSnapshot().context.live.lastPrice).toBe(0.6)
  })

  it("a listing update changes the info in any state", () => {
    const m = started()
    m.batch({ _tag: "settle", ts: 2_000, winner: YES })
    const renamed = { ...info, title: "Renamed" }
    m.batch({ _tag: "listed", info: renamed })
    expect(m.actor.getSnapshot().context.info.title).toBe("Renamed")
  })

  it("resumes a stored lifecycle without announcing", () => {
    const record = (status: MarketRecord["status"]): MarketStart => ({
      record: { info, status, winner: status === "settled" ? YES : null, closedAt: null, settledAt: null, lastPrice: 0.3, lastTradeAt: 900 },
      announce: false,
    })
    for (const status of ["open", "closed", "settled", "void"] as const) {
      const m = started(record(status))
      expect(m.status()).toBe(status)
      expect(m.events).toEqual([])
      expect(m.actor.getSnapshot().context.live.yesPrice).toBe(0.3)
    }
  })
})

describe("market data in one send per frame", () => {
  it("applies every level of a frame with one send and one BookChanged", () => {
    const m = started()
    m.batch(
      book({ t: 1_100, outcome: "yes", bids: [[0.4, 10], [0.41, 5]], asks: [[0.45, 7]] }),
      aDelta({ t: 1_200, changes: [["yes", "bid", 0.42, 3], ["yes", "ask", 0.45, 0], ["yes", "ask", 0.46, 9]] }),
    )
    const live = m.actor.getSnapshot().context.live
    expect(live.book.levels("yes", "bid")).toEqual([{ price: 0.42, size: 3 }, { price: 0.41, size: 5 }, { price: 0.4, size: 10 }])
    expect(live.book.bestAsk("yes")).toEqual({ price: 0.46, size: 9 })
    expect(m.events.slice(1)).toEqual([
      { _tag: "BookChanged", ts: 1_200, ref: info.ref },
      { _tag: "PriceChanged", ts: 1_200, ref: info.ref, yesPrice: 0.44 },
    ])
  })

  it("prices: the book's mid or the ticker before the first trade, then trades only (No side as 1 − price)", () => {
    const m = started()
    m.batch({ _tag: "price", ts: 1_050, price: 0.3 })
    m.batch(book({ t: 1_100, bids: [[0.4, 1]], asks: [[0.5, 1]] }))
    m.batch(trade(1_200, 0.62, NO))
    m.batch(book({ t: 1_300, bids: [[0.1, 1]], asks: [[0.2, 1]] }), { _tag: "price", ts: 1_310, price: 0.15 })
    m.batch(trade(1_400, 0.38, YES, 5))
    const prices = m.events.filter((e) => e._tag === "PriceChanged").map((e) => e._tag === "PriceChanged" && e.yesPrice)
    expect(prices).toEqual([0.3, 0.45, 0.38])
    const live = m.actor.getSnapshot().context.live
    expect(live.lastPrice).toBe(0.38)
    expect(live.lastTradeAt).toBe(1_400)
    expect(live.bars?.range(0, 60_000)).toEqual([
      { start: 0, open: 0.3, high: 0.45, low: 0.3, close: 0.38, usd: 8.1, contracts: 15, trades: 2 },
    ])
  })

  it("a trade at the unchanged price prints without a PriceChanged", () => {
    const m = started()
    m.batch(trade(1_100, 0.5), trade(1_200, 0.5))
    expect(m.tags()).toEqual(["MarketOpened", "TradePrinted", "PriceChanged", "TradePrinted"])
  })
})
