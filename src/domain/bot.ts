// Paper bots: the market-bot rule object, the create and patch bodies (client input, every bound of the
// spec enforced, unknown fields refused), and the bot as clients read it (list item and full bot).
// Checks that need stored data (does the trader exist, does the venue name traders, bot limits) and
// the kind checks of a patch (the kind comes from the path's bot id) are the operation's, helped by
// `botPatchProblem` below.
import { Schema } from "effect"
import { Venue } from "./enums.js"
import {
  boundedText, Contracts, Count, MAX_BOT_NAME, MAX_HOLD_HOURS, optionalKey, PageOf, Price, Share, Signed, STRICT, Usd,
  UtcTime,
} from "./limits.js"
import { MarketObject } from "./market-object.js"
import { BotKind, MarketRef, TraderRef } from "./refs.js"
import { DEFAULT_SIZING, isUsdSizing, priceField, Signal, Sizing, UsdSizing } from "./signal.js"
import { SettledResult } from "./trader.js"

const says = (message: string) => ({ message: () => message })

/**
 * A distance in dollars of price (0.05 = 5 points). The spec gives no range; we take (0, 1]: above 0
 * because a zero distance means nothing, at most 1 because prices live in 0..1.
 */
const pointsField = (name: string) =>
  Schema.Number.pipe(
    Schema.greaterThan(0, says(`rule.${name} must be above 0 and at most 1 (dollars of price)`)),
    Schema.lessThanOrEqualTo(1, says(`rule.${name} must be above 0 and at most 1 (dollars of price)`)),
  )

const maxHoldHours = Schema.Number.pipe(
  Schema.greaterThan(0, says(`rule.maxHoldHours must be above 0 and at most ${MAX_HOLD_HOURS}`)),
  Schema.lessThanOrEqualTo(MAX_HOLD_HOURS, says(`rule.maxHoldHours must be above 0 and at most ${MAX_HOLD_HOURS}`)),
)

export const BUY_TRIGGERS = ["buyBelow", "buyAbove", "dropsBy", "risesBy"] as const

const MarketRuleFields = Schema.Struct({
  /** Buy when the side's price falls to this level. */
  buyBelow: optionalKey(priceField("rule.buyBelow")),
  /** Buy when it rises to this level. */
  buyAbove: optionalKey(priceField("rule.buyAbove")),
  /** Buy when the price is this far below its level at bot start. */
  dropsBy: optionalKey(pointsField("dropsBy")),
  /** Buy when the price is this far above its level at bot start. */
  risesBy: optionalKey(pointsField("risesBy")),
  /** Sell when the price reaches this level. */
  takeProfit: optionalKey(priceField("rule.takeProfit")),
  /** Sell when the price falls to this level. */
  stopLoss: optionalKey(priceField("rule.stopLoss")),
  /** Sell when the price is this far above the price paid. */
  takeProfitPoints: optionalKey(pointsField("takeProfitPoints")),
  /** Sell when the price is this far below the price paid. */
  stopLossPoints: optionalKey(pointsField("stopLossPoints")),
  /** Sell after holding this many hours. */
  maxHoldHours: optionalKey(maxHoldHours),
  /** true = buy again after each sale; false = trade once (once per market when following a series). */
  repeat: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
}).annotations(STRICT)

/** With no buy trigger the bot buys at once; with no sell rule it holds to settlement. */
export const MarketRule = MarketRuleFields.pipe(
  Schema.filter(
    (rule) =>
      BUY_TRIGGERS.filter((key) => rule[key] !== undefined).length <= 1 ||
      "rule may set at most one of buyBelow, buyAbove, dropsBy, risesBy",
    { identifier: "MarketRule" },
  ),
)
export type MarketRule = typeof MarketRule.Type

/** A name a bot is given (requests only): 1 to 60 characters, and not only spaces (a blank name names nothing in a list). */
export const BotName = boundedText(1, MAX_BOT_NAME, `name must be 1 to ${MAX_BOT_NAME} characters`).pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "name must hold something other than spaces" }),
)

/** A side by name or label, or `yes` / `no`. */
export const OutcomeText = boundedText(1, 200, "outcome must be a side's name or label, or yes or no")

export const TraderTrigger = Schema.Struct({ trader: TraderRef }).annotations({ ...STRICT, identifier: "TraderTrigger" })
export type TraderTrigger = typeof TraderTrigger.Type

export const SignalTrigger = Schema.Struct({ signal: Signal }).annotations({ ...STRICT, identifier: "SignalTrigger" })
export type SignalTrigger = typeof SignalTrigger.Type

/** `market` is a contract ref (`outcomes[].ref` of Get Market). */
export const MarketTrigger = Schema.Struct({ market: MarketRef, outcome: OutcomeText, rule: MarketRule })
  .annotations({ ...STRICT, identifier: "MarketTrigger" })
export type MarketTrigger = typeof MarketTrigger.Type

const TriggerFields = Schema.Struct({
  trader: optionalKey(TraderRef),
  signal: optionalKey(Signal),
  market: optionalKey(MarketRef),
  outcome: optionalKey(OutcomeText),
  rule: optionalKey(MarketRule),
}).annotations(STRICT)

const MARKET_TRIGGER_KEYS = ["market", "outcome", "rule"] as const

const triggerProblem = (t: typeof TriggerFields.Type): string | undefined => {
  const forms = [t.trader !== undefined, t.signal !== undefined, MARKET_TRIGGER_KEYS.some((k) => t[k] !== undefined)]
  if (forms.filter(Boolean).length !== 1) {
    return "trigger must be exactly one of { trader }, { signal } or { market, outcome, rule }"
  }
  const missing = forms[2] === true ? MARKET_TRIGGER_KEYS.filter((k) => t[k] === undefined) : []
  return missing.length > 0
    ? `trigger.${missing.join(" and trigger.")} ${missing.length > 1 ? "are" : "is"} required for a market bot`
    : undefined
}

/** Exactly one of `{ trader }`, `{ signal }`, `{ market, outcome, rule }`; decoded into that form. */
export const BotTrigger = Schema.transform(
  TriggerFields.pipe(Schema.filter((t) => triggerProblem(t) ?? true, { identifier: "BotTriggerFields" })),
  Schema.typeSchema(Schema.Union(TraderTrigger, SignalTrigger, MarketTrigger)),
  {
    strict: true,
    // After the filter exactly one complete form is present; the fallbacks are unreachable and would
    // fail the target's checks if they were not.
    decode: (t): TraderTrigger | SignalTrigger | MarketTrigger =>
      t.trader !== undefined ? { trader: t.trader }
      : t.signal !== undefined ? { signal: t.signal }
      : { market: t.market ?? ("" as MarketRef), outcome: t.outcome ?? "", rule: t.rule ?? { repeat: false } },
    encode: (t) => t,
  },
).annotations({
  identifier: "BotTrigger",
  description: "Exactly one of { trader } (trader bot), { signal } (signal bot) or { market, outcome, rule } (market bot)",
})
export type BotTrigger = typeof BotTrigger.Type

export const triggerKind = (t: BotTrigger): BotKind =>
  "trader" in t ? "trader" : "signal" in t ? "signal" : "market"

const BotCreateFields = Schema.Struct({
  trigger: BotTrigger,
  /** Signal bots only; default derives from the signal. */
  name: optionalKey(BotName),
  /** Default `{ usd: 100 }`; market bots accept `{ usd }` only. */
  sizing: optionalKey(Sizing),
  /** Trader bots only; default false. true = sell when the trader sells. */
  mirrorExits: optionalKey(Schema.Boolean),
  /** Market bots only; default false. true = move to the next market of the series after each one. */
  series: optionalKey(Schema.Boolean),
  /** Default true. */
  alerts: optionalKey(Schema.Boolean),
}).annotations(STRICT)

const createProblems = (b: typeof BotCreateFields.Type): Array<{ path: ReadonlyArray<string>; message: string }> => {
  const kind = triggerKind(b.trigger)
  const problems: Array<{ path: ReadonlyArray<string>; message: string }> = []
  if (b.name !== undefined && kind !== "signal") problems.push({ path: ["name"], message: "name is only valid on a signal bot" })
  if (b.mirrorExits !== undefined && kind !== "trader") {
    problems.push({ path: ["mirrorExits"], message: "mirrorExits is only valid on a trader bot" })
  }
  if (b.series !== undefined && kind !== "market") problems.push({ path: ["series"], message: "series is only valid on a market bot" })
  if (b.sizing !== undefined && kind === "market" && !isUsdSizing(b.sizing)) {
    problems.push({ path: ["sizing"], message: "sizing must be { usd } on a market bot" })
  }
  return problems
}

export const TraderBotRequest = Schema.Struct({
  kind: Schema.Literal("trader"),
  trigger: TraderTrigger,
  sizing: Sizing,
  mirrorExits: Schema.Boolean,
  alerts: Schema.Boolean,
})
export type TraderBotRequest = typeof TraderBotRequest.Type

export const SignalBotRequest = Schema.Struct({
  kind: Schema.Literal("signal"),
  trigger: SignalTrigger,
  /** Absent: the operation derives one from the signal. */
  name: optionalKey(BotName),
  sizing: Sizing,
  alerts: Schema.Boolean,
})
export type SignalBotRequest = typeof SignalBotRequest.Type

export const MarketBotRequest = Schema.Struct({
  kind: Schema.Literal("market"),
  trigger: MarketTrigger,
  sizing: UsdSizing,
  series: Schema.Boolean,
  alerts: Schema.Boolean,
})
export type MarketBotRequest = typeof MarketBotRequest.Type

/**
 * POST /v2/bots. Decoded into one request per bot kind with the defaults applied (`kind` added,
 * `sizing` `{ usd: 100 }`, `mirrorExits` and `series` false, `alerts` true); encoding drops `kind`.
 */
export const BotCreateRequest = Schema.transform(
  BotCreateFields.pipe(Schema.filter((b) => createProblems(b), { title: "BotCreateRequest" })),
  Schema.typeSchema(Schema.Union(TraderBotRequest, SignalBotRequest, MarketBotRequest)),
  {
    strict: true,
    decode: (b): TraderBotRequest | SignalBotRequest | MarketBotRequest => {
      const alerts = b.alerts ?? true
      const t = b.trigger
      if ("trader" in t) return { kind: "trader", trigger: t, sizing: b.sizing ?? DEFAULT_SIZING, mirrorExits: b.mirrorExits ?? false, alerts }
      if ("signal" in t) {
        const base = { kind: "signal" as const, trigger: t, sizing: b.sizing ?? DEFAULT_SIZING, alerts }
        return b.name === undefined ? base : { ...base, name: b.name }
      }
      // The filter refused a percent sizing on a market bot.
      const sizing = b.sizing !== undefined && isUsdSizing(b.sizing) ? b.sizing : DEFAULT_SIZING
      return { kind: "market", trigger: t, sizing, series: b.series ?? false, alerts }
    },
    encode: (r) => {
      switch (r.kind) {
        case "trader": return { trigger: r.trigger, sizing: r.sizing, mirrorExits: r.mirrorExits, alerts: r.alerts }
        case "signal": {
          const base = { trigger: r.trigger, sizing: r.sizing, alerts: r.alerts }
          return r.name === undefined ? base : { ...base, name: r.name }
        }
        case "market": return { trigger: r.trigger, sizing: r.sizing, series: r.series, alerts: r.alerts }
      }
    },
  },
).annotations({ title: "BotCreateRequest" })
export type BotCreateRequest = typeof BotCreateRequest.Type

/** Only `running` and `paused` can be set through the API. */
export const BotPatchStatus = Schema.Literal("running", "paused")
export type BotPatchStatus = typeof BotPatchStatus.Type

const BotPatchFields = Schema.Struct({
  name: optionalKey(BotName),
  /** Replaces the old signal. */
  signal: optionalKey(Signal),
  sizing: optionalKey(Sizing),
  mirrorExits: optionalKey(Schema.Boolean),
  status: optionalKey(BotPatchStatus),
  /** Replaces the old rule. */
  rule: optionalKey(MarketRule),
  alerts: optionalKey(Schema.Boolean),
}).annotations(STRICT)

/** PATCH /v2/bots/{id}: only the changed fields; an empty body is refused. */
export const BotPatchRequest = BotPatchFields.pipe(
  Schema.filter(
    (p) => Object.keys(p).length > 0 || "the body must change at least one field",
    { title: "BotPatchRequest" },
  ),
)
export type BotPatchRequest = typeof BotPatchRequest.Type

/** The fields a patch may carry, per bot kind. */
export const BOT_PATCH_FIELDS: Readonly<Record<BotKind, ReadonlyArray<keyof BotPatchRequest>>> = {
  trader: ["sizing", "mirrorExits", "status", "alerts"],
  signal: ["name", "signal", "sizing", "alerts"],
  market: ["rule", "sizing", "status", "alerts"],
}

/**
 * The kind checks of a patch (the kind is known from the bot id): a field not valid for the kind, or
 * a percent sizing on a market bot. Returns the VALIDATION sentence, or undefined when it fits.
 */
export const botPatchProblem = (kind: BotKind, patch: BotPatchRequest): string | undefined => {
  const allowed = BOT_PATCH_FIELDS[kind]
  const wrong = (Object.keys(patch) as Array<keyof BotPatchRequest>).find((key) => !allowed.includes(key))
  if (wrong !== undefined) return `${wrong} is not valid for a ${kind} bot`
  if (kind === "market" && patch.sizing !== undefined && !isUsdSizing(patch.sizing)) {
    return "sizing must be { usd } on a market bot"
  }
  return undefined
}

// ---- The bot as clients read it ----

export const BotStatus = Schema.Literal("running", "paused", "ended")
export type BotStatus = typeof BotStatus.Type

/** Live bots trade real money, are set up only in the app and are read-only in the API. */
export const BotMode = Schema.Literal("paper", "live")
export type BotMode = typeof BotMode.Type

const listFields = {
  id: Schema.String,
  name: Schema.String,
  kind: BotKind,
  mode: BotMode,
  /** One line. */
  summary: Schema.String,
  status: BotStatus,
  venues: Schema.Array(Venue),
}

const resultFields = {
  /** USD, closed plus open. */
  profit: Signed,
  winRate: Schema.NullOr(Share),
  lastTradeAt: Schema.NullOr(UtcTime),
}

export const BotListItem = Schema.Struct({ ...listFields, trades: Count, ...resultFields })
  .annotations({ identifier: "BotListItem" })
export type BotListItem = typeof BotListItem.Type

export const TraderBotSettings = Schema.Struct({
  trader: Schema.Struct({ ref: Schema.String, name: Schema.NullOr(Schema.String) }),
  sizing: Schema.NullOr(Sizing),
  mirrorExits: Schema.Boolean,
  alerts: Schema.Boolean,
})
export type TraderBotSettings = typeof TraderBotSettings.Type

export const SignalBotSettings = Schema.Struct({
  /** Null when the bot holds settings only the app can edit. */
  signal: Schema.NullOr(Signal),
  sizing: Schema.NullOr(Sizing),
  alerts: Schema.Boolean,
})
export type SignalBotSettings = typeof SignalBotSettings.Type

export const MarketBotSettings = Schema.Struct({
  market: Schema.Struct({
    ref: Schema.String,
    contract: Schema.String,
    title: Schema.String,
    outcome: Schema.Literal("Yes", "No"),
    series: Schema.Boolean,
  }),
  rule: MarketRule,
  sizing: Schema.NullOr(Sizing),
  alerts: Schema.Boolean,
})
export type MarketBotSettings = typeof MarketBotSettings.Type

/** Only the fields for the bot's kind. */
export const BotSettings = Schema.Union(TraderBotSettings, SignalBotSettings, MarketBotSettings)
export type BotSettings = typeof BotSettings.Type

export const BotRecord = Schema.Struct({
  trades: Count,
  settled: Count,
  wins: Count,
  losses: Count,
  open: Count,
  winRate: Schema.NullOr(Share),
  realized: Signed,
  unrealized: Signed,
  profit: Signed,
  staked: Usd,
  /** profit / staked; null when nothing staked. */
  return: Schema.NullOr(Signed),
})
export type BotRecord = typeof BotRecord.Type

/** Running total of closed profit, one point per trade. */
export const BotCurvePoint = Schema.Struct({ time: UtcTime, profit: Signed })
export type BotCurvePoint = typeof BotCurvePoint.Type

export const BotTradeStatus = Schema.Literal("open", "closed")
export type BotTradeStatus = typeof BotTradeStatus.Type

export const BotTradeRow = Schema.Struct({
  /** `category` and `kind` are always null here. */
  market: Schema.NullOr(MarketObject),
  outcome: Schema.String,
  contracts: Contracts,
  entryPrice: Price,
  /** Current while open (null with no recent price); exit price or payout once closed. */
  price: Schema.NullOr(Price),
  profit: Schema.NullOr(Signed),
  status: BotTradeStatus,
  result: Schema.NullOr(SettledResult),
  openedAt: UtcTime,
  closedAt: Schema.NullOr(UtcTime),
}).annotations({ identifier: "BotTradeRow" })
export type BotTradeRow = typeof BotTradeRow.Type

export const BotActivity = Schema.Struct({
  /** Matched in the window. */
  trades: Count,
  windowDays: Count,
  medianTradeUsd: Schema.NullOr(Usd),
  lastTradeAt: Schema.NullOr(UtcTime),
})
export type BotActivity = typeof BotActivity.Type

/** Get, Create and Update answer with this. `trades` and `activity` are absent unless included. */
export const Bot = Schema.Struct({
  ...listFields,
  ...resultFields,
  settings: BotSettings,
  record: BotRecord,
  curve: Schema.Array(BotCurvePoint),
  /** `include=trades`, newest first. */
  trades: optionalKey(PageOf(BotTradeRow)),
  /** `include=activity`; null for a market bot. */
  activity: optionalKey(Schema.NullOr(BotActivity)),
}).annotations({ identifier: "Bot" })
export type Bot = typeof Bot.Type
