// Batched delivery: the registry sends each trader or signal bot the trades of one delivery as one
// command, and applies what bots emit in the order of the commands that made it. Invariant: delivering a
// recorded feed one event at a time or in chunks of any size (with operations' commands between chunks)
// leaves every bot with the same persisted snapshot and status, and forwards the same fills in the same
// order; only the number of commands sent changes.
import { describe, expect, it } from "vitest"
import { BotRegistry, type BotTraded } from "../../src/actors/bots/registry.js"
import type { AnyBotContext } from "../../src/actors/bots/bot-types.js"
import type { FeedTrader } from "../../src/domain/feed-events.js"
import { aSettlement, aVoid } from "../actors/market-builders.js"
import { ALICE, aBookedMarket, aMarketBot, aMove, aSignalBot, aTrade, aTraderBot, BOB, MIN, T0 } from "./builders.js"
import { aWorld } from "./world.js"

const CAROL: FeedTrader = { id: "carol", name: "CAROL" }

/** A feed with books, named and unnamed trades of every size, sells, price moves, settlements and a void. */
const recorded = () => {
  const w = aWorld({ record: true })
  const contracts = ["C1", "C2", "C3", "C4"]
  w.feed(...aBookedMarket("C1", T0, { category: "crypto", title: "Bitcoin above 100k?" }))
  w.feed(...aBookedMarket("C2", T0, { category: "politics", title: "Election winner" }))
  w.feed(...aBookedMarket("C3", T0, { size: 300 }))
  w.feed(...aBookedMarket("C4", T0, { series: "hourly" }))
  let seed = 7
  const rnd = (): number => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 4_294_967_296
  const who = [ALICE, BOB, CAROL, null] as const
  for (let i = 1; i <= 240; i++) {
    const t = T0 + i * MIN
    const contract = contracts[i % contracts.length] ?? "C1"
    if (i % 9 === 0) w.feed(...aMove(contract, t, 0.3 + rnd() * 0.4))
    w.feed(aTrade(contract, t, {
      usd: rnd() < 0.5 ? 500 + Math.floor(rnd() * 4_000) : 12_000 + Math.floor(rnd() * 40_000),
      trader: who[Math.floor(rnd() * who.length)] ?? null, outcome: rnd() < 0.6 ? "yes" : "no",
      action: rnd() < 0.8 ? "buy" : "sell", tradeId: `t${i}`,
    }))
    if (i === 120) w.feed(aSettlement({ contract: "C4", t, winner: "yes" }), ...aBookedMarket("C5", t, { series: "hourly" }))
    if (i === 180) w.feed(aVoid({ contract: "C3", t }))
  }
  return w
}

const bots = (): Array<AnyBotContext> => [
  aTraderBot({ id: "trader:a", trader: "venue_a:alice", mirrorExits: true }),
  aTraderBot({ id: "trader:b", trader: "venue_a:bob", sizing: { percent: 2, maxUsd: 300 }, accountId: "other" }),
  aTraderBot({ id: "trader:c", trader: "venue_a:carol", mirrorExits: true }),
  aSignalBot({}, { id: "signal:all" }),
  aSignalBot({ category: ["crypto"], minUsd: 15_000 }, { id: "signal:crypto", accountId: "other" }),
  aSignalBot({ keywords: ["ELECTION"], priceMax: 0.6 }, { id: "signal:words" }),
  aSignalBot({ traders: ["venue_a:bob", "venue_a:carol"] as never }, { id: "signal:named", sizing: { percent: 1, maxUsd: 50 } }),
  aSignalBot({ entry: "open" }, { id: "signal:open" }),
  aMarketBot({ id: "market:dip", contract: "C1", rule: { buyBelow: 0.45, takeProfitPoints: 0.05, repeat: true } }),
  aMarketBot({ id: "market:hold", contract: "C2", side: 1, rule: { maxHoldHours: 1, repeat: true } }),
  aMarketBot({ id: "market:series", contract: "C4", series: "hourly" }),
]

/** Operations' commands, at fixed places in the feed (multiples of 60 events). */
const commands = (registry: BotRegistry, at: number): void => {
  if (at % 120 === 60) {
    registry.sendCommon("trader:a", { type: "bot.pause" })
    registry.sendCommon("market:dip", { type: "bot.pause" })
  }
  if (at % 120 === 0) {
    registry.sendCommon("trader:a", { type: "bot.resume" })
    registry.sendCommon("market:dip", { type: "bot.resume" })
  }
  if (at === 600) registry.sendCommon("signal:open", { type: "bot.end" })
}

const replay = (w: ReturnType<typeof recorded>, chunk: number | "one by one") => {
  const traded: Array<BotTraded> = []
  const registry = new BotRegistry(w.reads, (e) => void traded.push(e))
  for (const b of bots()) registry.spawn(structuredClone(b))
  const step = chunk === "one by one" ? 1 : chunk
  const events = w.delivered
  const dirty: Array<string> = []
  for (let i = 0; i < events.length; i += step) {
    const part = events.slice(i, i + step)
    if (chunk === "one by one") {
      for (const e of part) {
        if (e._tag === "TradeRecorded" || e._tag === "TradeSettled" || e._tag === "MoveRecorded") registry.deliverIntel(e)
        else registry.deliverMarket(e)
      }
    } else registry.deliver(part)
    const at = Math.min(i + step, events.length)
    if (at % 60 === 0) {
      commands(registry, at)
      dirty.push(...registry.drainDirty())
    }
  }
  const state = [...registry.ids()].map((id) => ({ id, status: registry.status(id), snapshot: registry.persisted(id) }))
  return {
    state: JSON.stringify(state),
    fills: JSON.stringify(traded.map(({ ord: _, ...fill }) => fill)),
    dirty,
    counters: registry.counters,
  }
}

describe("batched delivery", () => {
  const w = recorded()
  const alone = replay(w, "one by one")

  it("the feed trades every kind of bot", () => {
    const state = JSON.parse(alone.state) as Array<{ readonly snapshot: { readonly context: AnyBotContext } }>
    for (const kind of ["trader", "signal", "market"] as const) {
      expect(state.filter((b) => b.snapshot.context.kind === kind).some((b) => b.snapshot.context.trades.length > 0)).toBe(true)
    }
    expect(state.some((b) => b.snapshot.context.trades.some((t) => t.status === "closed"))).toBe(true)
    expect(JSON.parse(alone.fills)).not.toHaveLength(0)
  })

  it.each([1, 4, 12, 60])("chunks of %i events give the same bots, fills in the same order, and the same dirty bots", (chunk) => {
    const chunked = replay(w, chunk)
    expect(chunked.state).toBe(alone.state)
    expect(chunked.fills).toBe(alone.fills)
    expect(chunked.dirty).toEqual(alone.dirty)
  })

  it("a chunk sends each bot its trades as one command", () => {
    const whole = replay(w, 60)
    expect(whole.counters.routed).toBe(alone.counters.routed)
    expect(whole.counters.fills).toBe(alone.counters.fills)
    expect(whole.counters.sends).toBeLessThan(alone.counters.sends)
  })
})
