// A bot's trades as its actors keep them, and the arithmetic over them: opening a trade from a fill,
// closing trades by a sale or a settlement, and the figures clients read (record, curve, activity).
// JSON-shaped (a bot's persisted snapshot holds these values as they are); no clock, no I/O.
//
// A bot's trade list is append-only and changed in place (like a market actor's MarketLive): a copy
// per trade would make a busy signal bot quadratic. Trade `seq` n sits at index n − 1, so closing a
// trade replaces one element; the trade objects themselves are never mutated.
//
// Rules (README "Paper bots"):
// - A trade's `cost` is what the fill cost with the venue's taker fee; `entryPrice` = cost / contracts.
// - Closed by a sale: profit = proceeds − cost; result `win` when profit > 0, else `loss`.
// - Closed by settlement: payout 1 a contract on the winning side, 0 on the losing one (`price` becomes
//   the payout); a void refunds the cost (price = entryPrice, profit 0, result `void`).
// - record: `settled` counts closed trades, `winRate` = wins / (wins + losses) (null until one),
//   `staked` = cost of every trade, `profit` = realized + unrealized, `return` = profit / staked.
import type { Venue } from "../../domain/enums.js"
import { round6 } from "../../numbers.js"

/** Where a trade was placed: the market object of its row (category and kind are always null there). */
export interface TradeMarket {
  readonly ref: string
  readonly contract: string
  readonly title: string
  readonly venue: Venue
}

export interface BotTrade {
  /** `<bot id>#<seq>`: stable, ordered within the bot. */
  readonly id: string
  readonly seq: number
  readonly market: TradeMarket
  /** 0 = the Yes (first) side, 1 = the No (second) side. */
  readonly side: 0 | 1
  /** Side `name`. */
  readonly outcome: string
  readonly contracts: number
  readonly cost: number
  readonly fee: number
  readonly entryPrice: number
  readonly openedAt: number
  /** Dollars of the source trade (trader and signal bots), else null. */
  readonly sourceUsd: number | null
  readonly status: "open" | "closed"
  /** Exit price (sale) or payout (settlement), once closed. */
  readonly exitPrice: number | null
  readonly profit: number | null
  readonly result: "win" | "loss" | "void" | null
  readonly closedAt: number | null
}

/** What a book walk gave (domain/fill.ts shape, reduced to what a bot keeps). */
export interface Filled {
  readonly contracts: number
  /** USD with fee: cost of a buy, proceeds of a sale. */
  readonly cost: number
  readonly fee: number
}

const clampPrice = (p: number): number => (p < 0 ? 0 : p > 1 ? 1 : p)

/** The seq of a bot's next trade (seq n sits at index n − 1). */
export const nextSeqOf = (bot: { readonly trades: ReadonlyArray<BotTrade> }): number => bot.trades.length + 1

export const openTrade = (o: {
  readonly botId: string
  readonly seq: number
  readonly market: TradeMarket
  readonly side: 0 | 1
  readonly outcome: string
  readonly fill: Filled
  readonly at: number
  readonly sourceUsd: number | null
}): BotTrade => ({
  id: `${o.botId}#${o.seq}`, seq: o.seq, market: o.market, side: o.side, outcome: o.outcome,
  contracts: round6(o.fill.contracts), cost: round6(o.fill.cost), fee: round6(o.fill.fee),
  entryPrice: round6(clampPrice(o.fill.cost / o.fill.contracts)), openedAt: o.at, sourceUsd: o.sourceUsd,
  status: "open", exitPrice: null, profit: null, result: null, closedAt: null,
})

/** Closes an open trade by a sale of all its contracts for `proceeds` (fee already taken off). */
export const sellTrade = (trade: BotTrade, proceeds: number, at: number): BotTrade => {
  const profit = round6(proceeds - trade.cost)
  return {
    ...trade, status: "closed", exitPrice: round6(clampPrice(proceeds / trade.contracts)), profit,
    result: profit > 0 ? "win" : "loss", closedAt: at,
  }
}

/** Closes an open trade at settlement: `winner` is the winning side's name, null on a void. */
export const settleTrade = (trade: BotTrade, winner: string | null, at: number): BotTrade => {
  if (winner === null) return { ...trade, status: "closed", exitPrice: trade.entryPrice, profit: 0, result: "void", closedAt: at }
  const won = winner === trade.outcome
  return {
    ...trade, status: "closed", exitPrice: won ? 1 : 0, profit: round6((won ? trade.contracts : 0) - trade.cost),
    result: won ? "win" : "loss", closedAt: at,
  }
}

/** Settles every open trade on `contract`, in place; true when one was open there. */
export const settleOn = (trades: Array<BotTrade>, contract: string, winner: string | null, at: number): boolean => {
  let changed = false
  for (let i = 0; i < trades.length; i++) {
    const t = trades[i]
    if (t !== undefined && t.status === "open" && t.market.contract === contract) {
      trades[i] = settleTrade(t, winner, at)
      changed = true
    }
  }
  return changed
}

/** Open trades on one side of one contract. */
export const openOn = (trades: ReadonlyArray<BotTrade>, contract: string, side: 0 | 1): ReadonlyArray<BotTrade> =>
  trades.filter((t) => t.status === "open" && t.market.contract === contract && t.side === side)

/**
 * Closes `held` (open trades of one side) by one sale of all their contracts, in place: proceeds are
 * shared by contracts.
 */
export const sellHeld = (trades: Array<BotTrade>, held: ReadonlyArray<BotTrade>, sale: Filled, at: number): void => {
  const total = held.reduce((s, t) => s + t.contracts, 0)
  if (!(total > 0)) return
  for (const t of held) trades[t.seq - 1] = sellTrade(t, sale.cost * (t.contracts / total), at)
}

/** The side's price from the Yes price (null stays null). */
export const sidePrice = (yesPrice: number | null, side: 0 | 1): number | null =>
  yesPrice === null ? null : side === 0 ? yesPrice : round6(1 - yesPrice)

export interface RecordFigures {
  readonly trades: number
  readonly settled: number
  readonly wins: number
  readonly losses: number
  readonly open: number
  readonly winRate: number | null
  readonly realized: number
  readonly unrealized: number
  readonly profit: number
  readonly staked: number
  readonly return: number | null
}

/** Unrealized profit of an open trade at the side's current price (0 with no price). */
export const unrealizedOf = (trade: BotTrade, price: number | null): number =>
  price === null ? 0 : trade.contracts * price - trade.cost

export const recordOf = (trades: ReadonlyArray<BotTrade>, yesPrice: (contract: string) => number | null): RecordFigures => {
  let settled = 0, wins = 0, losses = 0, open = 0, realized = 0, unrealized = 0, staked = 0
  for (const t of trades) {
    staked += t.cost
    if (t.status === "open") {
      open++
      unrealized += unrealizedOf(t, sidePrice(yesPrice(t.market.contract), t.side))
      continue
    }
    settled++
    if (t.result === "win") wins++
    else if (t.result === "loss") losses++
    realized += t.profit ?? 0
  }
  const profit = realized + unrealized
  return {
    trades: trades.length, settled, wins, losses, open,
    winRate: wins + losses === 0 ? null : wins / (wins + losses),
    realized: round6(realized), unrealized: round6(unrealized), profit: round6(profit), staked: round6(staked),
    return: staked > 0 ? round6(profit / staked) : null,
  }
}

/** Running total of closed profit, one point per closed trade, in closing order. */
export const curveOf = (trades: ReadonlyArray<BotTrade>): Array<{ readonly time: number; readonly profit: number }> => {
  const closed = trades.filter((t) => t.status === "closed" && t.closedAt !== null)
    .sort((a, b) => (a.closedAt ?? 0) - (b.closedAt ?? 0) || a.seq - b.seq)
  let running = 0
  return closed.map((t) => {
    running += t.profit ?? 0
    return { time: t.closedAt ?? t.openedAt, profit: round6(running) }
  })
}

/** Latest time a trade opened or closed; null with no trade. */
export const lastTradeAtOf = (trades: ReadonlyArray<BotTrade>): number | null => {
  let last: number | null = null
  for (const t of trades) {
    const at = Math.max(t.openedAt, t.closedAt ?? t.openedAt)
    if (last === null || at > last) last = at
  }
  return last
}

/** A matched source trade, kept for `activity` (trader and signal bots): [feed time, usd]. */
export type Matched = readonly [time: number, usd: number]

export const ACTIVITY_WINDOW_MS = 30 * 86_400_000

/** Appends a match in place and drops those older than the window (relative to the newest) now and then. */
export const addMatched = (matched: Array<Matched>, time: number, usd: number): void => {
  matched.push([time, usd])
  const head = matched[0]
  // Pruned once a day's worth has aged out, so the list stays short without a shift per match.
  if (head !== undefined && head[0] < time - ACTIVITY_WINDOW_MS - 86_400_000) {
    const from = time - ACTIVITY_WINDOW_MS
    const keep = matched.findIndex(([t]) => t >= from)
    matched.splice(0, keep < 0 ? matched.length : keep)
  }
}

export const activityOf = (matched: ReadonlyArray<Matched>, now: number) => {
  const from = now - ACTIVITY_WINDOW_MS
  const inWindow = matched.filter(([t]) => t >= from && t <= now)
  const usd = inWindow.map(([, u]) => u).sort((a, b) => a - b)
  const mid = Math.floor(usd.length / 2)
  const median = usd.length === 0 ? null : usd.length % 2 === 1 ? (usd[mid] ?? 0) : ((usd[mid - 1] ?? 0) + (usd[mid] ?? 0)) / 2
  const last = inWindow.reduce<number | null>((m, [t]) => (m === null || t > m ? t : m), null)
  return { trades: inWindow.length, windowDays: 30, medianTradeUsd: median === null ? null : round6(median), lastTradeAt: last }
}
