// Trader positions: per trader × contract × outcome, from the trader's trades in time order. Gives each
// trade its `entry` (from the position before it) and each position its row (status, prices, profit).
// Pure and deterministic: no clock, no I/O; the caller feeds trades and settlements.
import type { TradeEntry } from "../domain/enums.js"
import { round6 } from "../numbers.js"
import { defaultIntelConfig, type IntelConfig } from "./config.js"
import { resultOf, type SettledResult, type Settlement } from "./settlement.js"

/** Sizes below this many contracts count as nothing held (float dust from partial sales). */
export const CONTRACT_EPSILON = 1e-9

export interface PositionTrade {
  readonly id: string
  readonly trader: string
  /** Epoch ms, venue time. */
  readonly time: number
  readonly contract: string
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly price: number
  readonly contracts: number
  /** Dollars traded (what the buyer paid or the seller received). */
  readonly usd: number
}

export type PositionStatus = "open" | "reduced" | "exited" | "settled"

/** One position: from the first buy of a side with nothing held on it until nothing is held again. */
export interface TraderPosition {
  readonly trader: string
  readonly contract: string
  readonly outcome: string
  readonly status: PositionStatus
  readonly boughtContracts: number
  readonly soldContracts: number
  readonly heldContracts: number
  /** Dollars spent buying. */
  readonly usd: number
  /** Dollars received selling; null when nothing was sold. */
  readonly soldUsd: number | null
  /** Average paid: usd / boughtContracts. */
  readonly entryPrice: number | null
  /** Average sold: soldUsd / soldContracts; null when nothing was sold. */
  readonly exitPrice: number | null
  /** Realised from sales at average cost. */
  readonly realized: number
  /** Realised plus, once settled, the held part at payout (void refunds at cost: 0); null while nothing is realised. */
  readonly profit: number | null
  /** Result of the held part; null unless the position still held contracts at settlement. */
  readonly result: SettledResult | null
  readonly openedAt: number
  readonly lastTradeAt: number
  readonly settledAt: number | null
}

interface Open {
  readonly trader: string
  readonly contract: string
  readonly outcome: string
  readonly openedAt: number
  bought: number
  boughtUsd: number
  sold: number
  soldUsd: number
  held: number
  heldCost: number
  realized: number
  lastTradeAt: number
  settlement: Settlement | null
}

const key = (...parts: ReadonlyArray<string>): string => parts.map((p) => `${p.length}:${p}`).join("")

/**
 * Incremental position tracking over many traders. Feed each trader's trades in time order with
 * `apply` (it returns the trade's entry) and each contract's end with `settle`.
 */
export class PositionBook {
  readonly #config: IntelConfig
  /** Every position ever started, in creation order (rows come out in this order). */
  readonly #all: Array<Open> = []
  /** Positions still holding something, by trader × contract × outcome. */
  readonly #holding = new Map<string, Open>()
  /** Outcomes a trader holds on a contract, by trader × contract (insertion order). */
  readonly #sides = new Map<string, Set<string>>()
  /** Holding positions per contract, for settlement. */
  readonly #byContract = new Map<string, Set<Open>>()
  readonly #settled = new Map<string, Settlement>()

  constructor(config: IntelConfig = defaultIntelConfig) {
    this.#config = config
  }

  /** The entry `trade` would have, from the position before it; applies nothing. */
  entryOf(trade: PositionTrade): TradeEntry | null {
    if (this.#settled.has(trade.contract)) return null
    const same = this.#holding.get(key(trade.trader, trade.contract, trade.outcome))
    if (trade.action === "buy") {
      if (same !== undefined) return "add"
      const sides = this.#sides.get(key(trade.trader, trade.contract))
      return sides !== undefined && sides.size > 0 ? "flip" : "open"
    }
    // A sale of a side we never saw bought (bought before our history) cannot be classified.
    if (same === undefined) return null
    return trade.contracts >= same.held - CONTRACT_EPSILON ? "close" : "trim"
  }

  /** Classifies `trade` and applies it. Trades on a contract that has settled are ignored (null). */
  apply(trade: PositionTrade): TradeEntry | null {
    const entry = this.entryOf(trade)
    if (this.#settled.has(trade.contract)) return entry
    if (!(trade.contracts > 0) || !Number.isFinite(trade.contracts)) return entry
    const usd = Number.isFinite(trade.usd) && trade.usd > 0 ? trade.usd : 0
    const sideKey = key(trade.trader, trade.contract, trade.outcome)
    const position = this.#holding.get(sideKey)
    if (trade.action === "buy") {
      const open = position ?? this.#start(trade, sideKey)
      open.bought += trade.contracts
      open.boughtUsd += usd
      open.held += trade.contracts
      open.heldCost += usd
      open.lastTradeAt = Math.max(open.lastTradeAt, trade.time)
      return entry
    }
    if (position === undefined) return entry
    // A sale beyond what is held is clipped to the held size (dollars prorated): the rest was bought
    // before our history and has no known cost.
    const quantity = Math.min(trade.contracts, position.held)
    const proceeds = usd * (quantity / trade.contracts)
    const cost = position.heldCost * (quantity / position.held)
    position.realized += proceeds - cost
    position.sold += quantity
    position.soldUsd += proceeds
    position.held -= quantity
    position.heldCost -= cost
    position.lastTradeAt = Math.max(position.lastTradeAt, trade.time)
    if (position.held <= CONTRACT_EPSILON) {
      position.held = 0
      position.heldCost = 0
      this.#finish(position, sideKey)
    }
    return entry
  }

  /** Ends every position still holding `contract`; later trades on it are ignored. Idempotent. */
  settle(contract: string, settlement: Settlement): void {
    if (this.#settled.has(contract)) return
    this.#settled.set(contract, settlement)
    const holding = this.#byContract.get(contract)
    if (holding === undefined) return
    for (const position of [...holding]) {
      position.settlement = settlement
      this.#finish(position, key(position.trader, position.contract, position.outcome))
    }
  }

  /** Every position's row, in the order the positions started. */
  rows(): Array<TraderPosition> {
    return this.#all.map((position) => rowOf(position, this.#config))
  }

  /** Rows of one trader, in the order the positions started. */
  rowsOf(trader: string): Array<TraderPosition> {
    return this.#all.filter((p) => p.trader === trader).map((position) => rowOf(position, this.#config))
  }

  #start(trade: PositionTrade, sideKey: string): Open {
    const open: Open = {
      trader: trade.trader, contract: trade.contract, outcome: trade.outcome, openedAt: trade.time,
      bought: 0, boughtUsd: 0, sold: 0, soldUsd: 0, held: 0, heldCost: 0, realized: 0,
      lastTradeAt: trade.time, settlement: null,
    }
    this.#all.push(open)
    this.#holding.set(sideKey, open)
    const contractKey = key(trade.trader, trade.contract)
    const sides = this.#sides.get(contractKey) ?? new Set<string>()
    sides.add(trade.outcome)
    this.#sides.set(contractKey, sides)
    const onContract = this.#byContract.get(trade.contract) ?? new Set<Open>()
    onContract.add(open)
    this.#byContract.set(trade.contract, onContract)
    return open
  }

  #finish(position: Open, sideKey: string): void {
    this.#holding.delete(sideKey)
    const contractKey = key(position.trader, position.contract)
    const sides = this.#sides.get(contractKey)
    sides?.delete(position.outcome)
    if (sides !== undefined && sides.size === 0) this.#sides.delete(contractKey)
    const onContract = this.#byContract.get(position.contract)
    onContract?.delete(position)
    if (onContract !== undefined && onContract.size === 0) this.#byContract.delete(position.contract)
  }
}

/** True once `sold` reaches the exit share of `bought` (spec: a position stops counting as open at 95 %). */
export const isExited = (sold: number, bought: number, config: IntelConfig = defaultIntelConfig): boolean =>
  bought > 0 && sold >= config.positions.exitShare * bought - CONTRACT_EPSILON

const rowOf = (p: Open, config: IntelConfig): TraderPosition => {
  const settlement = p.settlement
  const status: PositionStatus = isExited(p.sold, p.bought, config)
    ? "exited"
    : settlement !== null
      ? "settled"
      : p.sold > 0
        ? "reduced"
        : "open"
  const result = settlement === null ? null : (resultOf(p.outcome, settlement) as SettledResult)
  const heldPart =
    settlement === null ? 0 : result === "win" ? p.held - p.heldCost : result === "loss" ? -p.heldCost : 0
  const profit = settlement !== null ? p.realized + heldPart : p.sold > 0 ? p.realized : null
  return {
    trader: p.trader,
    contract: p.contract,
    outcome: p.outcome,
    status,
    // Sums of many trades carry float dust (31999.681828999997): rounded as every price and dollar figure.
    boughtContracts: round6(p.bought),
    soldContracts: round6(p.sold),
    heldContracts: round6(p.held),
    usd: round6(p.boughtUsd),
    soldUsd: p.sold > 0 ? round6(p.soldUsd) : null,
    entryPrice: p.bought > 0 ? round6(p.boughtUsd / p.bought) : null,
    exitPrice: p.sold > 0 ? round6(p.soldUsd / p.sold) : null,
    realized: round6(p.realized),
    profit: profit === null ? null : round6(profit),
    result,
    openedAt: p.openedAt,
    lastTradeAt: p.lastTradeAt,
    settledAt: settlement === null ? null : settlement.time,
  }
}

/** Trades in time order; ties keep their input order (a stable sort), so the result is deterministic. */
export const inTimeOrder = <T extends { readonly time: number }>(trades: ReadonlyArray<T>): Array<T> =>
  trades.map((trade, index) => ({ trade, index }))
    .sort((a, b) => a.trade.time - b.trade.time || a.index - b.index)
    .map(({ trade }) => trade)

export interface PositionHistory {
  /** Entry of each trade, by trade id. */
  readonly entries: ReadonlyMap<string, TradeEntry | null>
  readonly positions: ReadonlyArray<TraderPosition>
}

/**
 * Batch form of `PositionBook`: trades (any order; sorted by time, ties in input order) and the
 * settlements known, each applied at its time (after trades of the same millisecond).
 */
export const positionHistory = (
  trades: ReadonlyArray<PositionTrade>,
  settlements: ReadonlyMap<string, Settlement> = new Map(),
  config: IntelConfig = defaultIntelConfig,
): PositionHistory => {
  const book = new PositionBook(config)
  const entries = new Map<string, TradeEntry | null>()
  const ends = [...settlements.entries()].sort(([a, x], [b, y]) => x.time - y.time || (a < b ? -1 : a > b ? 1 : 0))
  let next = 0
  for (const trade of inTimeOrder(trades)) {
    for (; next < ends.length && (ends[next]?.[1].time ?? Infinity) < trade.time; next++) {
      const [contract, settlement] = ends[next] as [string, Settlement]
      book.settle(contract, settlement)
    }
    entries.set(trade.id, book.apply(trade))
  }
  for (; next < ends.length; next++) {
    const [contract, settlement] = ends[next] as [string, Settlement]
    book.settle(contract, settlement)
  }
  return { entries, positions: book.rows() }
}

/** How a whale on a market is described (Get Market `whales.traders[].status`). */
export const whaleStatusOf = (position: TraderPosition): "holding" | "reduced" | "exited" =>
  position.status === "exited" ? "exited" : position.soldContracts > 0 ? "reduced" : "holding"
