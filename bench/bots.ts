// Bots: whale trades processed per second with 5,000 running bots on a replayed feed. A synthetic feed
// (800 markets on four venues with two-sided books, 2,000 named traders, whale-size buys and sells,
// price moves and settlements) goes once through the real market registry and intelligence pipeline,
// and the MarketEvents and TradeRecorded events they produce, each trade and price with its book as the
// service's bots get them, are recorded (outside the timing).
// Then, per round, a fresh BotRegistry with 5,000 running bots (2,000 trader bots, 2,000 signal bots
// with mixed filters, 1,000 market bots with mixed rules) is spawned and the recording is delivered to
// it in chunks of `chunk` events, as the live layer takes them off its queues (4,096; 1 = one event per
// delivery); the time covers routing, signal matching, book walks with fees, and every bot transition.
// Last, a takeover's catch-up: the recording's last 100,000 events replayed to 5,000 restored bots at once.
// Run: node --expose-gc --import tsx bench/bots.ts [whaleTrades] [bots] [typical|dense] [static|churn] [chunk]
// With --expose-gc each round starts from a collected heap (the previous round's bots are garbage, and
// collecting them inside the next round's timing made rounds differ by up to 30 %).
import "./support/service-v8.js" // first: the service's V8 flags
import { BotRegistry } from "../src/actors/bots/registry.js"
import type { AnyBotContext } from "../src/actors/bots/bot-types.js"
import { CATEGORIES, VENUES, type Category, type Venue } from "../src/domain/enums.js"
import type { FeedEvent, MarketListed } from "../src/domain/feed-events.js"
import { aPrint, aSettlement, aSnapshot } from "../test/actors/market-builders.js"
import { aMarketBot, aSignalBot, aTraderBot } from "../test/bots/builders.js"
import { aWorld } from "../test/bots/world.js"
import type { OrderedEvent } from "../src/intel/intel-bus.js"

const TRADES = Number(process.argv[2] ?? 200_000)
const BOTS = Number(process.argv[3] ?? 5_000)
const MIX = process.argv[4] === "dense" ? "dense" : "typical"
/** churn: every whale trade changes its market's book (a cached walk never applies across trades). */
const CHURN = process.argv[5] === "churn"
const CHUNK = Math.max(1, Number(process.argv[6] ?? 4_096))
const ROUNDS = 3
const MARKETS = 800
const TRADERS = 2_000
const T0 = Date.UTC(2026, 0, 15, 12)

let seed = 42
const rnd = (): number => {
  seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0
  return seed / 4_294_967_296
}
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rnd() * xs.length)] as A
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US")
const NAMING: ReadonlyArray<Venue> = ["venue_a", "venue_b"]
const WORDS = ["bitcoin", "election", "fed", "finals", "rain", "oscar", "senate", "ethereum"]

interface Mkt { readonly venue: Venue; readonly contract: string; readonly ref: string; readonly category: Category; readonly mid: number }

const markets: Array<Mkt> = Array.from({ length: MARKETS }, (_, i) => {
  const venue = VENUES[i % 4] as Venue
  const contract = `BENCH-M${i}`
  return { venue, contract, ref: `${venue}:${contract}`, category: CATEGORIES[i % 5] as Category, mid: 0.2 + rnd() * 0.6 }
})

const listing = (m: Mkt, i: number): MarketListed => ({
  _tag: "MarketListed", venue: m.venue, ts: T0, receivedAt: T0, contract: m.contract, event: null, eventTitle: null,
  title: `Will ${pick(WORDS)} market ${i} resolve Yes?`, category: m.category, kind: null,
  outcomes: [{ id: "yes", name: "Yes", label: "Yes" }, { id: "no", name: "No", label: "No" }],
  rule: null, series: null, opensAt: T0, closesAt: T0 + 86_400_000, feeRate: m.venue === "venue_b" ? 0.02 : null,
})

const r2 = (x: number): number => Math.round(x * 100) / 100
const books = (m: Mkt, t: number, size = 20_000): Array<FeedEvent> => {
  const levels = (best: number, dir: 1 | -1) => Array.from({ length: 5 }, (_, k) => [r2(best + dir * k * 0.01), size] as const)
    .filter(([p]) => p > 0 && p < 1)
  return [
    aSnapshot({ venue: m.venue, contract: m.contract, t, outcome: "yes", bids: levels(r2(m.mid - 0.01), -1), asks: levels(r2(m.mid + 0.01), 1) }),
    aSnapshot({ venue: m.venue, contract: m.contract, t, outcome: "no", bids: levels(r2(1 - m.mid - 0.01), -1), asks: levels(r2(1 - m.mid + 0.01), 1) }),
  ]
}

// ---- the feed, through markets and intelligence once ----

const recordFeed = () => {
  const w = aWorld({ record: true })
  // As in the service with these bots running: every trade and price change carries its book (the
  // registry's copy at the end of the feed batch), and the bots price from it. NO_BOOKS=1: the current book.
  if (process.env.NO_BOOKS !== "1") w.markets.watchBooks(() => true)
  markets.forEach((m, i) => w.feed(listing(m, i), ...books(m, T0)))
  let t = T0
  for (let n = 0; n < TRADES; n++) {
    t += 50
    const m = pick(markets)
    const named = NAMING.includes(m.venue)
    const trader = named ? { id: `w${Math.floor(rnd() * TRADERS)}`, name: null } : null
    const outcome = rnd() < 0.5 ? "yes" : "no"
    const price = outcome === "yes" ? r2(m.mid + 0.01) : r2(1 - m.mid + 0.01)
    const usd = 10_000 + Math.floor(rnd() * 90_000)
    w.feed(aPrint({ venue: m.venue, contract: m.contract, t, outcome, price, contracts: usd / price, trader, action: rnd() < 0.85 ? "buy" : "sell", tradeId: `b${n}` }))
    if (CHURN) w.feed(...books(m, t, 20_000 - (n % 1_000)))
    // Now and then a market settles and a new one takes its place (settlement routing, new books).
    if (n % 5_000 === 4_999) w.feed(aSettlement({ venue: m.venue, contract: m.contract, t, winner: "yes" }))
  }
  return w
}

const botsFor = (count: number): Array<AnyBotContext> => {
  const out: Array<AnyBotContext> = []
  const traders = Math.floor(count * 0.4)
  const signals = Math.floor(count * 0.4)
  for (let i = 0; i < traders; i++) {
    const venue = pick(NAMING)
    out.push(aTraderBot({ id: `trader:t${i}`, accountId: `a${i % 500}`, trader: `${venue}:w${i % TRADERS}`, sizing: rnd() < 0.5 ? { usd: 100 } : { percent: 1, maxUsd: 500 }, mirrorExits: rnd() < 0.5 }))
  }
  for (let i = 0; i < signals; i++) {
    // typical: each signal names a venue, a category, a size floor and a keyword (a whale trade is
    // copied by a few bots); dense: broad signals (a whale trade is copied by dozens).
    const dense = MIX === "dense"
    const signal = {
      ...(!dense || rnd() < 0.8 ? { venue: [pick(VENUES)] } : {}),
      ...(!dense || rnd() < 0.9 ? { category: [pick(CATEGORIES)] } : {}),
      ...(!dense || rnd() < 0.8 ? { minUsd: 25_000 + Math.floor(rnd() * 8) * 10_000 } : {}),
      ...(dense && rnd() < 0.3 ? { priceMax: 0.5 } : {}),
      ...(!dense || rnd() < 0.4 ? { keywords: [pick(WORDS)] } : {}),
      entry: "all" as const,
    }
    out.push(aSignalBot(signal, { id: `signal:s${i}`, accountId: `a${i % 500}`, sizing: { usd: 50 + Math.floor(rnd() * 4) * 50 } }))
  }
  for (let i = 0; out.length < count; i++) {
    const m = pick(markets)
    out.push(aMarketBot({
      id: `market:m${i}`, accountId: `a${i % 500}`, ref: m.ref, side: rnd() < 0.5 ? 0 : 1,
      rule: { buyBelow: r2(m.mid - 0.02), takeProfitPoints: 0.05, maxHoldHours: 4, repeat: true }, usd: 100,
    }))
  }
  return out
}

const started = performance.now()
const world = recordFeed()
const events = world.delivered
const whale = events.filter((e) => e._tag === "TradeRecorded").length
console.log(`feed: ${fmt(events.length)} events (${fmt(whale)} whale trades on the IntelBus) recorded in ${fmt(performance.now() - started)} ms`)

const rates: Array<number> = []
for (let round = 1; round <= ROUNDS; round++) {
  ;(globalThis as { gc?: () => void }).gc?.()
  const bots = new BotRegistry(world.reads)
  const t0 = performance.now()
  for (const ctx of botsFor(BOTS)) bots.spawn(ctx)
  const spawnMs = performance.now() - t0
  const t1 = performance.now()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < events.length; i += CHUNK) bots.deliver(events.slice(i, i + CHUNK))
  const ms = performance.now() - t1
  // CPU time of the process (main thread and GC helpers): a figure less bent by other load on the machine.
  const cpu = process.cpuUsage(cpu0)
  const cpuMs = (cpu.user + cpu.system) / 1000
  let trades = 0
  for (const id of bots.ids()) trades += bots.context(id)?.trades.length ?? 0
  const c = bots.counters
  console.log(
    `${MIX}${CHURN ? "+churn" : ""} chunk ${fmt(CHUNK)} round ${round}: ${fmt(BOTS)} bots spawned in ${fmt(spawnMs)} ms; ${fmt(whale)} whale trades + ${fmt(events.length - whale)} market events in ${fmt(ms)} ms` +
    ` = ${fmt(whale / (ms / 1000))} whale trades/s with ${fmt(BOTS)} running bots (${fmt(whale / (cpuMs / 1000))} per CPU-second);` +
    ` ${(c.fills / whale).toFixed(1)} copies per whale trade;` +
    ` ${fmt(c.routed)} trades routed to bots in ${fmt(c.sends)} bot commands, ${fmt(c.signalTests)} signal tests, ${fmt(c.fills)} fills, ${fmt(trades)} bot trades`,
  )
  rates.push(whale / (ms / 1000))
  bots.stop()
}
const sorted = [...rates].sort((a, b) => a - b)
console.log(`median of ${ROUNDS} rounds: ${fmt(sorted[Math.floor(ROUNDS / 2)] ?? 0)} whale trades/s with ${fmt(BOTS)} running bots (best ${fmt(sorted[ROUNDS - 1] ?? 0)})`)

// A takeover's catch-up at the recent feed's cap (src/intel/recent-feed.ts, 100,000 events): the last events
// of the recording, as a follower keeps them (no books: the replay quotes the current ones), replayed to
// 5,000 bots just restored, in one synchronous step while the actors are built.
{
  ;(globalThis as { gc?: () => void }).gc?.()
  const CAP = 100_000
  // A follower's feed carries no books, nor the book changes only a bot asks for.
  const kept = events.slice(-CAP).filter((e) => e._tag !== "BookChanged").map((e): OrderedEvent => {
    if (!("book" in e) || e.book === undefined) return e
    const { book: _book, ...rest } = e
    return rest as OrderedEvent
  })
  const bots = new BotRegistry(world.reads)
  for (const ctx of botsFor(BOTS)) bots.spawn(ctx)
  // In runs of 2,048, as the bots layer replays them (CATCH_UP_RUN), the node's I/O let in between.
  const t0 = performance.now()
  const replayed = bots.startCatchUp(kept, {})
  let routed = 0
  let longest = 0
  for (let i = 0; i < replayed.length; i += 2_048) {
    const r0 = performance.now()
    routed += bots.catchUpSome(replayed.slice(i, i + 2_048), new Map())
    longest = Math.max(longest, performance.now() - r0)
  }
  bots.endCatchUp()
  const ms = performance.now() - t0
  console.log(
    `catch-up: ${fmt(routed)} recent-feed events (${fmt(kept.filter((e) => e._tag === "TradeRecorded").length)} whale trades) replayed to ${fmt(BOTS)} restored bots ` +
    `in ${fmt(ms)} ms, the longest run of 2,048 ${fmt(longest)} ms; ${fmt(bots.counters.fills)} fills`,
  )
  bots.stop()
}
