// Backtest bench: a 365-day history of at least 2 million whale buys (plus smaller named buys), and
// in the same run one signal backtest, one trader backtest and a 20-value sweep, each next to a plain
// in-memory loop over the same matched rows (objects in an array: stake, result, profit, weekly curve).
// Targets: a backtest within 3× its loop; the 20-value sweep within 5× one backtest.
//
//   node --import tsx bench/backtest.ts [whaleTrades=2200000]
import type { SignalBacktest, TraderBacktest } from "../src/domain/backtest.js"
import { CATEGORIES, VENUES, type Category, type TradeEntry, type TradeResult, type Venue } from "../src/domain/enums.js"
import type { TraderRef } from "../src/domain/refs.js"
import type { Signal } from "../src/domain/signal.js"
import { BacktestHistory, type HistoryTrade } from "../src/intel/backtest-store.js"
import { scoreSignal, scoreTrader, scoreV1 } from "../src/intel/backtest.js"
import { describeUniverse } from "../src/intel/universe.js"
import { DAY_MS } from "../src/intel/config.js"
import { settlementProfit } from "../src/intel/settlement.js"

const WHALES = Number(process.argv[2] ?? 2_200_000)
const NAMED_SMALL = Math.round(WHALES / 8)
const NOW = Date.UTC(2026, 5, 1, 12)
const DAYS = 365

const lcg = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 4_294_967_296
  }
}

interface Row {
  readonly time: number
  readonly venue: Venue
  readonly category: Category | null
  readonly entry: TradeEntry | null
  readonly price: number
  readonly usd: number
  readonly trader: string | null
  readonly whale: boolean
  readonly result: TradeResult
  readonly settledAt: number | null
}

// ---- history ---------------------------------------------------------------------------------

const random = lcg(2026)
const TRADERS = Array.from({ length: 5_000 }, (_, i) => `${i % 2 === 0 ? "venue_a" : "venue_b"}:t${i}`)
const TITLES = Array.from({ length: 20_000 }, (_, i) => `Market ${i}: ${["Lakers", "Senate", "Bitcoin", "Fed", "Oscars"][i % 5]} question`)

const makeRow = (i: number, whale: boolean): HistoryTrade => {
  const time = NOW - Math.floor((1 - i / (WHALES + NAMED_SMALL)) * DAYS * DAY_MS) + Math.floor(random() * 60_000)
  // A market (its title) has one venue and one category, as on the venues.
  const market = Math.floor(random() * TITLES.length)
  const venue = VENUES[market % VENUES.length] as Venue
  const named = venue === "venue_a" || venue === "venue_b"
  // A Zipf-like trader choice: a few traders trade a lot.
  const trader = !whale || (named && random() < 0.6) ? TRADERS[Math.floor(TRADERS.length * random() ** 3)] ?? null : null
  const r = random()
  const settled = time < NOW - 20 * DAY_MS || random() < 0.5
  const result: TradeResult = !settled ? "open" : r < 0.46 ? "win" : r < 0.97 ? "loss" : "void"
  return {
    id: `b${i}`, seq: i + 1, time, venue, contract: `c${i % 50_000}`, outcome: "Yes", title: TITLES[market] as string,
    category: market % 19 === 0 ? null : CATEGORIES[(market >> 2) % CATEGORIES.length] as Category, kind: null, action: "buy",
    entry: trader === null ? null : random() < 0.7 ? "open" : random() < 0.8 ? "add" : "flip",
    price: Math.round((0.02 + random() * 0.96) * 100) / 100, usd: whale ? 10_000 + Math.floor(random() ** 4 * 490_000) : 100 + Math.floor(random() * 9_000),
    trader, whale, result, settledAt: result === "open" ? null : time + Math.floor(random() * 10 * DAY_MS),
  }
}

const built = performance.now()
const history = new BacktestHistory()
const rows: Array<Row> = []
const titleOf: Array<string> = []
const total = WHALES + NAMED_SMALL
for (let i = 0; i < total; i++) {
  const t = makeRow(i, random() < WHALES / total)
  history.add(t)
  titleOf.push(t.title)
  rows.push({ time: t.time, venue: t.venue, category: t.category, entry: t.entry, price: t.price, usd: t.usd, trader: t.trader, whale: t.whale, result: t.result, settledAt: t.settledAt })
}
history.prepare()
const whaleCount = rows.reduce((n, r) => n + (r.whale ? 1 : 0), 0)
console.log(`history: ${history.size.toLocaleString()} buys (${whaleCount.toLocaleString()} whale), ${history.traders.length} traders, built in ${((performance.now() - built) / 1000).toFixed(1)} s`)

// ---- the plain loop --------------------------------------------------------------------------

/** The score of pre-matched rows at a fixed stake, with its weekly curve: the reference loop. */
const plainLoop = (matched: ReadonlyArray<Row>, stake: number, now: number, from: number) => {
  const firstWeek = Math.floor((Math.floor(from / DAY_MS) + 3) / 7)
  const weeks = new Float64Array(Math.floor((Math.floor(now / DAY_MS) + 3) / 7) - firstWeek + 1)
  let trades = 0, settled = 0, wins = 0, losses = 0, open = 0, staked = 0, profit = 0
  for (const r of matched) {
    trades++
    const result = r.result !== "open" && (r.settledAt ?? r.time) <= now ? r.result : "open"
    if (result === "open") {
      open++
      continue
    }
    settled++
    if (result === "void") continue
    if (result === "win") wins++
    else losses++
    const p = settlementProfit(stake, r.price, result)
    staked += stake
    profit += p
    weeks[Math.floor((Math.floor(r.time / DAY_MS) + 3) / 7) - firstWeek]! += p
  }
  return { trades, settled, wins, losses, open, staked, profit, weeks: weeks.length }
}

const median = (xs: Array<number>): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

/** Medians of two functions timed in alternation (so a busy machine slows both alike). */
const timePair = (a: () => unknown, b: () => unknown, runs = 21): readonly [number, number] => {
  for (let i = 0; i < 3; i++) {
    a()
    b()
  }
  const sa: Array<number> = []
  const sb: Array<number> = []
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now()
    a()
    sa.push(performance.now() - t0)
    t0 = performance.now()
    b()
    sb.push(performance.now() - t0)
  }
  return [median(sa), median(sb)]
}

const from = NOW - DAYS * DAY_MS
const inWindow = (r: Row) => r.time >= from && r.time <= NOW

const signal = {
  venue: ["venue_a", "venue_b", "venue_d"], category: ["sports", "politics", "crypto"], priceMin: 0.15, priceMax: 0.85,
  minUsd: 12_000, entry: "all",
} as Signal
const signalMatch = (r: Row) => r.whale && inWindow(r) && (signal.venue ?? []).includes(r.venue) && r.category !== null &&
  (signal.category ?? []).includes(r.category) && r.price >= 0.15 && r.price <= 0.85 && r.usd >= 12_000
const signalRequest: SignalBacktest = { signal, sizing: { usd: 100 }, days: DAYS, holdout: false }
const signalRows = rows.filter(signalMatch)

// A narrow signal (one venue, a keyword, a price floor): read through the title lists.
const narrow = { venue: ["venue_b"], keywords: ["senate"], priceMin: 0.3, entry: "all" } as unknown as Signal
const narrowRequest: SignalBacktest = { signal: narrow, sizing: { usd: 100 }, days: DAYS, holdout: false }
const narrowRows = rows.filter((r, i) => r.whale && inWindow(r) && r.venue === "venue_b" && r.price >= 0.3 && titleOf[i]?.toLowerCase().includes("senate"))

const traderRef = TRADERS[0] as TraderRef
const traderRequest: TraderBacktest = { trader: traderRef, sizing: { usd: 100 }, days: DAYS }
const traderRows = rows.filter((r) => r.trader === traderRef && inWindow(r))

const sweepRequest: SignalBacktest = {
  ...signalRequest, signal: { ...signal, priceMin: undefined, priceMax: 0.85 } as unknown as Signal,
  sweep: { field: "priceMin", values: Array.from({ length: 20 }, (_, i) => Math.round(i * 4) / 100) },
}
delete (sweepRequest.signal as { priceMin?: number }).priceMin

const check = (name: string, got: { trades: number; profit: number }, want: { trades: number; profit: number }) => {
  if (got.trades !== want.trades || Math.abs(got.profit - want.profit) > 0.02) {
    throw new Error(`${name}: backtest ${got.trades}/${got.profit} differs from the loop ${want.trades}/${want.profit}`)
  }
}
check("signal", scoreSignal(history, signalRequest, NOW), plainLoop(signalRows, 100, NOW, from))
check("narrow", scoreSignal(history, narrowRequest, NOW), plainLoop(narrowRows, 100, NOW, from))
check("trader", scoreTrader(history, traderRequest, NOW), plainLoop(traderRows, 100, NOW, from))

const [signalMs, signalLoopMs] = timePair(() => scoreSignal(history, signalRequest, NOW), () => plainLoop(signalRows, 100, NOW, from))
const [narrowMs, narrowLoopMs] = timePair(() => scoreSignal(history, narrowRequest, NOW), () => plainLoop(narrowRows, 100, NOW, from))
const [traderMs, traderLoopMs] = timePair(() => scoreTrader(history, traderRequest, NOW), () => plainLoop(traderRows, 100, NOW, from), 51)
const [sweepMs, oneMs] = timePair(() => scoreSignal(history, sweepRequest, NOW), () => scoreSignal(history, signalRequest, NOW))

const line = (name: string, rowsMatched: number, ms: number, loopMs: number, target: number) => {
  const ratio = ms / loopMs
  console.log(`${name.padEnd(22)} ${rowsMatched.toLocaleString().padStart(10)} rows  backtest ${ms.toFixed(2).padStart(8)} ms  loop ${loopMs.toFixed(2).padStart(8)} ms  ${ratio.toFixed(2)}× (target ≤ ${target}×) ${ratio <= target ? "ok" : "MISSED"}`)
}
line("signal backtest", signalRows.length, signalMs, signalLoopMs, 3)
line("narrow signal", narrowRows.length, narrowMs, narrowLoopMs, 3)
line("trader backtest", traderRows.length, traderMs, traderLoopMs, 3)
const sweepRatio = sweepMs / oneMs
console.log(`${"20-value sweep".padEnd(22)} ${"".padStart(10)}       sweep    ${sweepMs.toFixed(2).padStart(8)} ms  one backtest ${oneMs.toFixed(2)} ms  ${sweepRatio.toFixed(2)}× (target ≤ 5×) ${sweepRatio <= 5 ? "ok" : "MISSED"}`)

// v1: a backtest of the same signal's shape in v1 criteria, and GET /v1/universe's pass (once a minute at most).
const v1Request = { criteria: { platforms: ["venue_a", "venue_b", "venue_d"], categories: ["sports", "politics", "crypto"], priceMin: 0.15, priceMax: 0.85, minAmountUsd: 12_000, sinceDays: DAYS }, stake: 100 } as const
const v1 = scoreV1(history, v1Request as Parameters<typeof scoreV1>[1], NOW)
if (v1.matched !== signalRows.length) throw new Error(`v1 backtest matched ${v1.matched}, the signal ${signalRows.length}`)
const [v1Ms, signalAgainMs] = timePair(() => scoreV1(history, v1Request as Parameters<typeof scoreV1>[1], NOW), () => scoreSignal(history, signalRequest, NOW))
console.log(`${"v1 backtest".padEnd(22)} ${v1.matched.toLocaleString().padStart(10)} rows  backtest ${v1Ms.toFixed(2).padStart(8)} ms  (the v2 signal: ${signalAgainMs.toFixed(2)} ms)`)
const [universeMs] = timePair(() => describeUniverse(history, NOW), () => undefined, 5)
console.log(`${"v1 universe".padEnd(22)} ${history.size.toLocaleString().padStart(10)} rows  one pass ${universeMs.toFixed(2).padStart(8)} ms  (recomputed at most once a minute)`)
