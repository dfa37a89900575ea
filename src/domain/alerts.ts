// Market alerts and the alerts inbox (spec: v1 operations, tools set_market_alert, get_market_alerts,
// get_alerts; shapes not shown). A market alert watches one side of one contract and fires once, on feed
// time, at the first price at or beyond its bound; the inbox lists what fired and the trade notices of
// the account's bots with `alerts: true`.
import { Schema } from "effect"
import { MarketObject } from "./market-object.js"
import { boundedText, MAX_ALERT_NOTE, optionalKey, Price, STRICT, UtcTime } from "./limits.js"
import { MarketRef } from "./refs.js"
import { OutcomeText } from "./bot.js"

const priceBound = (name: string) =>
  Price.annotations({ message: () => ({ message: `${name} must be a price from 0 to 1`, override: true }) })

/** POST /v1/market-alerts. */
export const MarketAlertRequest = Schema.Struct({
  market: MarketRef,
  /** A side by name or label, or `yes` / `no`; the contract's first side when omitted. */
  outcome: optionalKey(OutcomeText),
  /** Fires at the first price at or above this. */
  above: optionalKey(priceBound("above")),
  /** Fires at the first price at or below this. */
  below: optionalKey(priceBound("below")),
  note: optionalKey(boundedText(1, MAX_ALERT_NOTE, `note must be 1 to ${MAX_ALERT_NOTE} characters`)),
}).pipe(
  Schema.filter((r) => {
    if (r.above === undefined && r.below === undefined) return { path: ["above"], message: "give above, below or both" }
    if (r.above !== undefined && r.below !== undefined && r.below >= r.above) {
      return { path: ["below"], message: "below must be under above" }
    }
    return true
  }),
).annotations({ ...STRICT, title: "MarketAlertRequest" })
export type MarketAlertRequest = typeof MarketAlertRequest.Type

export const MarketAlertStatus = Schema.Literal("armed", "triggered", "ended")
export type MarketAlertStatus = typeof MarketAlertStatus.Type

export const MarketAlert = Schema.Struct({
  id: Schema.String,
  market: MarketObject,
  /** The side's name. */
  outcome: Schema.String,
  above: Schema.NullOr(Price),
  below: Schema.NullOr(Price),
  note: Schema.NullOr(Schema.String),
  /** `armed` until it fires (`triggered`) or its market settles or is voided first (`ended`). */
  status: MarketAlertStatus,
  createdAt: UtcTime,
  /** Feed time of the price that fired it. */
  triggeredAt: Schema.NullOr(UtcTime),
  triggerPrice: Schema.NullOr(Price),
  endedAt: Schema.NullOr(UtcTime),
}).annotations({ identifier: "MarketAlert" })
export type MarketAlert = typeof MarketAlert.Type

/** One notice of the inbox (GET /v1/alerts). */
export const AlertNotice = Schema.Struct({
  /** `market.alert:<alert id>`, or `bot.trade:<trade id>:<open|closed>`. */
  id: Schema.String,
  type: Schema.Literal("market.alert", "bot.trade"),
  at: UtcTime,
  /** One sentence for people. */
  message: Schema.String,
  /** The market alert, or `{ bot: { id, name }, trade }` with the bot trade's fields. */
  data: Schema.Unknown,
}).annotations({ identifier: "AlertNotice" })
export type AlertNotice = typeof AlertNotice.Type
