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

/**
 * The taker fee in USD for `contracts` at `price` (0..1).
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
  const c = micro(contracts)
  const p = micro(price)
  const pq = p * (MICRO - p) // p × (1 − p) in 1e-12 units
  switch (venue) {
    case "venue_b": {
      if (rate === undefined || !(rate > 0 && rate < 1)) return 0
      // c·r·pq is in 1e-24 USD; 1e-5 USD units need a division by 1e19.
      return Number(floorDiv(c * micro(rate) * pq, 10n ** 19n)) / 1e5
    }
    case "venue_b_us":
      // c·695·pq is in 1e-22 USD (695 in 1e-4); cents need a division by 1e20.
      return Number(halfEvenDiv(c * 695n * pq, 10n ** 20n)) / 100
    case "venue_a":
    case "venue_d":
      // c·7·pq is in 1e-20 USD (7 in 1e-2); cents need a division by 1e18.
      return Number(ceilDiv(c * 7n * pq, 10n ** 18n)) / 100
  }
}
