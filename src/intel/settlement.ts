// Settlement arithmetic of the spec: a winning contract pays 1, a losing one 0, a void refunds the
// stake. A stake S at price p yields S(1 − p)/p on a win and −S on a loss. Pure numbers; no I/O.
import type { TradeResult } from "../domain/enums.js"

/** How a contract ended: one outcome won, or the market was voided (stakes refunded). */
export type Settlement =
  | { readonly status: "settled"; readonly time: number; readonly winner: string }
  | { readonly status: "void"; readonly time: number }

/** A settled bet's result; `open` while the contract has not settled. */
export type SettledResult = Exclude<TradeResult, "open">

/**
 * The smallest price the arithmetic uses. No venue prints below a tenth of a cent, so a price of 0
 * (or below, or not a number) is bad data; flooring it keeps a win finite instead of dividing by 0.
 */
export const PRICE_FLOOR = 0.001

/** A price clamped into [PRICE_FLOOR, 1]; anything non-finite reads as the floor. */
export const scoringPrice = (price: number): number =>
  Number.isFinite(price) ? Math.min(1, Math.max(PRICE_FLOOR, price)) : PRICE_FLOOR

/** The result of holding `outcome` through `settlement` (`open` while there is none). */
export const resultOf = (outcome: string, settlement: Settlement | undefined | null): TradeResult => {
  if (settlement == null) return "open"
  if (settlement.status === "void") return "void"
  return settlement.winner === outcome ? "win" : "loss"
}

/**
 * Profit of a stake held to settlement at the price paid. Win: S(1 − p)/p (0 at p = 1: the contract
 * cost its payout). Loss: −S. Void: 0. A stake that is not a positive finite number risks nothing: 0.
 */
export const settlementProfit = (stake: number, price: number, result: SettledResult): number => {
  if (!(Number.isFinite(stake) && stake > 0)) return 0
  switch (result) {
    case "void":
      return 0
    case "loss":
      return -stake
    case "win": {
      const p = scoringPrice(price)
      return (stake * (1 - p)) / p
    }
  }
}

/** `settlementProfit` for any result: null while open. */
export const profitOf = (stake: number, price: number, result: TradeResult): number | null =>
  result === "open" ? null : settlementProfit(stake, price, result)

/** What one contract of `outcome` pays at settlement: 1 or 0, or null on a void (refund at cost). */
export const payoutPerContract = (outcome: string, settlement: Settlement): 1 | 0 | null =>
  settlement.status === "void" ? null : settlement.winner === outcome ? 1 : 0
