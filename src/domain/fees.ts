// Taker fees per venue (the spec's fee table), pure. Each venue rounds differently and the
// boundaries matter (a fee exactly on a cent must not become the next cent by float error), so the
// arithmetic is exact: inputs are taken in micro-units (6 decimals: venue prices have ≤ 4, venue_b
// share amounts 6) and the product is formed in BigInt before the venue's rounding.
import type { Venue } from "./enums.js"

/** venue_b_us taker coefficient Θ (fee = Θ × C × p × (1 − p), half-even to the cent). */
export const VENUE_B_US_TAKER_RATE = 0.0695
/** Kalshi-family taker coefficient (fee = ceil to the cent of 0.07 × C × p × (1 − p)). */
export const KALSHI_TAKER_RATE = 0.07

const MICRO = 1_000_000n

const micro = (x: number): bigint => BigInt(Math.round(x * 1e6))

/** floor(n / d) for n ≥ 0, d > 0. */
const floorDiv = (n: bigint, d: bigint): bigint => n / d
const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d
const halfEvenDiv = (n: bigint, d: bigint): bigint => {
  const q = n / d
  const twice = (n % d) * 2n
  if (twice > d) return q + 1n
  if (twice < d) return q
  return q % 2n === 0n ? q : q + 1n
}

/** One fill of an order in micro units (6 decimals): `size` contracts at `price`. */
export interface MicroFill {
  readonly price: bigint
  readonly size: bigint
}

/**
 * The taker fee of one order that filled at one or several prices (a walk over book levels), in 1e-5 USD,
 * as each venue charges an order (venues.md):
 * - venue_b: every fill floored to 5 decimals of C × rate × p × (1 − p) at its own price, summed (each
 *   on-chain fill pays its own fee); `rateMicro` is the market's rate in micro units, none = fee-free.
 * - venue_b_us: every fill 0.0695 × C × p × (1 − p) half-even to the cent, the order's total capped at the
 *   half-even cent of the exact sum.
 * - venue_a, venue_d: the exact fees of the fills (0.07 × C × p × (1 − p) each) summed and rounded up to the
 *   cent once: the venue's per-order accumulator brings the order's total to the single rounding.
 * A fill with no size or a price outside (0, 1) is no fill. On one fill every rule is the venue's own
 * single-fill rounding (`takerFee`).
 */
export const orderFeeMicro = (venue: Venue, fills: ReadonlyArray<MicroFill>, rateMicro: bigint | null): bigint => {
  let exact = 0n
  let perFill = 0n
  for (const fill of fills) {
    if (!(fill.size > 0n && fill.price > 0n && fill.price < MICRO)) continue
    const cpq = fill.size * fill.price * (MICRO - fill.price) // C × p × (1 − p) in 1e-18
    switch (venue) {
      case "venue_b":
        // c·r·pq is in 1e-24 USD; 1e-5 USD units need a division by 1e19.
        if (rateMicro !== null) perFill += floorDiv(cpq * rateMicro, 10n ** 19n)
        break
      case "venue_b_us":
        // c·695·pq is in 1e-22 USD (695 in 1e-4); cents need a division by 1e20.
        exact += cpq * 695n
        perFill += halfEvenDiv(cpq * 695n, 10n ** 20n)
        break
      case "venue_a":
      case "venue_d":
        // c·7·pq is in 1e-20 USD (7 in 1e-2).
        exact += cpq * 7n
        break
    }
  }
  switch (venue) {
    case "venue_b": return perFill
    case "venue_b_us": {
      const cap = halfEvenDiv(exact, 10n ** 20n)
      return (perFill < cap ? perFill : cap) * 1_000n
    }
    case "venue_a":
    case "venue_d": return ceilDiv(exact, 10n ** 18n) * 1_000n
  }
}

/**
 * The taker fee in USD for `contracts` at `price` (0..1), one fill (`orderFeeMicro` for an order that
 * filled at several prices).
 * - venue_b: floor to 5 decimals of C × rate × p × (1 − p), with the market's own `rate`
 *   (MarketListed.feeRate); no rate means a fee-free market.
 * - venue_b_us: 0.0695 × C × p × (1 − p), rounded half-even to the cent.
 * - venue_a, venue_d: 0.07 × C × p × (1 − p), rounded up to the cent.
 * Contracts and price are read to 6 decimals; no fee on a non-positive or non-finite input.
 */
export function takerFee(venue: "venue_b", contracts: number, price: number, rate: number): number
export function takerFee(venue: Exclude<Venue, "venue_b">, contracts: number, price: number): number
export function takerFee(venue: Venue, contracts: number, price: number, rate?: number): number
export function takerFee(venue: Venue, contracts: number, price: number, rate?: number): number {
  if (!(contracts > 0 && contracts < 1e9 && price > 0 && price < 1)) return 0
  const rateMicro = venue === "venue_b" && rate !== undefined && rate > 0 && rate < 1 ? micro(rate) : null
  return Number(orderFeeMicro(venue, [{ price: micro(price), size: micro(contracts) }], rateMicro)) / 1e5
}
