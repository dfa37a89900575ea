// The signal object (conditions a whale buy must meet; used by backtests and signal bots) and the sizing
// object (stake per copied trade). Client input: every bound of the spec is enforced here with a message
// naming the field and the rule; unknown fields are refused.
import { Schema } from "effect"
import { Category, Venue } from "./enums.js"
import {
  DEFAULT_SIZING_USD, MAX_KEYWORD_LENGTH, MAX_KEYWORDS, MAX_PERCENT, MAX_SIGNAL_CATEGORIES, MAX_SIGNAL_TRADERS,
  MAX_SIGNAL_VENUES, MAX_SIZING_USD, MIN_KEYWORDS, MIN_SIGNAL_TRADERS, boundedText, optionalKey, STRICT,
} from "./limits.js"
import { TraderRef } from "./refs.js"

const says = (message: string) => ({ message: () => message })
const fmt = (n: number) => n.toLocaleString("en-US")

/** `open` = new positions only, `add` = buys that add to a position, `all` = every buy. */
export const SignalEntry = Schema.Literal("open", "add", "all")
export type SignalEntry = typeof SignalEntry.Type

/** A number 0..1 named in its message, e.g. `signal.priceMin`. */
export const priceField = (name: string) =>
  Schema.Number.pipe(Schema.between(0, 1, says(`${name} must be a price from 0 to 1`)))

/** A finite number, 0 or more, named in its message. */
export const nonNegativeField = (name: string) =>
  Schema.Number.pipe(
    Schema.finite(says(`${name} must be a finite number, 0 or more`)),
    Schema.nonNegative(says(`${name} must be a finite number, 0 or more`)),
  )

/**
 * Case-insensitive substring of the market name: 1..40 characters, not only spaces (a blank keyword
 * would match every name with a space in it).
 */
export const Keyword = boundedText(1, MAX_KEYWORD_LENGTH, `each keyword must be 1 to ${MAX_KEYWORD_LENGTH} characters`).pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "each keyword must hold something other than spaces" }),
)

/** 1..10 keywords; a market matches when its name contains any. */
export const Keywords = Schema.Array(Keyword).pipe(
  Schema.minItems(MIN_KEYWORDS, says(`signal.keywords must hold ${MIN_KEYWORDS} to ${MAX_KEYWORDS} words`)),
  Schema.maxItems(MAX_KEYWORDS, says(`signal.keywords must hold ${MIN_KEYWORDS} to ${MAX_KEYWORDS} words`)),
)

const SignalFields = Schema.Struct({
  /** Up to 50; omitted = all venues. An empty list is accepted and reads as omitted. */
  venue: optionalKey(Schema.Array(Venue).pipe(
    Schema.maxItems(MAX_SIGNAL_VENUES, says(`signal.venue may hold at most ${MAX_SIGNAL_VENUES} venues`)),
  )),
  /** Up to 5; matches the market's stored category. An empty list reads as omitted. */
  category: optionalKey(Schema.Array(Category).pipe(
    Schema.maxItems(MAX_SIGNAL_CATEGORIES, says(`signal.category may hold at most ${MAX_SIGNAL_CATEGORIES} categories`)),
  )),
  minUsd: optionalKey(nonNegativeField("signal.minUsd")),
  maxUsd: optionalKey(nonNegativeField("signal.maxUsd")),
  priceMin: optionalKey(priceField("signal.priceMin")),
  priceMax: optionalKey(priceField("signal.priceMax")),
  entry: Schema.optionalWith(SignalEntry, { exact: true, default: () => "all" as const }),
  /** 1..25 trader refs; only these traders' buys count, of any size. */
  traders: optionalKey(Schema.Array(TraderRef).pipe(
    Schema.minItems(MIN_SIGNAL_TRADERS, says(`signal.traders must hold ${MIN_SIGNAL_TRADERS} to ${MAX_SIGNAL_TRADERS} trader refs`)),
    Schema.maxItems(MAX_SIGNAL_TRADERS, says(`signal.traders must hold ${MIN_SIGNAL_TRADERS} to ${MAX_SIGNAL_TRADERS} trader refs`)),
  )),
  keywords: optionalKey(Keywords),
}).annotations(STRICT)

/** The cross-field rules of a signal, as `{ path, message }` issues; empty when it is consistent. */
export const signalProblems = (s: {
  readonly minUsd?: number
  readonly maxUsd?: number
  readonly priceMin?: number
  readonly priceMax?: number
}): Array<{ path: ReadonlyArray<string>; message: string }> => {
  const problems: Array<{ path: ReadonlyArray<string>; message: string }> = []
  if (s.minUsd !== undefined && s.maxUsd !== undefined && s.maxUsd < s.minUsd) {
    problems.push({ path: ["maxUsd"], message: "signal.maxUsd must be at least signal.minUsd" })
  }
  if (s.priceMin !== undefined && s.priceMax !== undefined && s.priceMax < s.priceMin) {
    problems.push({ path: ["priceMax"], message: "signal.priceMax must be at least signal.priceMin" })
  }
  return problems
}

/** A signal scores buys only; it has no `kind` field. An empty signal matches every whale buy. */
export const Signal = SignalFields.pipe(
  Schema.filter((s) => signalProblems(s), { identifier: "Signal" }),
)
export type Signal = typeof Signal.Type

const sizingUsd = Schema.Number.pipe(
  Schema.greaterThan(0, says(`sizing.usd must be above 0 and at most ${fmt(MAX_SIZING_USD)}`)),
  Schema.lessThanOrEqualTo(MAX_SIZING_USD, says(`sizing.usd must be above 0 and at most ${fmt(MAX_SIZING_USD)}`)),
)
const sizingPercent = Schema.Number.pipe(
  Schema.greaterThan(0, says(`sizing.percent must be above 0 and at most ${fmt(MAX_PERCENT)}`)),
  Schema.lessThanOrEqualTo(MAX_PERCENT, says(`sizing.percent must be above 0 and at most ${fmt(MAX_PERCENT)}`)),
)
const sizingMaxUsd = Schema.Number.pipe(
  Schema.greaterThan(0, says(`sizing.maxUsd must be above 0 and at most ${fmt(MAX_SIZING_USD)}`)),
  Schema.lessThanOrEqualTo(MAX_SIZING_USD, says(`sizing.maxUsd must be above 0 and at most ${fmt(MAX_SIZING_USD)}`)),
)

/** Fixed stake per copied trade. */
export const UsdSizing = Schema.Struct({ usd: sizingUsd }).annotations({ ...STRICT, identifier: "UsdSizing" })
export type UsdSizing = typeof UsdSizing.Type

/** Percent of the source trade's dollars, capped at `maxUsd` for one trade. */
export const PercentSizing = Schema.Struct({ percent: sizingPercent, maxUsd: sizingMaxUsd })
  .annotations({ ...STRICT, identifier: "PercentSizing" })
export type PercentSizing = typeof PercentSizing.Type

const SizingFields = Schema.Struct({
  usd: optionalKey(sizingUsd),
  percent: optionalKey(sizingPercent),
  maxUsd: optionalKey(sizingMaxUsd),
}).annotations(STRICT)

const sizingProblem = (s: typeof SizingFields.Type): string | undefined => {
  if (s.usd !== undefined && (s.percent !== undefined || s.maxUsd !== undefined)) {
    return "sizing must be exactly one of { usd } or { percent, maxUsd }, not both"
  }
  if (s.usd !== undefined) return undefined
  if (s.percent !== undefined && s.maxUsd === undefined) return "sizing.percent must be sent together with sizing.maxUsd"
  if (s.percent === undefined && s.maxUsd !== undefined) return "sizing.maxUsd is only valid together with sizing.percent"
  if (s.percent === undefined) return "sizing must be { usd } or { percent, maxUsd }"
  return undefined
}

/**
 * Exactly one of `{ usd }` or `{ percent, maxUsd }`. Decoded from one flat object (so a wrong mix gets
 * a message naming the fields rather than two union failures) into the union of the two forms.
 */
export const Sizing = Schema.transform(
  SizingFields.pipe(Schema.filter((s) => sizingProblem(s) ?? true, { identifier: "SizingFields" })),
  Schema.typeSchema(Schema.Union(UsdSizing, PercentSizing)),
  {
    strict: true,
    // The filter guarantees one complete form; the `?? 0` fallbacks are unreachable (and would fail
    // the `above 0` check of the target if they were not).
    decode: (s): UsdSizing | PercentSizing =>
      s.usd !== undefined ? { usd: s.usd } : { percent: s.percent ?? 0, maxUsd: s.maxUsd ?? 0 },
    encode: (s) => s,
  },
).annotations({
  identifier: "Sizing",
  description: "Exactly one of { usd } (stake per trade, above 0, at most 1,000,000) or { percent, maxUsd } (percent of the source trade, above 0, at most 10,000, capped at maxUsd, at most 1,000,000)",
})
export type Sizing = typeof Sizing.Type

export const DEFAULT_SIZING: UsdSizing = { usd: DEFAULT_SIZING_USD }

export const isUsdSizing = (s: Sizing): s is UsdSizing => "usd" in s

/** `sizing` as a body field: optional, `{ usd: 100 }` when omitted. */
export const sizingWithDefault = Schema.optionalWith(Sizing, { exact: true, default: () => DEFAULT_SIZING })
