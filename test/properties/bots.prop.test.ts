// Bots act on feed time only. Invariants, for any set of trader, signal and market bots:
//   1. Replaying the recorded simulator feeds (all four venues, by receive time) through the market
//      registry, the pipeline and the bot registry twice gives every bot identical trades and state.
//   2. A bot that is killed mid-feed and restored from its (JSON round-tripped) persisted snapshot ends
//      in the same state as one that ran through; so does one that hears the feed some batches after the
//      market actors applied it (a burst: each trade and price it fills on carries its book).
//   3. Every trade costs at most its stake; a closed trade closes at or after it opened; a bot's record
//      counts each of its trades once.
// A low whale threshold ($200) makes the short recordings produce whale buys.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AnyBotContext } from "../../src/actors/bots/bot-types.js"
import { recordOf } from "../../src/actors/bots/ledger.js"
import { BotRegistry } from "../../src/actors/bots/registry.js"
import { CATEGORIES, VENUES } from "../../src/domain/enums.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { readRecording, replayFrames } from "../../src/feeds/replay.js"
import type { RecordedLine } from "../../src/feeds/recording.js"
import { intelConfig } from "../../src/intel/config.js"
import { aMarketBot, aSignalBot, aTraderBot } from "../bots/builders.js"
import { aWorld } from "../bots/world.js"

const config = intelConfig({ whale: { minUsd: 200 } })
const FILES = ["venue_a", "venue_b", "venue_b_us", "venue_d"].map((v) => `test/fixtures/feeds/sim/${v}.jsonl`)
const lines: ReadonlyArray<RecordedLine> = FILES.flatMap((file, f) => readRecording(file).map((line, i) => ({ line, f, i })))
  .sort((a, b) => a.line.t - b.line.t || a.f - b.f || a.i - b.i)
  .map(({ line }) => line)
const batches: ReadonlyArray<ReadonlyArray<FeedEvent>> = [...replayFrames(lines)].map((f) => f.events)

// What the recordings hold: traders and single contracts with a book, from a dry pass.
const dry = aWorld({ config })
for (const batch of batches) dry.feed(...batch)
const traders = [...new Set(dry.pipeline.positionRows().map((p) => p.trader))].sort().slice(0, 20)
const contracts = dry.markets.refs().filter((r) => (dry.reads.book(r)?.sides[0].asks.length ?? 0) > 0).slice(0, 20)

const sizing = fc.oneof(
  fc.record({ usd: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ percent: fc.integer({ min: 1, max: 200 }), maxUsd: fc.integer({ min: 1, max: 5_000 }) }),
)
const signal = fc.record({
  venue: fc.subarray([...VENUES], { minLength: 1 }),
  category: fc.subarray([...CATEGORIES], { minLength: 1 }),
  minUsd: fc.integer({ min: 0, max: 2_000 }),
  priceMax: fc.double({ min: 0.1, max: 1, noNaN: true }),
  entry: fc.constantFrom("open" as const, "add" as const, "all" as const),
}, { requiredKeys: ["entry"] })
const rule = fc.record({
  buyBelow: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
  takeProfitPoints: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
  stopLoss: fc.double({ min: 0.01, max: 0.5, noNaN: true }),
  maxHoldHours: fc.integer({ min: 1, max: 48 }),
  repeat: fc.boolean(),
}, { requiredKeys: ["repeat"] })

const botSet = fc.record({
  traderBots: fc.array(fc.record({ trader: fc.constantFrom(...(traders.length > 0 ? traders : ["venue_a:x"])), sizing, mirrorExits: fc.boolean() }), { maxLength: 6 }),
  signalBots: fc.array(fc.record({ signal, sizing }), { maxLength: 6 }),
  marketBots: fc.array(fc.record({ contract: fc.constantFrom(...contracts), side: fc.constantFrom(0 as const, 1 as const), rule, usd: fc.integer({ min: 1, max: 2_000 }) }), { maxLength: 6 }),
})
type BotSet = typeof botSet extends fc.Arbitrary<infer A> ? A : never

const contextsOf = (set: BotSet): Array<AnyBotContext> => [
  ...set.traderBots.map((b, i) => aTraderBot({ id: `trader:t${i}`, trader: b.trader, sizing: b.sizing, mirrorExits: b.mirrorExits })),
  ...set.signalBots.map((b, i) => aSignalBot(b.signal as never, { id: `signal:s${i}`, sizing: b.sizing })),
  ...set.marketBots.map((b, i) => aMarketBot({ id: `market:m${i}`, ref: b.contract, side: b.side, rule: b.rule, usd: b.usd })),
]

/**
 * One replay; with `killAt`, every bot is persisted, dropped and restored after that many batches; with
 * `lag`, the bots hear each batch that many batches after the market actors.
 */
const run = (set: BotSet, killAt?: number, lag = 0): Array<unknown> => {
  const w = aWorld({ config, lag })
  const contexts = contextsOf(set)
  for (const c of contexts) w.bots.spawn(c)
  let bots = w.bots
  batches.forEach((batch, i) => {
    if (i === killAt) {
      const stored = contexts.map((c) => ({ id: c.id, kind: c.kind, snapshot: JSON.parse(JSON.stringify(bots.persisted(c.id))) as unknown }))
      bots.stop()
      bots = new BotRegistry(w.reads)
      bots.restore(stored)
      w.bots = bots
    }
    w.feed(...batch)
  })
  w.drain()
  return contexts.map((c) => ({ ctx: bots.context(c.id), status: bots.status(c.id) }))
}

describe("bots replay", () => {
  it("the recordings hold traders, contracts and whale buys to copy", () => {
    expect(traders.length).toBeGreaterThan(0)
    expect(contracts.length).toBeGreaterThan(0)
  })

  it("the same feed twice gives every bot kind identical trades; a restore mid-feed or bots lagging behind the market actors change nothing", () => {
    const traded = { trader: 0, signal: 0, market: 0 }
    fc.assert(fc.property(botSet, fc.integer({ min: 1, max: Math.max(1, batches.length - 1) }), fc.integer({ min: 1, max: 400 }), (set, killAt, lag) => {
      const one = run(set)
      const two = run(set)
      expect(JSON.stringify(two)).toBe(JSON.stringify(one))
      expect(JSON.stringify(run(set, killAt))).toBe(JSON.stringify(one))
      expect(JSON.stringify(run(set, undefined, lag))).toBe(JSON.stringify(one))
      for (const { ctx } of one as Array<{ ctx: AnyBotContext }>) {
        const stake = (s: AnyBotContext) => s.kind === "market" ? s.settings.sizing.usd : "usd" in s.settings.sizing ? s.settings.sizing.usd : s.settings.sizing.maxUsd
        for (const t of ctx.trades) {
          traded[ctx.kind]++
          expect(t.cost).toBeLessThanOrEqual(stake(ctx) + 1e-6)
          if (t.closedAt !== null) expect(t.closedAt).toBeGreaterThanOrEqual(t.openedAt)
        }
        expect(recordOf(ctx.trades, () => null).trades).toBe(ctx.trades.length)
      }
    }), { numRuns: 12, seed: 7 })
    // Every kind traded somewhere in the runs.
    expect(traded.trader).toBeGreaterThan(0)
    expect(traded.signal).toBeGreaterThan(0)
    expect(traded.market).toBeGreaterThan(0)
  })
})
