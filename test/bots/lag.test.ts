// Bots lagging behind the market actors (the service's bots fiber in a burst) end exactly as bots that
// hear each feed batch at once: every trade and price they fill on carries its book, a market bot's
// maxHoldHours sale takes the book and price its contract had at that point of the feed (kept in feed
// order, not read from the actors, which may be hours of feed ahead), and a series bot moves to the next
// market open at that point of the feed. Four hours of synthetic feed: books that move, named and whale
// trades, a series that rolls over, a settlement and a void.
import { describe, expect, it } from "vitest"
import type { AnyBotContext } from "../../src/actors/bots/bot-types.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { aSettlement, aVoid } from "../actors/market-builders.js"
import { ALICE, aBookedMarket, aMarketBot, aMove, aSignalBot, aTrade, aTraderBot, BOB, MIN, T0 } from "./builders.js"
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
