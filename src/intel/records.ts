// Trader records: over every trade a venue attributes to a named trader, per trader × category × kind
// × period (relative to an `asOf` instant), with the rank by profit, the trader summary of a trade row
// and the winning-record rule. Pure: `asOf` is an argument, never a clock read.
//
// A settled bet is a buy whose side has settled win or loss by `asOf`; its profit is the settlement
// arithmetic at the price paid (held to settlement, whatever the trader did later). A buy on a voided
// market is a trade (counted in `trades` and `volume`) but not a settled bet: no win, no loss, no
// stake, so it leaves `winRate` and `return` alone. Sells count in `trades` and `volume` only.
import { CATEGORIES, KINDS, type Category, type Kind, type TradeEntry, type TradeResult, type Venue } from "../domain/enums.js"
import { DAY_MS, defaultIntelConfig, type IntelConfig } from "./config.js"
import { round6 } from "../numbers.js"
import { settlementProfit } from "./settlement.js"

export interface RecordTrade {
  readonly id: string
  /** Trader ref. */
  readonly trader: string
  readonly venue: Venue
  /** Epoch ms, venue time. */
  readonly time: number
  readonly category: Category | null
  readonly kind: Kind | null
  readonly action: "buy" | "sell"
  readonly price: number
  readonly contracts: number
  /** Dollars traded. */
  readonly usd: number
  readonly entry: TradeEntry | null
  /** Result of the side traded; `open` until its market settles. */
  readonly result: TradeResult
  /** When the market settled or was voided; null while open (or when the venue gave no time). */
  readonly settledAt: number | null
}

export const PERIODS = ["today", "week", "month", "all"] as const
export type Period = (typeof PERIODS)[number]

export const PERIOD_MS: Readonly<Record<Exclude<Period, "all">, number>> = {
  today: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
}

/** A period covers (asOf − length, asOf]; `all` covers everything up to and including `asOf`. */
export const inPeriod = (time: number, period: Period, asOf: number): boolean =>
  time <= asOf && (period === "all" || time > asOf - PERIOD_MS[period])

/** When a bet counts as settled: its settlement time, or its trade time when the venue gave none. */
export const settledTimeOf = (trade: RecordTrade): number => trade.settledAt ?? trade.time

/** A buy whose side settled win or loss by `asOf`. */
export const isSettledBet = (trade: RecordTrade, asOf: number): boolean =>
  trade.action === "buy" && (trade.result === "win" || trade.result === "loss") && settledTimeOf(trade) <= asOf

/** Profit of a settled bet held to settlement at the price paid (0 for anything not settled). */
export const betProfit = (trade: RecordTrade, asOf: number): number =>
  isSettledBet(trade, asOf) ? settlementProfit(trade.usd, trade.price, trade.result as "win" | "loss") : 0

export interface RecordStats {
  readonly trades: number
  readonly settled: number
  readonly wins: number
  readonly losses: number
  /** Buys on voided markets (not settled bets). */
  readonly voids: number
  readonly profit: number
  /** Dollars traded, buys and sells. */
  readonly volume: number
  /** Dollars staked on settled bets. */
  readonly staked: number
  /**
   * profit / money traded (spec: "profit divided by money traded"), the money being `volume` without the
   * buys whose market voided (voids are out of the return); null under `minSettledForRates` settled bets.
   */
  readonly return: number | null
  /** wins / settled; null under `minSettledForRates` settled bets. */
  readonly winRate: number | null
  /** Average price paid: buy dollars / buy contracts; null without buys. */
  readonly avgEntry: number | null
  readonly lastTradeAt: number | null
}

const positive = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0)

/** Mutable sums behind `RecordStats`; add trades in a fixed order so float sums are reproducible. */
export class StatsAccumulator {
  trades = 0
  settled = 0
  wins = 0
  losses = 0
  voids = 0
  profit = 0
  volume = 0
  staked = 0
  /** `volume` without voided buys: the return's denominator. */
  traded = 0
  buyUsd = 0
  buyContracts = 0
  lastTradeAt: number | null = null

  add(trade: RecordTrade, asOf: number): void {
    this.trades++
    this.volume += positive(trade.usd)
    this.lastTradeAt = this.lastTradeAt === null ? trade.time : Math.max(this.lastTradeAt, trade.time)
    const voided = trade.action === "buy" && trade.result === "void" && settledTimeOf(trade) <= asOf
    if (!voided) this.traded += positive(trade.usd)
    if (trade.action !== "buy") return
    this.buyUsd += positive(trade.usd)
    this.buyContracts += positive(trade.contracts)
    if (isSettledBet(trade, asOf)) {
      this.settled++
      if (trade.result === "win") this.wins++
      else this.losses++
      this.staked += positive(trade.usd)
      this.profit += betProfit(trade, asOf)
    } else if (trade.result === "void" && settledTimeOf(trade) <= asOf) {
      this.voids++
    }
  }

  stats(config: IntelConfig = defaultIntelConfig): RecordStats {
    const rated = this.settled >= config.records.minSettledForRates
    return {
      trades: this.trades,
      settled: this.settled,
      wins: this.wins,
      losses: this.losses,
      voids: this.voids,
      // Sums of many trades carry float dust (9361.558790000003): rounded as every price and dollar figure.
      profit: round6(this.profit),
      volume: round6(this.volume),
      staked: round6(this.staked),
      return: rated && this.traded > 0 ? round6(this.profit / this.traded) : null,
      winRate: rated ? round6(this.wins / this.settled) : null,
      avgEntry: this.buyContracts > 0 ? round6(this.buyUsd / this.buyContracts) : null,
      lastTradeAt: this.lastTradeAt,
    }
  }
}

/** Trades by time, then id: the one order every sum is taken in. */
export const recordOrder = (a: RecordTrade, b: RecordTrade): number =>
  a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Stats over the given trades (no period filter), settled as of `asOf`. */
export const recordStats = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
  config: IntelConfig = defaultIntelConfig,
): RecordStats => {
  const sums = new StatsAccumulator()
  for (const trade of [...trades].sort(recordOrder)) sums.add(trade, asOf)
  return sums.stats(config)
}

/** One trader's figures for one period and scope: whole record (both null), a category, or a kind. */
export interface RecordRow extends RecordStats {
  readonly trader: string
  readonly venue: Venue
  readonly period: Period
  readonly category: Category | null
  readonly kind: Kind | null
}

const CATEGORY_INDEX = new Map<Category, number>(CATEGORIES.map((c, i) => [c, i]))
const KIND_INDEX = new Map<Kind, number>(KINDS.map((k, i) => [k, i]))

const scopeKey = (period: Period, category: Category | null, kind: Kind | null): string =>
  `${period}|${category ?? ""}|${kind ?? ""}`

/**
 * Every record row: per trader (ascending ref) and period (today, week, month, all): the whole record
 * (always present, zeros when idle), then each category traded in the period (spec order) followed by
 * its kinds (spec order). A trade with no category counts in the whole record only; one with a
 * category but no kind counts in the whole record and its category.
 */
export const recordRows = (
  trades: ReadonlyArray<RecordTrade>,
  asOf: number,
  config: IntelConfig = defaultIntelConfig,
): Array<RecordRow> => {
  const byTrader = new Map<string, Array<RecordTrade>>()
  for (const trade of trades) {
    const list = byTrader.get(trade.trader) ?? []
    list.push(trade)
    byTrader.set(trade.trader, list)
  }
  const rows: Array<RecordRow> = []
  for (const trader of [...byTrader.keys()].sort()) {
    const own = (byTrader.get(trader) ?? []).slice().sort(recordOrder)
    const venue = (own[0] as RecordTrade).venue
    const sums = new Map<string, StatsAccumulator>()
    const at = (key: string): StatsAccumulator => {
      const found = sums.get(key)
      if (found !== undefined) return found
      const created = new StatsAccumulator()
      sums.set(key, created)
      return created
    }
    for (const trade of own) {
      for (const period of PERIODS) {
        if (!inPeriod(trade.time, period, asOf)) continue
        at(scopeKey(period, null, null)).add(trade, asOf)
        if (trade.category !== null) at(scopeKey(period, trade.category, null)).add(trade, asOf)
        if (trade.category !== null && trade.kind !== null) at(scopeKey(period, trade.category, trade.kind)).add(trade, asOf)
      }
    }
    for (const period of PERIODS) {
      const row = (category: Category | null, kind: Kind | null, stats: RecordStats): RecordRow =>
        ({ trader, venue, period, category, kind, ...stats })
      rows.push(row(null, null, (sums.get(scopeKey(period, null, null)) ?? new StatsAccumulator()).stats(config)))
      const scopes = [...sums.keys()]
        .filter((key) => key.startsWith(`${period}|`))
        .map((key) => key.split("|") as [string, Category | "", Kind | ""])
        .filter(([, category]) => category !== "")
        .sort(([, ca, ka], [, cb, kb]) =>
          (CATEGORY_INDEX.get(ca as Category) ?? 0) - (CATEGORY_INDEX.get(cb as Category) ?? 0) ||
          (ka === "" ? -1 : KIND_INDEX.get(ka) ?? 0) - (kb === "" ? -1 : KIND_INDEX.get(kb) ?? 0))
      for (const [, category, kind] of scopes) {
        const stats = (sums.get(scopeKey(period, category as Category, kind === "" ? null : kind)) as StatsAccumulator).stats(config)
        rows.push(row(category as Category, kind === "" ? null : kind, stats))
      }
    }
  }
  return rows
}

/** Key of a row in `indexRecords`. */
export const recordKey = (trader: string, period: Period, category: Category | null, kind: Kind | null): string =>
  `${trader}\u0000${scopeKey(period, category, kind)}`

export const indexRecords = (rows: ReadonlyArray<RecordRow>): ReadonlyMap<string, RecordRow> =>
  new Map(rows.map((row) => [recordKey(row.trader, row.period, row.category, row.kind), row]))

/** The kind with the highest profit among kinds with enough settled bets; ties: more settled, then spec order. */
export const bestKind = (rows: ReadonlyArray<RecordRow>, config: IntelConfig = defaultIntelConfig): Kind | null => {
  let best: RecordRow | null = null
  for (const row of rows) {
    if (row.kind === null || row.settled < config.records.bestKindMinSettled) continue
    if (best === null || row.profit > best.profit ||
      (row.profit === best.profit && (row.settled > best.settled ||
        (row.settled === best.settled && (KIND_INDEX.get(row.kind) ?? 0) < (KIND_INDEX.get(best.kind as Kind) ?? 0))))) {
      best = row
    }
  }
  return best?.kind ?? null
}

export interface TraderRecord {
  readonly trader: string
  readonly venue: Venue
  readonly period: Period
  readonly record: RecordStats
  readonly byCategory: ReadonlyArray<RecordRow>
  readonly byKind: ReadonlyArray<RecordRow>
  readonly bestKind: Kind | null
  readonly avgEntry: number | null
  readonly lastTradeAt: number | null
}

/** One trader's record for a period, from that trader's rows of `recordRows`; null without a whole-record row. */
export const traderRecord = (
  rows: ReadonlyArray<RecordRow>,
  trader: string,
  period: Period,
  config: IntelConfig = defaultIntelConfig,
): TraderRecord | null => {
  const own = rows.filter((row) => row.trader === trader && row.period === period)
  const whole = own.find((row) => row.category === null && row.kind === null)
  if (whole === undefined) return null
  const byKind = own.filter((row) => row.kind !== null)
  const { trader: _t, venue, period: _p, category: _c, kind: _k, ...record } = whole
  return {
    trader, venue, period, record,
    byCategory: own.filter((row) => row.category !== null && row.kind === null),
    byKind,
    bestKind: bestKind(byKind, config),
    avgEntry: whole.avgEntry,
    lastTradeAt: whole.lastTradeAt,
  }
}

export interface Rank {
  /** 1 is top. */
  readonly position: number
  readonly outOf: number
}

/**
 * The venue's profit ranking: within each venue, traders with at least `rankMinSettled` settled bets,
 * by profit (highest first), ties by ref. Traders left out are unranked (absent from the map).
 */
export const rankByProfit = (
  records: ReadonlyArray<{ readonly trader: string; readonly venue: Venue; readonly profit: number; readonly settled: number }>,
  config: IntelConfig = defaultIntelConfig,
): ReadonlyMap<string, Rank> => {
  const byVenue = new Map<Venue, Array<{ trader: string; profit: number }>>()
  for (const record of records) {
    if (record.settled < config.records.rankMinSettled) continue
    const list = byVenue.get(record.venue) ?? []
    list.push({ trader: record.trader, profit: record.profit })
    byVenue.set(record.venue, list)
  }
  const ranks = new Map<string, Rank>()
  for (const list of byVenue.values()) {
    list.sort((a, b) => b.profit - a.profit || (a.trader < b.trader ? -1 : a.trader > b.trader ? 1 : 0))
    list.forEach(({ trader }, index) => ranks.set(trader, { position: index + 1, outOf: list.length }))
  }
  return ranks
}

export interface SummaryFigures {
  readonly winRate: number | null
  /** USD over the same bets; null when there are none. */
  readonly profit: number | null
  readonly settled: number
}

/**
 * Figures of a trade row's trader summary: the trader's all-time record in the row's kind of market,
 * or the whole record when the kind is unknown or has no settled bets.
 */
export const summaryFigures = (
  index: ReadonlyMap<string, RecordRow>,
  trader: string,
  category: Category | null,
  kind: Kind | null,
): SummaryFigures => {
  const inKind = category !== null && kind !== null ? index.get(recordKey(trader, "all", category, kind)) : undefined
  const row = inKind !== undefined && inKind.settled > 0 ? inKind : index.get(recordKey(trader, "all", null, null))
  if (row === undefined) return { winRate: null, profit: null, settled: 0 }
  return { winRate: row.winRate, profit: row.settled > 0 ? row.profit : null, settled: row.settled }
}

/** A winning record (used for winning traders' positions): enough settled bets, win rate and profit. */
export const isWinningRecord = (
  stats: Pick<RecordStats, "settled" | "wins" | "profit">,
  config: IntelConfig = defaultIntelConfig,
): boolean =>
  stats.settled >= config.winning.minSettled &&
  stats.settled > 0 &&
  stats.wins / stats.settled >= config.winning.minWinRate &&
  stats.profit > config.winning.minProfit
