// Bots lagging behind the market actors (the service's bots fiber in a burst) end exactly as bots that
// hear each feed batch at once: every trade and price they fill on carries its book, a market bot's
// maxHoldHours sale takes the book and price its contract had at that point of the feed (kept in feed
// order, not read from the actors, which may be hours of feed ahead), and a series bot moves to the next
// market open at that point of the feed. Four hours of synthetic feed: books that move, named and whale
// trades, a series that rolls over, a settlement and a void.
import { describe, expect, it } from "vitest"
import type { AnyBotContext } from "../../src/actors/bots/bot-types.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { BotRegistry } from "../../src/actors/bots/registry.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { aListing, aPrint, aSettlement, aVoid } from "../actors/market-builders.js"
import { ALICE, aBookedMarket, aMarketBot, aMove, aSignalBot, aTrade, aTraderBot, BOB, HOUR, MIN, T0 } from "./builders.js"
import { aWorld } from "./world.js"

const feed = (): Array<ReadonlyArray<FeedEvent>> => {
  const batches: Array<ReadonlyArray<FeedEvent>> = [
    aBookedMarket("C1", T0), aBookedMarket("C2", T0), aBookedMarket("C3", T0, { size: 300 }), aBookedMarket("C4", T0, { series: "hourly" }),
  ]
  let seed = 11
  const rnd = (): number => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 4_294_967_296
  const contracts = ["C1", "C2", "C3", "C4", "C5"]
  for (let i = 1; i <= 240; i++) {
    const t = T0 + i * MIN
    const contract = contracts[i % (i > 126 ? 5 : 4)] ?? "C1"
    // Books move often, and apart from trades: a sale that comes with feed time meets a book no trade priced.
    if (i % 3 === 0) batches.push(aMove(contracts[(i + 1) % 4] ?? "C2", t - 30_000, 0.25 + rnd() * 0.5, 50 + Math.floor(rnd() * 400)))
    batches.push([aTrade(contract, t, {
      price: Math.round((0.3 + rnd() * 0.4) * 100) / 100,
      usd: rnd() < 0.5 ? 500 + Math.floor(rnd() * 4_000) : 12_000 + Math.floor(rnd() * 40_000),
      trader: [ALICE, BOB, null][Math.floor(rnd() * 3)] ?? null, outcome: rnd() < 0.6 ? "yes" : "no",
      action: rnd() < 0.8 ? "buy" : "sell", tradeId: `t${i}`,
    })])
    // The series' next market is listed minutes after the last one settled: a bot hours of feed behind finds it listed already.
    if (i === 120) batches.push([aSettlement({ contract: "C4", t, winner: "yes" })])
    if (i === 126) batches.push(aBookedMarket("C5", t, { series: "hourly" }))
    if (i === 200) batches.push([aVoid({ contract: "C3", t })])
  }
  return batches
}

const bots = (): Array<AnyBotContext> => [
  aTraderBot({ id: "trader:a", trader: "venue_a:alice", mirrorExits: true }),
  aTraderBot({ id: "trader:b", trader: "venue_a:bob", sizing: { percent: 2, maxUsd: 300 } }),
  aSignalBot({}, { id: "signal:all" }),
  aSignalBot({ entry: "open" }, { id: "signal:open", sizing: { usd: 40 } }),
  aMarketBot({ id: "market:dip", contract: "C1", rule: { buyBelow: 0.45, takeProfitPoints: 0.05, repeat: true } }),
  aMarketBot({ id: "market:hold", contract: "C2", side: 1, rule: { maxHoldHours: 1, repeat: true } }),
  aMarketBot({ id: "market:hold-yes", contract: "C2", rule: { maxHoldHours: 1, repeat: true }, usd: 300 }),
  aMarketBot({ id: "market:series", contract: "C4", series: "hourly", rule: { maxHoldHours: 1, repeat: false } }),
]

const run = (batches: ReadonlyArray<ReadonlyArray<FeedEvent>>, lag: number) => {
  const w = aWorld({ lag })
  for (const b of bots()) w.bots.spawn(b)
  for (const batch of batches) w.feed(...batch)
  w.drain()
  return {
    bots: JSON.stringify([...w.bots.ids()].map((id) => ({ id, status: w.bots.status(id), snapshot: w.bots.persisted(id) }))),
    fills: JSON.stringify(w.traded.map(({ ord: _, ...fill }) => fill)),
  }
}

describe("bots behind the market actors", () => {
  const batches = feed()
  const onTime = run(batches, 0)

  it("the feed makes every kind of bot trade, holds sold by time, and a series move", () => {
    const state = JSON.parse(onTime.bots) as Array<{ readonly id: string; readonly snapshot: { readonly context: AnyBotContext } }>
    const of = (id: string) => state.find((b) => b.id === id)?.snapshot.context
    for (const id of ["trader:a", "signal:all", "market:dip", "market:hold"]) expect(of(id)?.trades.length).toBeGreaterThan(0)
    // Closed by time: held at least the hour.
    expect(of("market:hold")?.trades.some((t) => t.closedAt !== null && t.closedAt - t.openedAt >= 3_600_000)).toBe(true)
    const series = of("market:series")
    expect(series?.kind === "market" ? series.settings.market.contract : null).toBe("venue_a:C5")
  })

  it.each([1, 3, 25, 1_000])("%i batches behind: the same bots and the same fills", (lag) => {
    const late = run(batches, lag)
    expect(late.bots).toBe(onTime.bots)
    expect(late.fills).toBe(onTime.fills)
  })
})

/** Bot B's trades: entry, exit and when it closed. */
const tradesOf = (w: ReturnType<typeof aWorld>, id = "B") =>
  w.bots.context(id)?.trades.map((t) => ({ entry: t.entryPrice, exit: t.exitPrice, closedAt: t.closedAt })) ?? []

/**
 * A timed bot B (maxHoldHours 1) made at `at` on `contract`, buying there at once (as POST /v2/bots does),
 * then an hour and two minutes of feed on C2, so its sale by time comes: B's trade.
 */
const timedBotSale = (w: ReturnType<typeof aWorld>, contract: string, at: number) => {
  const ref = `venue_a:${contract}`
  w.bots.spawn(aMarketBot({ id: "B", contract, rule: { maxHoldHours: 1 } }))
  w.bots.sendMarket("B", { type: "market.price", ts: at, yesPrice: w.reads.yesPrice(ref), quoter: w.bots.quoterOf(ref) })
  w.feed(aTrade("C2", at + HOUR + MIN, { trader: null, usd: 10 }))
  w.feed(aTrade("C2", at + HOUR + 2 * MIN, { trader: null, usd: 10, price: 0.55 }))
  return tradesOf(w)[0]
}

describe("what a market bot does with feed time, whatever the lag", () => {
  it("after a restart, a maxHoldHours sale waits for the book the feed brings in order (asked for at the restore)", () => {
    const run = (lag: number) => {
      const w = aWorld({ lag })
      w.feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0))
      w.bots.spawn(aMarketBot({ id: "B", contract: "C1", rule: { maxHoldHours: 1 } }))
      w.feed(aTrade("C1", T0 + MIN, { price: 0.47, trader: null, usd: 10 }))
      w.drain()
      const saved = { id: "B", kind: "market" as const, snapshot: JSON.parse(JSON.stringify(w.bots.persisted("B"))) as unknown }
      w.bots.stop()
      w.bots = new BotRegistry(w.reads)
      w.bots.restore([saved])
      w.feed(aTrade("C2", T0 + MIN + HOUR + MIN, { trader: null, usd: 10 })) // due, but the book asked for comes after this tick
      // The next minute's tick (at this batch's first event, before it applies) sells into the book asked for: bids at 0.48.
      w.feed(...aMove("C1", T0 + MIN + HOUR + 2 * MIN, 0.2))
      w.drain()
      return tradesOf(w)
    }
    const onTime = run(0)
    expect(onTime).toHaveLength(1)
    expect(onTime[0]?.closedAt).toBe(T0 + MIN + HOUR + 2 * MIN)
    expect(onTime[0]?.exit).toBeGreaterThan(0.4)
    expect(run(1)).toEqual(onTime)
    expect(run(5)).toEqual(onTime)
  })

  it("a timed bot on a contract another timed bot left sells against the book of its own time, not the one kept before", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C1", T0), ...aBookedMarket("C2", T0))
    w.bots.spawn(aMarketBot({ id: "A", contract: "C1", rule: { maxHoldHours: 1 } }))
    w.feed(aTrade("C1", T0 + MIN, { price: 0.47, trader: null, usd: 10 })) // A buys; bids at 0.48 kept
    w.bots.sendCommon("A", { type: "bot.end" })
    w.feed(...aMove("C1", T0 + 2 * MIN, 0.8)) // bids at 0.79, no bot keeps C1's book
    const trade = timedBotSale(w, "C1", T0 + 2 * MIN)
    expect(trade?.closedAt).not.toBeNull()
    expect(trade?.exit).toBeGreaterThan(0.7) // 0.79 less the fee; the kept 0.48 would be under 0.5
  })

  it("a timed bot on a contract a timed series bot kept before sells against the book of its own time", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C4", T0, { series: "hourly" }), ...aBookedMarket("C5", T0 + MIN, { series: "hourly" }), ...aBookedMarket("C2", T0))
    w.bots.spawn(aMarketBot({ id: "S", contract: "C4", series: "hourly", rule: { maxHoldHours: 1 } })) // keeps every "hourly" book
    w.feed(...aMove("C5", T0 + 2 * MIN, 0.48)) // C5 kept: bids at 0.47
    w.bots.sendCommon("S", { type: "bot.end" }) // nobody keeps "hourly" now
    w.feed(...aMove("C5", T0 + 3 * MIN, 0.8)) // bids at 0.79
    const trade = timedBotSale(w, "C5", T0 + 3 * MIN)
    expect(trade?.closedAt).not.toBeNull()
    expect(trade?.exit).toBeGreaterThan(0.7) // 0.79 less the fee; the stale 0.47 would be under 0.5
  })

  it("a price a backfill hands over is stamped with its book like a live one", () => {
    const run = (lag: number) => {
      const w = aWorld({ lag })
      w.feed(...aBookedMarket("C1", T0))
      w.bots.spawn(aMarketBot({ id: "B", contract: "C1", rule: { buyBelow: 0.3 } }))
      const history = new MarketRegistry(() => {})
      history.deliver([aListing({ contract: "C1", t: T0 })])
      history.deliver([aPrint({ contract: "C1", t: T0 + MIN, price: 0.2, contracts: 10 })])
      w.markets.adoptHistory(history.drainChanges())
      w.feed()
      w.feed(...aMove("C1", T0 + 2 * MIN, 0.9)) // later asks at 0.91
      w.drain()
      return tradesOf(w)
    }
    const onTime = run(0)
    expect(onTime).toHaveLength(1)
    expect(onTime[0]?.entry).toBeLessThan(0.55)
    expect(run(1)).toEqual(onTime)
  })

  it("a series bot moves to a market only the backfill listed (announced when the backfill hands it over)", () => {
    const w = aWorld()
    w.feed(...aBookedMarket("C4", T0, { series: "hourly" }))
    w.bots.spawn(aMarketBot({ id: "S", contract: "C4", series: "hourly", rule: { buyBelow: 0.99 } }))
    const history = new MarketRegistry(() => {})
    history.deliver([...aBookedMarket("C5", T0 + MIN, { series: "hourly" })])
    w.markets.takeHistory(history.records())
    w.feed(aSettlement({ contract: "C4", t: T0 + 2 * MIN, winner: "yes" }))
    const ctx = w.bots.context("S")
    expect(ctx?.kind === "market" ? ctx.settings.market.contract : null).toBe("venue_a:C5")
  })
})
