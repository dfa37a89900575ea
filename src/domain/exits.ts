// Exit rules (spec: v1 operations, tool set_exit_rule: "stop-loss, take-profit or trailing stop on a
// position"; shape not shown): a rule on the account's hand-held paper position on one side of one
// contract that sells all of it, once, when the side's price reaches a level.
import { Schema } from "effect"
import { MarketObject } from "./market-object.js"
import { optionalKey, Price, STRICT, UtcTime } from "./limits.js"
import { MarketRef } from "./refs.js"
import { OutcomeText } from "./bot.js"

const level = (name: string) =>
  Price.annotations({ message: () => ({ message: `${name} must be a price from 0 to 1`, override: true }) })

/** Points of price below the highest price seen since the rule was set: above 0 and under 1. */
const Points = Schema.Number.pipe(
  Schema.greaterThan(0, { message: () => "trailingStop must be points of price above 0 and under 1 (0.05 = 5 points)" }),
  Schema.lessThan(1, { message: () => "trailingStop must be points of price above 0 and under 1 (0.05 = 5 points)" }),
)

/** POST /v1/exits. */
export const ExitRuleRequest = Schema.Struct({
  market: MarketRef,
  outcome: OutcomeText,
  /** Sell when the price falls to this level. */
  stopLoss: optionalKey(level("stopLoss")),
  /** Sell when the price rises to this level. */
  takeProfit: optionalKey(level("takeProfit")),
  /** Sell when the price falls this far below the highest price since the rule was set. */
  trailingStop: optionalKey(Points),
}).pipe(
  Schema.filter((r) => {
    if (r.stopLoss === undefined && r.takeProfit === undefined && r.trailingStop === undefined) {
      return { path: ["stopLoss"], message: "give stopLoss, takeProfit, trailingStop or several" }
    }
    if (r.stopLoss !== undefined && r.takeProfit !== undefined && r.stopLoss >= r.takeProfit) {
      return { path: ["takeProfit"], message: "takeProfit must be above stopLoss" }
    }
    return true
  }),
).annotations({ ...STRICT, title: "ExitRuleRequest" })
export type ExitRuleRequest = typeof ExitRuleRequest.Type

export const ExitRuleStatus = Schema.Literal("armed", "executed", "cancelled")
export type ExitRuleStatus = typeof ExitRuleStatus.Type

export const ExitRule = Schema.Struct({
  id: Schema.String,
  market: MarketObject,
  outcome: Schema.String,
  stopLoss: Schema.NullOr(Price),
  takeProfit: Schema.NullOr(Price),
  trailingStop: Schema.NullOr(Schema.Number),
  /**
   * With a trailing stop: the highest price of the side since the rule was set (the price then, when the
   * market had one), which the trail is measured from; it fires at `trailHigh - trailingStop` or lower.
   * Null without a trailing stop, or while no price is known.
   */
  trailHigh: Schema.NullOr(Price),
  /** `armed` until it sells (`executed`) or cannot any more (`cancelled`: replaced, deleted, nothing held, market over). */
  status: ExitRuleStatus,
  createdAt: UtcTime,
  /** Feed time it sold or was cancelled. */
  doneAt: Schema.NullOr(UtcTime),
  /** Which level fired: `stopLoss`, `takeProfit` or `trailingStop`; or why it was cancelled. */
  reason: Schema.NullOr(Schema.String),
  /** The paper order of the sale. */
  orderId: Schema.NullOr(Schema.String),
}).annotations({ identifier: "ExitRule" })
export type ExitRule = typeof ExitRule.Type
