// The bot actors through the registry, fed a real feed (market registry → intelligence → bots) in feed
// time: one case per rule of trader, signal and market bots, settlement, and restore from a snapshot.
import { describe, expect, it } from "vitest"
import { BotRegistry } from "../../src/actors/bots/registry.js"
import { aClose, aSettlement, aVoid } from "../actors/market-builders.js"
import { ALICE, aBookedMarket, aMarketBot, aMove, aSignalBot, aTrade, aTraderBot, BOB, HOUR, MIN, T0 } from "./builders.js"
import { aWorld } from "./world.js"

const trades = (w: ReturnType<typeof aWorld>, id: string) => w.bots.context(id)?.trades ?? []

describe("trader bot", () => {
  it("copies each buy of its trader at its sizing against the book, taker fee included", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aTraderBot()
    w.bots.spawn(bot)
    w.feed(aTrade("C1", T0 + MIN, { usd: 500 })) // any size, not only whales
    const [t] = trades(w, bot.id)
    expect(t).toMatchObject({ status: "open", outcome: "Yes", openedAt: T0 + MIN, sourceUsd: 500 })
    expect(t!.cost).toBeLessThanOrEqual(100)
    expect(t!.cost).toBeGreaterThan(99)
    expect(t!.fee).toBeGreaterThan(0)
    expect(t!.entryPrice).toBeGreaterThan(0.5) // the ask plus the fee
    expect(w.traded).toHaveLength(1)
    expect(w.traded[0]).toMatchObject({ botId: bot.id, action: "buy", outcome: "Yes" })
  })

  it("ignores other traders and, paused, copies nothing but still counts the match", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aTraderBot()
    w.bots.spawn(bot)
    w.feed(aTrade("C1", T0 + MIN, { trader: BOB }))
    w.bots.sendCommon(bot.id, { type: "bot.pause" })
    w.feed(aTrade("C1", T0 + 2 * MIN))
    expect(trades(w, bot.id)).toHaveLength(0)
    expect(w.bots.status(bot.id)).toBe("paused")
    w.bots.sendCommon(bot.id, { type: "bot.resume" })
    w.feed(aTrade("C1", T0 + 3 * MIN))
    expect(trades(w, bot.id)).toHaveLength(1)
    const ctx = w.bots.context(bot.id)
    expect(ctx?.kind === "trader" ? ctx.matched : []).toHaveLength(2)
  })

  it("stakes percent of the source trade capped at maxUsd", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aTraderBot({ sizing: { percent: 1, maxUsd: 150 } })
    w.bots.spawn(bot)
    w.feed(aTrade("C1", T0 + MIN, { usd: 5_000 })) // 1% = $50
    w.feed(aTrade("C1", T0 + 2 * MIN, { usd: 50_000 })) // 1% = $500 → capped at $150
    const [a, b] = trades(w, bot.id)
    expect(a!.cost).toBeGreaterThan(49)
    expect(a!.cost).toBeLessThanOrEqual(50)
    expect(b!.cost).toBeGreaterThan(149)
    expect(b!.cost).toBeLessThanOrEqual(150)
  })

  it("mirrors exits: sells its holding on that side when the trader sells, only with mirrorExits", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const mirror = aTraderBot({ mirrorExits: true })
    const holder = aTraderBot({ trader: "venue_a:alice", accountId: "other" })
    w.bots.spawn(mirror)
    w.bots.spawn(holder)
    w.feed(aTrade("C1", T0 + MIN))
    w.feed(aTrade("C1", T0 + 2 * MIN, { action: "sell", tradeId: "s1" }))
    expect(trades(w, mirror.id)[0]).toMatchObject({ status: "closed", result: "loss", closedAt: T0 + 2 * MIN })
    expect(trades(w, mirror.id)[0]!.exitPrice).toBeLessThan(0.48 + 1e-9)
    expect(trades(w, holder.id)[0]).toMatchObject({ status: "open" })
    expect(w.traded.filter((f) => f.action === "sell")).toHaveLength(1)
  })
})

describe("signal bot", () => {
  it("copies whale buys matching venue, category, size, price, keywords; skips sells and small trades", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0, { category: "crypto", title: "Bitcoin above 100k?" }))
    w.feed(...aBookedMarket("C2", T0, { category: "politics", title: "Election winner" }))
    const crypto = aSignalBot({ category: ["crypto"], minUsd: 15_000 })
    const keyword = aSignalBot({ keywords: ["ELECTION"] })
    const venueB = aSignalBot({ venue: ["venue_b"] })
    const cheap = aSignalBot({ priceMax: 0.3 })
    for (const b of [crypto, keyword, venueB, cheap]) w.bots.spawn(b)
    w.feed(aTrade("C1", T0 + MIN, { usd: 20_000, trader: null })) // whale, crypto
    w.feed(aTrade("C1", T0 + 2 * MIN, { usd: 12_000 })) // whale but under minUsd
    w.feed(aTrade("C2", T0 + 3 * MIN, { usd: 30_000 })) // whale, politics, "Election"
    w.feed(aTrade("C2", T0 + 4 * MIN, { usd: 3_000 })) // named but not whale
    w.feed(aTrade("C2", T0 + 5 * MIN, { usd: 30_000, action: "sell" }))
    expect(trades(w, crypto.id).map((t) => t.market.contract)).toEqual(["venue_a:C1"])
    expect(trades(w, keyword.id).map((t) => t.openedAt)).toEqual([T0 + 3 * MIN])
    expect(trades(w, venueB.id)).toHaveLength(0)
    expect(trades(w, cheap.id)).toHaveLength(0)
  })

  it("with traders copies those traders' buys of any size; entry open only new positions", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const traders = aSignalBot({ traders: ["venue_a:bob" as never] })
    const opens = aSignalBot({ entry: "open" })
    w.bots.spawn(traders)
    w.bots.spawn(opens)
    w.feed(aTrade("C1", T0 + MIN, { usd: 200, trader: BOB }))
    w.feed(aTrade("C1", T0 + 2 * MIN, { usd: 20_000, trader: ALICE })) // open
    w.feed(aTrade("C1", T0 + 3 * MIN, { usd: 20_000, trader: ALICE })) // add
    expect(trades(w, traders.id)).toHaveLength(1)
    expect(trades(w, opens.id).map((t) => t.openedAt)).toEqual([T0 + 2 * MIN])
  })

  it("cannot be paused and stops when ended; open trades still settle", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aSignalBot()
    w.bots.spawn(bot)
    w.bots.sendCommon(bot.id, { type: "bot.pause" })
    expect(w.bots.status(bot.id)).toBe("running")
    w.feed(aTrade("C1", T0 + MIN))
    w.bots.sendCommon(bot.id, { type: "bot.end" })
    w.feed(aTrade("C1", T0 + 2 * MIN))
    expect(trades(w, bot.id)).toHaveLength(1)
    w.feed(aSettlement({ contract: "C1", t: T0 + HOUR, winner: "yes" }))
    expect(trades(w, bot.id)[0]).toMatchObject({ status: "closed", result: "win", exitPrice: 1, closedAt: T0 + HOUR })
    expect(w.bots.status(bot.id)).toBe("ended")
  })
})

describe("settlement", () => {
  it("closes open trades with result, payout and closedAt; a void refunds", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    w.feed(...aBookedMarket("C2", T0))
    const bot = aSignalBot()
    w.bots.spawn(bot)
    w.feed(aTrade("C1", T0 + MIN))
    w.feed(aTrade("C1", T0 + 2 * MIN, { outcome: "no" }))
    w.feed(aTrade("C2", T0 + 3 * MIN))
    w.feed(aSettlement({ contract: "C1", t: T0 + HOUR, winner: "no" }))
    w.feed(aVoid({ contract: "C2", t: T0 + 2 * HOUR }))
    const [yes, no, voided] = trades(w, bot.id)
    expect(yes).toMatchObject({ result: "loss", exitPrice: 0, status: "closed" })
    expect(yes!.profit).toBeCloseTo(-yes!.cost, 6)
    expect(no).toMatchObject({ result: "win", exitPrice: 1, outcome: "No" })
    expect(no!.profit).toBeCloseTo(no!.contracts - no!.cost, 6)
    expect(voided).toMatchObject({ result: "void", profit: 0, closedAt: T0 + 2 * HOUR })
  })
})

describe("market bot", () => {
  const start = (w: ReturnType<typeof aWorld>, bot: ReturnType<typeof aMarketBot>) => {
    const ref = bot.settings.market.contract
    w.bots.spawn(bot)
    w.bots.sendMarket(bot.id, { type: "market.price", ts: w.bots.feedTime(), yesPrice: w.reads.yesPrice(ref), quoter: w.bots.quoterOf(ref) })
  }

  it("with no buy trigger buys at once, holds to settlement, then ends", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aMarketBot()
    start(w, bot)
    expect(trades(w, bot.id)).toHaveLength(1)
    expect(w.traded).toHaveLength(0) // market bots keep their trades on the bot
    w.feed(aSettlement({ contract: "C1", t: T0 + HOUR, winner: "yes" }))
    expect(trades(w, bot.id)[0]).toMatchObject({ result: "win" })
    expect(w.bots.status(bot.id)).toBe("ended")
  })

  it("buyBelow waits for the level; takeProfit sells at its level", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aMarketBot({ rule: { buyBelow: 0.4, takeProfit: 0.6 } })
    start(w, bot)
    expect(trades(w, bot.id)).toHaveLength(0)
    w.feed(...aMove("C1", T0 + MIN, 0.45))
    expect(trades(w, bot.id)).toHaveLength(0)
    w.feed(...aMove("C1", T0 + 2 * MIN, 0.38))
    expect(trades(w, bot.id)).toHaveLength(1)
    w.feed(...aMove("C1", T0 + 3 * MIN, 0.61))
    const [t] = trades(w, bot.id)
    expect(t).toMatchObject({ status: "closed", result: "win", closedAt: T0 + 3 * MIN })
    expect(w.bots.status(bot.id)).toBe("ended")
  })

  it("dropsBy measures from the price at start; stopLossPoints from the price paid; repeat buys again", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0)) // mid 0.49
    const bot = aMarketBot({ rule: { dropsBy: 0.05, stopLossPoints: 0.1, repeat: true } })
    start(w, bot)
    w.feed(...aMove("C1", T0 + MIN, 0.46))
    expect(trades(w, bot.id)).toHaveLength(0)
    w.feed(...aMove("C1", T0 + 2 * MIN, 0.44))
    expect(trades(w, bot.id)).toHaveLength(1)
    w.feed(...aMove("C1", T0 + 3 * MIN, 0.3))
    expect(trades(w, bot.id)[0]).toMatchObject({ status: "closed", result: "loss" })
    w.feed(...aMove("C1", T0 + 4 * MIN, 0.31))
    expect(trades(w, bot.id)).toHaveLength(2) // repeat: still below start − 0.05
    expect(w.bots.status(bot.id)).toBe("running")
  })

  it("maxHoldHours sells after that long in feed time, without a price change", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    w.feed(...aBookedMarket("C9", T0))
    const bot = aMarketBot({ rule: { maxHoldHours: 2 } })
    start(w, bot)
    w.feed(...aMove("C9", T0 + HOUR, 0.3))
    expect(trades(w, bot.id)[0]?.status).toBe("open")
    w.feed(...aMove("C9", T0 + 2 * HOUR + MIN, 0.2)) // another market moves feed time
    expect(trades(w, bot.id)[0]).toMatchObject({ status: "closed", closedAt: T0 + 2 * HOUR + MIN })
  })

  it("pause stops triggers; resume picks up", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aMarketBot({ rule: { buyBelow: 0.4 } })
    start(w, bot)
    w.bots.sendCommon(bot.id, { type: "bot.pause" })
    w.feed(...aMove("C1", T0 + MIN, 0.35))
    expect(trades(w, bot.id)).toHaveLength(0)
    w.bots.sendCommon(bot.id, { type: "bot.resume" })
    w.feed(...aMove("C1", T0 + 2 * MIN, 0.36))
    expect(trades(w, bot.id)).toHaveLength(1)
  })

  it("on a closed market (trading stopped, its last book still kept) nothing fills: no sale, no buy, no copy", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0), ...aBookedMarket("C3", T0), ...aBookedMarket("C9", T0))
    const holding = aMarketBot({ contract: "C1", rule: { maxHoldHours: 1 } })
    start(w, holding)
    expect(trades(w, holding.id)).toHaveLength(1)
    const waiting = aMarketBot({ contract: "C2", rule: { buyBelow: 0.4 }, id: "bot_waiting" })
    start(w, waiting)
    const copier = aTraderBot({ id: "bot_copier" })
    w.bots.spawn(copier)
    w.feed(aClose({ contract: "C1", t: T0 + MIN }), aClose({ contract: "C2", t: T0 + MIN }), aClose({ contract: "C3", t: T0 + MIN }))
    w.feed(...aMove("C2", T0 + 2 * MIN, 0.35), aTrade("C3", T0 + 2 * MIN, { usd: 500 }))
    w.feed(...aMove("C9", T0 + 2 * HOUR, 0.3)) // feed time passes the hold
    expect(trades(w, holding.id)[0]?.status).toBe("open")
    expect(trades(w, waiting.id)).toHaveLength(0)
    expect(trades(w, copier.id)).toHaveLength(0)
    expect(w.traded.filter((t) => t.botId === copier.id)).toHaveLength(0)
  })

  it("a trade or price before the close in the same feed batch still fills: open or not is taken in feed order", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0))
    const waiting = aMarketBot({ contract: "C1", rule: { buyBelow: 0.4 }, id: "bot_waiting" })
    start(w, waiting)
    const copier = aTraderBot({ id: "bot_copier" })
    w.bots.spawn(copier)
    w.feed(...aMove("C1", T0 + MIN, 0.35), aClose({ contract: "C1", t: T0 + MIN + 1 }))
    w.feed(aTrade("C2", T0 + MIN, { usd: 500 }), aSettlement({ contract: "C2", t: T0 + MIN + 500, winner: "yes" }))
    expect(trades(w, waiting.id)).toHaveLength(1)
    expect(trades(w, copier.id)).toMatchObject([{ status: "closed", result: "win" }])
  })

  it("series: after each market it moves to the next market of the series", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("S1", T0, { series: "btc-hourly" }))
    const bot = aMarketBot({ contract: "S1", series: "btc-hourly" })
    start(w, bot)
    expect(trades(w, bot.id)).toHaveLength(1)
    w.feed(aSettlement({ contract: "S1", t: T0 + HOUR, winner: "no" }))
    expect(w.bots.status(bot.id)).toBe("running")
    w.feed(...aBookedMarket("S2", T0 + HOUR + MIN, { series: "btc-hourly" }))
    const ctx = w.bots.context(bot.id)
    expect(ctx?.kind === "market" && ctx.settings.market.contract).toBe("venue_a:S2")
    // The next market's first price starts it; with no trigger it buys.
    w.feed(...aMove("S2", T0 + HOUR + 2 * MIN, 0.5))
    expect(trades(w, bot.id).map((t) => t.market.contract)).toEqual(["venue_a:S1", "venue_a:S2"])
  })
})

describe("restore", () => {
  it("a bot restored from its persisted snapshot has the same state and keeps trading", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0))
    const bot = aTraderBot({ mirrorExits: true })
    w.bots.spawn(bot)
    w.feed(aTrade("C1", T0 + MIN))
    w.bots.sendCommon(bot.id, { type: "bot.pause" })
    const stored = JSON.parse(JSON.stringify(w.bots.persisted(bot.id))) as unknown
    const again = new BotRegistry(w.reads)
    again.restore([{ id: bot.id, kind: "trader", snapshot: stored }])
    expect(again.context(bot.id)).toEqual(w.bots.context(bot.id))
    expect(again.status(bot.id)).toBe("paused")
    again.sendCommon(bot.id, { type: "bot.resume" })
    again.deliverMarket({ _tag: "MarketSettled", ts: T0 + HOUR, ref: "venue_a:C1", winner: { id: "yes", name: "Yes", label: "Yes" } })
    expect(again.context(bot.id)?.trades[0]).toMatchObject({ result: "win" })
  })
})
