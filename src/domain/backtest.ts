// Backtests (v2): the request body (client input, bounds and the signal-only variants enforced) and
// the backtest score with its holdout, sweep, breakdown, per-category and weekly-curve parts.
// Scoring itself lives elsewhere; this file only says what is well formed.
import { Schema } from "effect"
import { Category } from "./enums.js"
import {
  Count, Day, DEFAULT_BACKTEST_DAYS, MAX_BACKTEST_DAYS, MAX_SWEEP_VALUES, MIN_BACKTEST_DAYS, MIN_SWEEP_VALUES, optionalKey,
  Share, Signed, STRICT, Usd, UtcTime,
} from "./limits.js"
import { TraderRef } from "./refs.js"
import { DEFAULT_SIZING, Signal, Sizing } from "./signal.js"

const says = (message: string) => ({ message: () => message })
const daysMessage = `days must be an integer from ${MIN_BACKTEST_DAYS} to ${MAX_BACKTEST_DAYS}`

export const BacktestDays = Schema.Number.pipe(
  Schema.int(says(daysMessage)),
  Schema.between(MIN_BACKTEST_DAYS, MAX_BACKTEST_DAYS, says(daysMessage)),
)

export const SweepField = Schema.Literal("priceMin", "priceMax", "minUsd", "maxUsd")
export type SweepField = typeof SweepField.Type

export const BreakdownBy = Schema.Literal("category", "month", "price_band")
export type BreakdownBy = typeof BreakdownBy.Type

const isPriceField = (field: SweepField) => field === "priceMin" || field === "priceMax"

const sweepValuesMessage = `sweep.values must hold ${MIN_SWEEP_VALUES} to ${MAX_SWEEP_VALUES} numbers`

/** Each value counts as one request against the per-minute limit. */
export const Sweep = Schema.Struct({
  field: SweepField,
  values: Schema.Array(Schema.Number.pipe(Schema.finite(says("sweep.values must be finite numbers")))).pipe(
    Schema.minItems(MIN_SWEEP_VALUES, says(sweepValuesMessage)),
    Schema.maxItems(MAX_SWEEP_VALUES, says(sweepValuesMessage)),
  ),
}).annotations(STRICT).pipe(
  Schema.filter((s) => {
    if (isPriceField(s.field)) {
      return s.values.every((v) => v >= 0 && v <= 1) || `sweep.values must be prices from 0 to 1 when sweep.field is ${s.field}`
    }
    return s.values.every((v) => v >= 0) || `sweep.values must be 0 or more when sweep.field is ${s.field}`
  }, { identifier: "Sweep" }),
)
export type Sweep = typeof Sweep.Type

const BacktestFields = Schema.Struct({
  signal: optionalKey(Signal),
  /** Scores one trader's buys. */
  trader: optionalKey(TraderRef),
  /** Default `{ usd: 100 }`. */
  sizing: optionalKey(Sizing),
  /** Default 90. */
  days: optionalKey(BacktestDays),
  /** Signals only: score the first two thirds of the window and check the last third. */
  holdout: optionalKey(Schema.Boolean),
  /** Signals only. */
  sweep: optionalKey(Sweep),
  /** Signals only. */
  breakdown: optionalKey(BreakdownBy),
}).annotations(STRICT)

/** The bound a swept value must not cross: sweeping priceMin must keep it at most signal.priceMax, and so on. */
const OPPOSITE: Readonly<Record<SweepField, { field: SweepField; below: boolean }>> = {
  priceMin: { field: "priceMax", below: true },
  priceMax: { field: "priceMin", below: false },
  minUsd: { field: "maxUsd", below: true },
  maxUsd: { field: "minUsd", below: false },
}

/** The sweep's values must not cross the signal's opposite bound; returns the sentence, or undefined. */
export const sweepConflict = (signal: Signal, sweep: Sweep): string | undefined => {
  const opposite = OPPOSITE[sweep.field]
  const bound = signal[opposite.field]
  if (bound === undefined || !sweep.values.some((v) => (opposite.below ? v > bound : v < bound))) return undefined
  return `sweep.values would put signal.${sweep.field} ${opposite.below ? "above" : "below"} signal.${opposite.field}`
}

const backtestProblems = (b: typeof BacktestFields.Type): Array<{ path: ReadonlyArray<string>; message: string }> => {
  if ((b.signal === undefined) === (b.trader === undefined)) {
    return [{ path: [], message: "the body must carry exactly one of signal or trader" }]
  }
  const problems: Array<{ path: ReadonlyArray<string>; message: string }> = []
  if (b.trader !== undefined) {
    for (const field of ["holdout", "sweep", "breakdown"] as const) {
      if (b[field] !== undefined) problems.push({ path: [field], message: `${field} is only valid with a signal, not with trader` })
    }
  }
  const conflict = b.signal !== undefined && b.sweep !== undefined ? sweepConflict(b.signal, b.sweep) : undefined
  if (conflict !== undefined) problems.push({ path: ["sweep", "values"], message: conflict })
  return problems
}

export const SignalBacktest = Schema.Struct({
  signal: Signal,
  sizing: Sizing,
  days: BacktestDays,
  holdout: Schema.Boolean,
  sweep: optionalKey(Sweep),
  breakdown: optionalKey(BreakdownBy),
}).pipe(
  // Also on the decoded side, so that every SignalBacktest value (and every generated one) is consistent.
  Schema.filter((b) => (b.sweep === undefined ? true : sweepConflict(b.signal, b.sweep) ?? true), { identifier: "SignalBacktest" }),
)
export type SignalBacktest = typeof SignalBacktest.Type

export const TraderBacktest = Schema.Struct({
  trader: TraderRef,
  sizing: Sizing,
  days: BacktestDays,
})
export type TraderBacktest = typeof TraderBacktest.Type

/** POST /v2/backtest, decoded into a signal or a trader backtest with defaults applied. */
export const BacktestRequest = Schema.transform(
  BacktestFields.pipe(Schema.filter((b) => backtestProblems(b), { title: "BacktestRequest" })),
  Schema.typeSchema(Schema.Union(SignalBacktest, TraderBacktest)),
  {
    strict: true,
    decode: (b): SignalBacktest | TraderBacktest => {
      const sizing = b.sizing ?? DEFAULT_SIZING
      const days = b.days ?? DEFAULT_BACKTEST_DAYS
      if (b.signal === undefined) {
        // The filter guarantees a trader here; the fallback is unreachable and fails the ref check.
        return { trader: b.trader ?? ("" as TraderRef), sizing, days }
      }
      const base: SignalBacktest = { signal: b.signal, sizing, days, holdout: b.holdout ?? false }
      return {
        ...base,
        ...(b.sweep === undefined ? {} : { sweep: b.sweep }),
        ...(b.breakdown === undefined ? {} : { breakdown: b.breakdown }),
      }
    },
    encode: (r) => r,
  },
).annotations({
  title: "BacktestRequest",
  description: "Exactly one of signal or trader; holdout, sweep and breakdown are for signals only",
})
export type BacktestRequest = typeof BacktestRequest.Type

export const isSignalBacktest = (r: BacktestRequest): r is SignalBacktest => "signal" in r

/** The counts and money of a score; shared by the score, holdout parts, sweep results and breakdown rows. */
export const ScoreFields = Schema.Struct({
  /** Matched trades, settled or not. */
  trades: Count,
  settled: Count,
  wins: Count,
  losses: Count,
  /** Counted but not scored. */
  open: Count,
  /** Null until a trade settles. */
  winRate: Schema.NullOr(Share),
  /** Dollars staked on settled trades. */
  staked: Usd,
  /** Each trade held to settlement at the price paid. */
  profit: Signed,
  /** profit / staked; null when nothing staked. */
  return: Schema.NullOr(Signed),
})
export type ScoreFields = typeof ScoreFields.Type

export const BacktestWeek = Schema.Struct({
  /** The Monday starting the week, YYYY-MM-DD. */
  week: Day,
  settled: Count,
  profit: Signed,
  cumulative: Signed,
})
export type BacktestWeek = typeof BacktestWeek.Type

/** The score fields of the score, of each sweep result and of each breakdown row: days, sizing, counts and money, weekly curve. */
const ScoredFields = {
  days: BacktestDays,
  sizing: Sizing,
  ...ScoreFields.fields,
  /** One point per week of the window (every week, Mondays), oldest first. */
  curve: Schema.Array(BacktestWeek),
}

/** The days a holdout part covers: two thirds and one third of the window, so possibly fractional (2 decimals). */
export const HoldoutDays = Schema.Number.pipe(
  Schema.finite(says("must be a finite number of days")),
  Schema.nonNegative(says("must be a number of days, 0 or more")),
)

/** A holdout part: the score fields without `sizing` and `curve`. */
export const HoldoutPart = Schema.Struct({ days: HoldoutDays, ...ScoreFields.fields })
export type HoldoutPart = typeof HoldoutPart.Type

export const BacktestHoldout = Schema.Struct({
  splitAt: UtcTime,
  train: HoldoutPart,
  test: HoldoutPart,
  /** True when the test return is above zero. */
  holds: Schema.Boolean,
})
export type BacktestHoldout = typeof BacktestHoldout.Type

/** The score of the signal with the swept field set to `value`; its curve covers the trades it matches. */
export const SweepResult = Schema.Struct({ ...ScoredFields, value: Schema.Number })
export type SweepResult = typeof SweepResult.Type

export const BacktestSweep = Schema.Struct({ field: SweepField, results: Schema.Array(SweepResult) })
export type BacktestSweep = typeof BacktestSweep.Type

/**
 * `bucket`: the venue's category name, a `YYYY-MM` month, or a price band such as `0.40-0.60`; its curve
 * covers the bucket's trades.
 */
export const BreakdownRow = Schema.Struct({ ...ScoredFields, bucket: Schema.String })
export type BreakdownRow = typeof BreakdownRow.Type

export const BacktestBreakdown = Schema.Struct({ by: BreakdownBy, rows: Schema.Array(BreakdownRow) })
export type BacktestBreakdown = typeof BacktestBreakdown.Type

/** Trader backtests only; `category` is null for unclassified markets. */
export const CategoryScore = Schema.Struct({
  category: Schema.NullOr(Category),
  settled: Count,
  wins: Count,
  profit: Signed,
  return: Schema.NullOr(Signed),
})
export type CategoryScore = typeof CategoryScore.Type

/** The backtest score; the variant parts are present only when asked for. */
export const BacktestScore = Schema.Struct({
  ...ScoredFields,
  holdout: optionalKey(BacktestHoldout),
  sweep: optionalKey(BacktestSweep),
  breakdown: optionalKey(BacktestBreakdown),
  byCategory: optionalKey(Schema.Array(CategoryScore)),
}).annotations({ identifier: "BacktestScore" })
export type BacktestScore = typeof BacktestScore.Type
