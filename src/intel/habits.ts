// A trader's curve and habits (Get Trader `include=curve` and `include=habits`): running profit by
// settlement time, months, size and price bands, entry behaviour, US Eastern trading hours, streaks.
// Pure: the trader's trades and an `asOf` instant in, rows out; every order is fixed.
import { easternTime, utcMonth } from "./calendar.js"
import { defaultIntelConfig, type IntelConfig } from "./config.js"
import {
  betProfit, isSettledBet, recordOrder, settledTimeOf, StatsAccumulator, type RecordStats, type RecordTrade,
} from "./records.js"
import { round6 } from "../numbers.js"

/** Settled bets by settlement time, then trade time, then id. */
const settledBets = (trades: ReadonlyArray<RecordTrade>, asOf: number): Array<RecordTrade> =>
  trades.filter((trade) => trade.time <= asOf && isSettledBet(trade, asOf))
    .sort((a, b) => settledTimeOf(a) - settledTimeOf(b) || recordOrder(a, b))

export interface CurvePoint {
  /** Settlement time, epoch ms. */
  readonly time: number
  /** Running total of profit. */
  readonly profit: number
  /** Settled bets counted so far. */
  readonly trades: number
}

export interface CurveMonth {
  /** `YYYY-MM` of the settlement time, UTC. */
  readonly month: string
  readonly trades: number
  readonly profit: number
}

/** One point per settlement instant (bets settling together share a point), oldest first. */
export const curve = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
): { readonly points: Array<CurvePoint>; readonly months: Array<CurveMonth> } => {
  const points: Array<CurvePoint> = []
  const months: Array<{ month: string; trades: number; profit: number }> = []
  let running = 0
  let count = 0
  for (const bet of settledBets(trades, asOf)) {
    const time = settledTimeOf(bet)
    const profit = betProfit(bet, asOf)
    running += profit
    count++
    const last = points[points.length - 1]
    if (last !== undefined && last.time === time) points[points.length - 1] = { time, profit: round6(running), trades: count }
    else points.push({ time, profit: round6(running), trades: count })
    const month = utcMonth(time)
    const lastMonth = months[months.length - 1]
    if (lastMonth !== undefined && lastMonth.month === month) {
      lastMonth.trades++
      lastMonth.profit += profit
    } else {
      months.push({ month, trades: 1, profit })
    }
  }
  for (const m of months) m.profit = round6(m.profit)
  return { points, months }
}

export interface BandRow {
  readonly label: string
  readonly trades: number
  readonly settled: number
  readonly winRate: number | null
  readonly return: number | null
  readonly profit: number
  readonly volume: number
}

export interface PriceBandRow extends BandRow {
  readonly avgEntry: number | null
}

const bandOf = (label: string, stats: RecordStats): BandRow => ({
  label, trades: stats.trades, settled: stats.settled, winRate: stats.winRate, return: stats.return,
  profit: stats.profit, volume: stats.volume,
})

const trimmed = (n: number): string => n.toFixed(1).replace(/\.0$/, "")

/** `$950`, `$1k`, `$12.5k`, `$1.2M`. */
export const usdLabel = (usd: number): string =>
  usd >= 999_950 ? `$${trimmed(usd / 1e6)}M` : usd >= 999.5 ? `$${trimmed(usd / 1e3)}k` : `$${Math.round(usd)}`

/**
 * Four equal-count bands of the trader's buys by dollars (smallest first). Band i holds the buys
 * ranked floor(i·n/4) .. floor((i+1)·n/4) − 1; with fewer than four buys some bands are empty and
 * left out. Label: `$min–$max` of the band (one amount when both read the same).
 */
export const bySize = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
  config: IntelConfig = defaultIntelConfig,
): Array<BandRow> => {
  const buys = trades.filter((trade) => trade.action === "buy" && trade.time <= asOf)
    .sort((a, b) => a.usd - b.usd || recordOrder(a, b))
  const rows: Array<BandRow> = []
  for (let band = 0; band < 4; band++) {
    const members = buys.slice(Math.floor((band * buys.length) / 4), Math.floor(((band + 1) * buys.length) / 4))
    if (members.length === 0) continue
    const low = usdLabel((members[0] as RecordTrade).usd)
    const high = usdLabel((members[members.length - 1] as RecordTrade).usd)
    const sums = new StatsAccumulator()
    for (const trade of members.slice().sort(recordOrder)) sums.add(trade, asOf)
    rows.push(bandOf(low === high ? low : `${low}–${high}`, sums.stats(config)))
  }
  return rows
}

/** Price bands of buys: [0, 0.2), [0.2, 0.4), [0.4, 0.6), [0.6, 0.8), [0.8, 1]; all five, always. */
export const PRICE_BANDS = [
  { label: "0.00-0.20", from: 0, to: 0.2 },
  { label: "0.20-0.40", from: 0.2, to: 0.4 },
  { label: "0.40-0.60", from: 0.4, to: 0.6 },
  { label: "0.60-0.80", from: 0.6, to: 0.8 },
  { label: "0.80-1.00", from: 0.8, to: Infinity },
] as const

export const priceBandOf = (price: number): number => {
  const index = PRICE_BANDS.findIndex((band) => price < band.to)
  return index === -1 ? PRICE_BANDS.length - 1 : index
}

export const byPrice = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
  config: IntelConfig = defaultIntelConfig,
): Array<PriceBandRow> => {
  const sums = PRICE_BANDS.map(() => new StatsAccumulator())
  for (const trade of trades.filter((t) => t.action === "buy" && t.time <= asOf).sort(recordOrder)) {
    sums[priceBandOf(trade.price)]?.add(trade, asOf)
  }
  return PRICE_BANDS.map((band, index) => {
    const stats = (sums[index] as StatsAccumulator).stats(config)
    return { ...bandOf(band.label, stats), avgEntry: stats.avgEntry }
  })
}

export const BEHAVIOURS = ["open", "add", "flip", "trim", "close", "unknown"] as const
export type Behaviour = (typeof BEHAVIOURS)[number]

/** How trades changed positions: a count per entry (`unknown` where the entry is null), all six rows. */
export const behaviour = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
): Array<{ readonly entry: Behaviour; readonly trades: number }> => {
  const counts = new Map<Behaviour, number>()
  for (const trade of trades) {
    if (trade.time > asOf) continue
    const entry: Behaviour = trade.entry ?? "unknown"
    counts.set(entry, (counts.get(entry) ?? 0) + 1)
  }
  return BEHAVIOURS.map((entry) => ({ entry, trades: counts.get(entry) ?? 0 }))
}

export interface HourCell {
  /** 0 = Sunday .. 6 = Saturday, US Eastern. */
  readonly weekday: number
  /** 0..23, US Eastern. */
  readonly hour: number
  readonly trades: number
}

/** Trades per US Eastern weekday and hour; cells with trades only, by weekday then hour. */
export const hours = (trades: ReadonlyArray<RecordTrade>, asOf: number): Array<HourCell> => {
  const counts = new Map<number, number>()
  for (const trade of trades) {
    if (trade.time > asOf) continue
    const { weekday, hour } = easternTime(trade.time)
    const cell = weekday * 24 + hour
    counts.set(cell, (counts.get(cell) ?? 0) + 1)
  }
  return [...counts.entries()].sort(([a], [b]) => a - b)
    .map(([cell, count]) => ({ weekday: Math.floor(cell / 24), hour: cell % 24, trades: count }))
}

export interface Streaks {
  /** Length of the latest run of wins or losses. */
  readonly current: number
  readonly currentKind: "win" | "loss" | null
  readonly longestWin: number
  readonly longestLoss: number
}

/** Runs over settled bets in settlement order; voids are not bets and neither extend nor break a run. */
export const streaks = (trades: ReadonlyArray<RecordTrade>, asOf: number): Streaks => {
  let current = 0
  let currentKind: "win" | "loss" | null = null
  let longestWin = 0
  let longestLoss = 0
  for (const bet of settledBets(trades, asOf)) {
    const kind = bet.result === "win" ? "win" : "loss"
    current = kind === currentKind ? current + 1 : 1
    currentKind = kind
    if (kind === "win") longestWin = Math.max(longestWin, current)
    else longestLoss = Math.max(longestLoss, current)
  }
  return { current, currentKind, longestWin, longestLoss }
}

export interface Habits {
  readonly bySize: Array<BandRow>
  readonly byPrice: Array<PriceBandRow>
  readonly behaviour: Array<{ readonly entry: Behaviour; readonly trades: number }>
  readonly hours: Array<HourCell>
  readonly streaks: Streaks
}

/** All habits of one trader's trades as of `asOf`. */
export const habits = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
  config: IntelConfig = defaultIntelConfig,
): Habits => ({
  bySize: bySize(trades, asOf, config),
  byPrice: byPrice(trades, asOf, config),
  behaviour: behaviour(trades, asOf),
  hours: hours(trades, asOf),
  streaks: streaks(trades, asOf),
})

