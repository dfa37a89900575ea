// The book walk of a paper fill, pure: a buy by dollars against one side's asks, or a sale of
// contracts against its bids, inside an optional price limit, with the venue's taker fee (fees.ts)
// charged as the venue charges an order that fills at several prices, folded into `avgPrice` and
// `cost`. No I/O, no clock; the caller takes the levels from the market's current book (Markets.book)
// and decides what to record.
//
// Arithmetic is exact: prices, sizes and dollars are read to 6 decimals (micro units, as fees.ts does)
// and summed in BigInt; every dollar figure is the nearest double to its exact decimal value.
//
// Decisions (the spec fixes the fields, not these):
// - `usd` on a buy is the whole budget, fee included: the fill is the largest number of contracts, in
//   steps of CONTRACT_STEP, whose Σ price × size plus fee is at most `usd` (cost ≤ usd always). Total
//   cost grows with every step taken (shown in the README), so the largest fitting size is found by
//   search: Σ price × size alone bounds it from above exactly (level by level), the fee's share is
//   estimated from there, and a gallop then a bisection around the estimate settle it with exact totals
//   (a few evaluations instead of a bisection over the whole depth).
// - Each level taken is one fill at its own price; the order's fee is `orderFeeMicro` over them (fees.ts:
//   venue_b floors each fill, venue_b_us rounds each fill and caps the total at the rounded exact sum,
//   Kalshi rounds the exact sum up once). On one level that is the venue's single-fill fee. Until stop 16
//   the fee was taken once at the fill's average price, which charges more whenever the walk crosses
//   levels (p × (1 − p) is concave). On a sale it never exceeds the proceeds before fee (a tiny sale
//   cannot owe money).
// - `cost`: buy = Σ price × size + fee; sale = Σ price × size − fee (the proceeds).
// - `avgPrice` = cost / contracts to 6 decimals. A buy whose cost would pass $1 a contract (a fee rounded
//   up to the cent on a tiny buy: 0.01 contracts at 0.87 cost 0.0187) is NothingFills, not filled: no
//   contract pays more than $1. Until stop 23 such a buy filled with `avgPrice` shown as 1, so the
//   position's `cost` was not contracts × entryPrice.
// - A sale takes the contracts asked for to 6 decimals; the rest the bids inside the limit cannot take is
//   `unfilledContracts`. A buy's `unfilledContracts` is 0 when the budget ran out; when the book inside
//   the limit ran out first it is the unspent dollars at the limit price (or, without a limit, the
//   worst price filled), down to the step: an estimate of what the budget would have bought there.
import type { Venue } from "./enums.js"
import { orderFeeMicro } from "./fees.js"

/** One price level: `size` contracts at `price`. */
export interface FillLevel {
  readonly price: number
  readonly size: number
}

/** Buys fill in hundredths of a contract on every venue. */
export const CONTRACT_STEP = 0.01

/** The venue's fee schedule for one contract: venue_b's rate is the market's own (`MarketInfo.feeRate`). */
export interface FeeSchedule {
  readonly venue: Venue
  readonly feeRate: number | null
}

export interface BuyOrder {
  readonly action: "buy"
  /** Budget in USD, fee included. */
  readonly usd: number
  readonly maxPrice?: number
}

export interface SellOrder {
  readonly action: "sell"
  readonly contracts: number
  readonly minPrice?: number
}

export interface Fill {
  readonly _tag: "Filled"
  readonly action: "buy" | "sell"
  /** Filled. */
  readonly contracts: number
  /** cost / contracts, fee folded in, 0..1 (a buy past $1 a contract does not fill). */
  readonly avgPrice: number
  /** Σ price × size / contracts, before fee. */
  readonly priceBeforeFee: number
  /** Σ price × size. */
  readonly gross: number
  readonly fee: number
  /** Buy: gross + fee. Sale: gross − fee (proceeds). */
  readonly cost: number
  readonly unfilledContracts: number
  /** Buy: usd − cost. Sale: 0. */
  readonly unspentUsd: number
  /** What was taken at each level, best first. */
  readonly levels: ReadonlyArray<FillLevel>
}

export interface NoFill {
  readonly _tag: "NothingFills"
  /** A sentence for the VALIDATION error. */
  readonly reason: string
}

export type WalkResult = Fill | NoFill

// ---- exact units ----

const M = 1_000_000n
const STEP = 10_000n // CONTRACT_STEP in micro-contracts

const micro = (x: number): bigint => BigInt(Math.round(x * 1e6))
const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** The nearest double to `n × 10^-scale`, through its decimal text (one rounding, not two). */
const toNumber = (n: bigint, scale: number): number => {
  // Both operands exact doubles: one IEEE division is the correctly rounded quotient, the same double.
  if (n < SAFE && n > -SAFE && scale <= 22) return Number(n) / 10 ** scale
  const negative = n < 0n
  const digits = (negative ? -n : n).toString().padStart(scale + 1, "0")
  const text = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`
  return Number(negative ? `-${text}` : text)
}

/** 1e-12 USD as dollars for a sentence: to 6 decimals, trailing zeros dropped. */
const usdText = (usd12: bigint): string => String(toNumber((usd12 + 500_000n) / 1_000_000n, 6))

/**
 * The fee in 1e-12 USD of the fills `taken` (each level at its own price), as the venue charges an order
 * (fees.ts `orderFeeMicro` answers in 1e-5 USD, so this is exact).
 */
const fee12 = (schedule: FeeSchedule, taken: ReadonlyArray<MicroLevel>): bigint => {
  const rate = schedule.venue === "venue_b" && schedule.feeRate !== null && schedule.feeRate > 0 && schedule.feeRate < 1
    ? micro(schedule.feeRate)
    : null
  return orderFeeMicro(schedule.venue, taken, rate) * 10_000_000n
}

interface MicroLevel {
  readonly price: bigint
  readonly size: bigint
}

const usable = (levels: ReadonlyArray<FillLevel>, inside: (price: bigint) => boolean): Array<MicroLevel> => {
  const out: Array<MicroLevel> = []
  for (const level of levels) {
    const price = micro(level.price)
    const size = micro(level.size)
    if (!(price > 0n && price < M && size > 0n)) continue
    if (!inside(price)) break // best first: every later level is outside too
    out.push({ price, size })
  }
  return out
}

/** Σ price × size (1e-12 USD) of the first `contracts` (micro) of `levels`, and what each level gave. */
const take = (levels: ReadonlyArray<MicroLevel>, contracts: bigint): { gross: bigint; taken: Array<MicroLevel> } => {
  let left = contracts
  let gross = 0n
  const taken: Array<MicroLevel> = []
  for (const level of levels) {
    if (left <= 0n) break
    const size = level.size < left ? level.size : left
    gross += level.price * size
    taken.push({ price: level.price, size })
    left -= size
  }
  return { gross, taken }
}

const filled = (
  action: "buy" | "sell",
  contracts: bigint,
  gross: bigint,
  fee: bigint,
  unfilled: bigint,
  unspent12: bigint,
  taken: ReadonlyArray<MicroLevel>,
): Fill => {
  const cost = action === "buy" ? gross + fee : gross - fee
  const avgMicro = (cost * 2n + contracts) / (contracts * 2n)
  return {
    _tag: "Filled",
    action,
    contracts: toNumber(contracts, 6),
    avgPrice: Math.max(0, toNumber(avgMicro, 6)),
    priceBeforeFee: toNumber((gross * 2n + contracts) / (contracts * 2n), 6),
    gross: toNumber(gross, 12),
    fee: toNumber(fee, 12),
    cost: toNumber(cost, 12),
    unfilledContracts: toNumber(unfilled, 6),
    unspentUsd: toNumber(unspent12, 12),
    levels: taken.map((l) => ({ price: toNumber(l.price, 6), size: toNumber(l.size, 6) })),
  }
}

/** Micro-contracts whose Σ price × size is at most `budget` (1e-12 USD), the most there are (exact). */
const grossFitting = (levels: ReadonlyArray<MicroLevel>, budget: bigint): bigint => {
  let left = budget
  let contracts = 0n
  for (const level of levels) {
    const cost = level.price * level.size
    if (cost > left) return contracts + left / level.price
    left -= cost
    contracts += level.size
  }
  return contracts
}

/**
 * The largest step count n ≤ maxSteps with total(n × STEP) = Σ price × size + fee ≤ budget, total growing
 * with n. Σ price × size alone gives an exact upper bound; the fee's share is estimated from the total
 * there, then settled by a gallop from the estimate and a bisection between a fitting and a failing n.
 */
const largestFitting = (levels: ReadonlyArray<MicroLevel>, schedule: FeeSchedule, budget: bigint, maxSteps: bigint): bigint => {
  const total = (steps: bigint): bigint => {
    const { gross, taken } = take(levels, steps * STEP)
    return gross + fee12(schedule, taken)
  }
  const byGross = grossFitting(levels, budget) / STEP
  const top = byGross < maxSteps ? byGross : maxSteps
  if (top <= 0n) return 0n
  const atTop = total(top)
  if (atTop <= budget) return top
  // total(top) > budget, total(0) = 0 ≤ budget. Estimate by the average cost of a step at `top`.
  const perStep = Number(atTop) / Number(top)
  const over = Number(atTop - budget)
  let guess = top - BigInt(Math.max(1, Math.ceil(over / perStep)))
  if (guess < 0n) guess = 0n
  let good = 0n
  let bad = top
  if (total(guess) <= budget) {
    good = guess
    for (let step = 1n; good + step < bad; step *= 2n) {
      if (total(good + step) <= budget) good += step
      else {
        bad = good + step
        break
      }
    }
  } else {
    bad = guess
    for (let step = 1n; bad - step > good; step *= 2n) {
      if (total(bad - step) > budget) bad -= step
      else {
        good = bad - step
        break
      }
    }
  }
  while (bad - good > 1n) {
    const mid = (good + bad) / 2n
    if (total(mid) <= budget) good = mid
    else bad = mid
  }
  return good
}

const limitText = (limit: number | undefined, word: string) => (limit === undefined ? "" : ` ${word} ${limit}`)

/**
 * A buy of up to `order.usd` (fee included) against `asks` (best first), only at prices ≤ `maxPrice`.
 * NothingFills when no level is inside the limit or the budget does not reach one step.
 */
export const walkBuy = (asks: ReadonlyArray<FillLevel>, order: Omit<BuyOrder, "action">, schedule: FeeSchedule): WalkResult => {
  const limit = order.maxPrice === undefined ? M : micro(order.maxPrice)
  const levels = usable(asks, (price) => price <= limit)
  if (levels.length === 0) {
    return { _tag: "NothingFills", reason: `nothing fills: no asks${limitText(order.maxPrice, "at or below maxPrice")}` }
  }
  const budget = micro(order.usd) * M
  const depth = levels.reduce((n, l) => n + l.size, 0n)
  const maxSteps = depth / STEP
  const lo = largestFitting(levels, schedule, budget, maxSteps)
  const contracts = lo * STEP
  if (contracts === 0n) {
    return {
      _tag: "NothingFills",
      reason: maxSteps === 0n
        ? `nothing fills: the asks${limitText(order.maxPrice, "at or below maxPrice")} hold less than ${CONTRACT_STEP} contracts`
        : `nothing fills: usd ${order.usd} does not buy ${CONTRACT_STEP} contracts with the fee`,
    }
  }
  const { gross, taken } = take(levels, contracts)
  const fee = fee12(schedule, taken)
  if (gross + fee > contracts * M) {
    // A fee rounded up to the cent on a tiny buy: each contract would cost more than the $1 it can pay.
    const each = toNumber((gross + fee + contracts - 1n) / contracts, 6)
    return {
      _tag: "NothingFills",
      reason: `nothing fills: usd ${order.usd} buys ${toNumber(contracts, 6)} contracts at ${each} each with the fee, more than the $1 a contract pays (a larger usd spreads the fee)`,
    }
  }
  const unspent = budget - gross - fee
  // The book inside the limit ran out (rather than the budget) when not one more step would fit anyway.
  const bookRanOut = lo === maxSteps
  const refPrice = order.maxPrice === undefined ? (taken[taken.length - 1]?.price ?? M) : limit
  // 1e-12 USD over micro-USD per contract is micro-contracts; whole steps only.
  const unfilled = bookRanOut && refPrice > 0n ? ((unspent / refPrice) / STEP) * STEP : 0n
  return filled("buy", contracts, gross, fee, unfilled, unspent, taken)
}

/**
 * A sale of `order.contracts` against `bids` (best first), only at prices ≥ `minPrice`.
 * NothingFills when no bid is inside the limit.
 */
export const walkSell = (bids: ReadonlyArray<FillLevel>, order: Omit<SellOrder, "action">, schedule: FeeSchedule): WalkResult => {
  const limit = order.minPrice === undefined ? 0n : micro(order.minPrice)
  const levels = usable(bids, (price) => price >= limit)
  const wanted = micro(order.contracts)
  if (wanted <= 0n) return { _tag: "NothingFills", reason: `nothing fills: contracts ${order.contracts} is 0 at the 6 decimals a sale is counted in` }
  if (levels.length === 0) {
    return { _tag: "NothingFills", reason: `nothing fills: no bids${limitText(order.minPrice, "at or above minPrice")}` }
  }
  const { gross, taken } = take(levels, wanted)
  const contracts = taken.reduce((n, l) => n + l.size, 0n)
  const fee = fee12(schedule, taken)
  // A sale whose fee takes all it would bring (a venue's fee is at least a cent an order) sells nothing.
  if (fee >= gross) {
    return {
      _tag: "NothingFills",
      reason: `nothing fills: the taker fee of $${usdText(fee)} would take all of the $${usdText(gross)} the bids pay for this sale`,
    }
  }
  return filled("sell", contracts, gross, fee, wanted - contracts, 0n, taken)
}

/** A buy or a sale, by its action. */
export const walk = (
  side: { readonly bids: ReadonlyArray<FillLevel>; readonly asks: ReadonlyArray<FillLevel> },
  order: BuyOrder | SellOrder,
  schedule: FeeSchedule,
): WalkResult => (order.action === "buy" ? walkBuy(side.asks, order, schedule) : walkSell(side.bids, order, schedule))
