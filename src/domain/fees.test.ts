// Taker fees: the 21 real Polymarket fills, and the rounding boundaries where plain float
// arithmetic lands on the wrong cent (or 1e-5).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { takerFee } from "./fees.js"

const REAL = new URL("../../test/fixtures/feeds/real/", import.meta.url)

interface Fill {
  readonly side: "BUY" | "SELL"
  readonly maker_amount_filled: string
  readonly taker_amount_filled: string
  readonly fee: string
  readonly price: string
  readonly fee_rate: string
}

describe("venue_b taker fee: floor to 5 decimals of C × rate × p × (1 − p)", () => {
  const fills = JSON.parse(readFileSync(new URL("polymarket-taker-fills-fees.json", REAL), "utf8")) as Array<Fill>

  it("reproduces the fee of each of the 21 real on-chain fills (fee in 1e-6 USDC)", () => {
    expect(fills).toHaveLength(21)
    for (const fill of fills) {
      // A BUY receives shares in taker_amount_filled; a SELL sells shares in maker_amount_filled.
      const shares = Number(fill.side === "BUY" ? fill.taker_amount_filled : fill.maker_amount_filled) / 1e6
      const fee = takerFee("venue_b", shares, Number(fill.price), Number(fill.fee_rate))
      expect(Math.round(fee * 1e6), JSON.stringify(fill)).toBe(Number(fill.fee))
    }
  })

  it("floors, never rounds to nearest (row 2: 0.072499974 → 0.07249)", () => {
    expect(takerFee("venue_b", 7.042251, 0.71, 0.05)).toBe(0.07249)
  })

  it("lands exactly on 5-decimal boundaries that float arithmetic misses", () => {
    // 1 × 0.05 × 0.9 × 0.1 = 0.0045 exactly; in floats it computes as 0.004499999…
    expect(takerFee("venue_b", 1, 0.9, 0.05)).toBe(0.0045)
    expect(takerFee("venue_b", 1, 0.92, 0.05)).toBe(0.00368)
    expect(takerFee("venue_b", 2, 0.09, 0.05)).toBe(0.00819)
    expect(takerFee("venue_b", 2, 0.33, 0.05)).toBe(0.02211)
  })

  it("a fee-free or rate-less market charges nothing", () => {
    expect(takerFee("venue_b", 100, 0.5, 0)).toBe(0)
    expect(takerFee("venue_b", 100, 0.5)).toBe(0)
  })
})

describe("venue_a / venue_d taker fee: ceil to the cent of 0.07 × C × p × (1 − p)", () => {
  it("matches the real fill: 1 contract at 0.09 → $0.01", () => {
    expect(takerFee("venue_a", 1, 0.09)).toBe(0.01)
  })

  it("an exact cent stays that cent (float says 7.000000000000001 cents)", () => {
    expect(takerFee("venue_a", 4, 0.5)).toBe(0.07)
    expect(takerFee("venue_d", 8, 0.5)).toBe(0.14)
    expect(takerFee("venue_a", 16, 0.25)).toBe(0.21)
    expect(takerFee("venue_d", 100, 0.5)).toBe(1.75)
  })

  it("anything above a cent rounds up", () => {
    expect(takerFee("venue_a", 100, 0.37)).toBe(1.64) // 1.6317
    expect(takerFee("venue_a", 1, 0.01)).toBe(0.01) // 0.000693
  })
})

describe("venue_b_us taker fee: 0.0695 × C × p × (1 − p), half-even to the cent", () => {
  it("rounds exact halves to the even cent", () => {
    expect(takerFee("venue_b_us", 40, 0.5)).toBe(0.7) // 69.5 cents → 70
    expect(takerFee("venue_b_us", 120, 0.5)).toBe(2.08) // 208.5 cents → 208
  })

  it("rounds other values to the nearest cent", () => {
    expect(takerFee("venue_b_us", 100, 0.5)).toBe(1.74) // 173.75 cents
    expect(takerFee("venue_b_us", 1, 0.5)).toBe(0.02) // 1.7375 cents
    expect(takerFee("venue_b_us", 1, 0.1)).toBe(0.01) // 0.6255 cents
    expect(takerFee("venue_b_us", 1, 0.01)).toBe(0) // 0.068805 cents
  })
})

describe("degenerate inputs", () => {
  it("charges nothing at price 0 or 1, or for no contracts, and never throws on NaN", () => {
    for (const venue of ["venue_a", "venue_b_us", "venue_d"] as const) {
      expect(takerFee(venue, 10, 0)).toBe(0)
      expect(takerFee(venue, 10, 1)).toBe(0)
      expect(takerFee(venue, 0, 0.5)).toBe(0)
      expect(takerFee(venue, Number.NaN, 0.5)).toBe(0)
    }
  })
})
