// The market-bot rule as arithmetic, pure: when the buy trigger holds, and which exit (if any) is due
// for a held trade. Prices are the side's price (0..1); times are feed time in epoch ms.
//
// Rules (spec: Market-bot rule object):
// - buyBelow: price ≤ level; buyAbove: price ≥ level; dropsBy: price ≤ start − d; risesBy: price ≥
//   start + d (start = the side's price when the bot started on this market). No trigger: buy at once.
// - takeProfit: price ≥ level; stopLoss: price ≤ level; takeProfitPoints: price ≥ paid + d;
//   stopLossPoints: price ≤ paid − d; maxHoldHours: held that long in feed time. No exit: hold to settlement.
// - With no price known a price trigger waits (maxHoldHours still counts).
import type { MarketRule } from "../../domain/bot.js"

const EPS = 1e-9
export const HOUR_MS = 3_600_000

export const hasBuyTrigger = (rule: MarketRule): boolean =>
  rule.buyBelow !== undefined || rule.buyAbove !== undefined || rule.dropsBy !== undefined || rule.risesBy !== undefined

export const buyTriggered = (rule: MarketRule, price: number | null, start: number | null): boolean => {
  if (!hasBuyTrigger(rule)) return true
  if (price === null) return false
  if (rule.buyBelow !== undefined) return price <= rule.buyBelow + EPS
  if (rule.buyAbove !== undefined) return price >= rule.buyAbove - EPS
  if (start === null) return false
  if (rule.dropsBy !== undefined) return price <= start - rule.dropsBy + EPS
  if (rule.risesBy !== undefined) return price >= start + rule.risesBy - EPS
  return false
}

export type ExitReason = "takeProfit" | "stopLoss" | "takeProfitPoints" | "stopLossPoints" | "maxHoldHours"

export const exitDue = (
  rule: MarketRule, held: { readonly entryPrice: number; readonly openedAt: number }, price: number | null, now: number,
): ExitReason | null => {
  if (price !== null) {
    if (rule.takeProfit !== undefined && price >= rule.takeProfit - EPS) return "takeProfit"
    if (rule.stopLoss !== undefined && price <= rule.stopLoss + EPS) return "stopLoss"
    if (rule.takeProfitPoints !== undefined && price >= held.entryPrice + rule.takeProfitPoints - EPS) return "takeProfitPoints"
    if (rule.stopLossPoints !== undefined && price <= held.entryPrice - rule.stopLossPoints + EPS) return "stopLossPoints"
  }
  if (rule.maxHoldHours !== undefined && now - held.openedAt >= rule.maxHoldHours * HOUR_MS) return "maxHoldHours"
  return null
}

/** When a held trade must be sold by time alone (null without maxHoldHours). */
export const holdDeadline = (rule: MarketRule, openedAt: number): number | null =>
  rule.maxHoldHours === undefined ? null : openedAt + rule.maxHoldHours * HOUR_MS
