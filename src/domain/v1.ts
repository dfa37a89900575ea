// The v1 resources: the whale event row, the v1 backtest score and the v1 event criteria (client input,
// bounds enforced, unknown fields refused), with the bodies of POST /v1/events and POST /v1/backtest.
// v1 names differ from v2 on purpose (`minAmountUsd`, `platforms`, `sinceDays`); keep them as written.
import { Schema } from "effect"
import { Category, KINDS_BY_CATEGORY, type Kind, Platform, type Venue, VENUES } from "./enums.js"
import {
  Count, DEFAULT_PAGE_LIMIT, DEFAULT_SIZING_USD, DEFAULT_V1_SINCE_DAYS, MAX_REPEAT, MAX_SIZING_USD, MAX_SWEEP_VALUES, MAX_V1_SINCE_DAYS,
  MIN_SWEEP_VALUES, MAX_KEYWORDS,
  MAX_V1_SPORTS_LEAGUES, MIN_V1_SINCE_DAYS, optionalKey, boundedText, MAX_STRATEGY_NAME, PageLimit, Price, Share, Signed, STRICT, Usd, UtcTime,
} from "./limits.js"
import { TraderRef } from "./refs.js"
import { Keyword, nonNegativeField, priceField } from "./signal.js"

const says = (message: string) => ({ message: () => message })

export const Direction = Schema.Literal("buy_yes", "buy_no", "sell_yes", "sell_no")
export type Direction = typeof Direction.Type

export const PositionDelta = Schema.Literal("open", "add", "flip", "trim", "close", "unknown")
export type PositionDelta = typeof PositionDelta.Type

export const V1Resolution = Schema.Literal("win", "loss", "void")
export type V1Resolution = typeof V1Resolution.Type

/** A whale event. Voids have zero PnL and are left out of win rate and return. */
export const WhaleEventRow = Schema.Struct({
  id: Schema.String,
  platform: Platform,
  platformMarketId: Schema.String,
  marketTitle: Schema.String,
  marketCategory: Schema.NullOr(Category),
  direction: Direction,
  outcomeName: Schema.String,
  /** USD. */
  amount: Usd,
  price: Price,
  positionDelta: PositionDelta,
  detectedAt: UtcTime,
  /** Null while open. */
  resolution: Schema.NullOr(V1Resolution),
  pnlUsd: Schema.NullOr(Signed),
}).annotations({ identifier: "WhaleEventRow" })
export type WhaleEventRow = typeof WhaleEventRow.Type

/** The counts and money of a v1 score (the whole window, or one half of a holdout). */
export const V1ScoreFields = {
  matched: Count,
  settled: Count,
  wins: Count,
  losses: Count,
  open: Count,
  /** 0..1; 0 when nothing won or lost (v1 has no null here). Voids are left out. */
  winRate: Share,
  stakedUsd: Usd,
  pnlUsd: Signed,
  /** Percent, not a fraction; 0 when nothing was staked. */
  returnPct: Signed,
}

/** With `holdout: true`: the first two thirds of the window and the last third, scored apart. */
export const V1Holdout = Schema.Struct({
  splitAt: UtcTime,
  train: Schema.Struct(V1ScoreFields),
  test: Schema.Struct(V1ScoreFields),
  /** The test third's return is above zero. */
  holds: Schema.Boolean,
}).annotations({ identifier: "V1Holdout" })
export type V1Holdout = typeof V1Holdout.Type

/** The v1 score. `winRate` is 0..1 and not nullable in v1: 0 when nothing settled. */
export const V1BacktestScore = Schema.Struct({
  ...V1ScoreFields,
  stakeUsd: Usd,
  window: Schema.Struct({ sinceDays: Count, stake: Usd }),
  holdout: optionalKey(V1Holdout),
}).annotations({ identifier: "V1BacktestScore" })
export type V1BacktestScore = typeof V1BacktestScore.Type

const sinceDaysMessage = `criteria.sinceDays must be an integer from ${MIN_V1_SINCE_DAYS} to ${MAX_V1_SINCE_DAYS}`

const repeated = <A, I>(item: Schema.Schema<A, I>, name: string, max: number) =>
  Schema.Array(item).pipe(Schema.maxItems(max, says(`criteria.${name} may hold at most ${max} values`)))

const V1CriteriaFields = Schema.Struct({
  /** Omitted = every venue. */
  platforms: optionalKey(repeated(Platform, "platforms", MAX_REPEAT)),
  /** Omitted = all. */
  categories: optionalKey(repeated(Category, "categories", MAX_REPEAT)),
  /** Sports markets only. */
  sportsLeagues: optionalKey(repeated(Schema.String, "sportsLeagues", MAX_V1_SPORTS_LEAGUES)),
  minAmountUsd: optionalKey(nonNegativeField("criteria.minAmountUsd")),
  maxAmountUsd: optionalKey(nonNegativeField("criteria.maxAmountUsd")),
  /** Entry price. */
  priceMin: optionalKey(priceField("criteria.priceMin")),
  priceMax: optionalKey(priceField("criteria.priceMax")),
  /** Entries only is open, add, flip; trims and closes cannot be scored. */
  eventTypes: optionalKey(repeated(PositionDelta, "eventTypes", MAX_REPEAT)),
  /** Only buys are scored. */
  directions: optionalKey(repeated(Direction, "directions", MAX_REPEAT)),
  /** Case-insensitive substrings of the market name, any one suffices; up to 10 (empty = all, as every list here). */
  keywords: optionalKey(repeated(Keyword, "keywords", MAX_KEYWORDS)),
  sinceDays: Schema.optionalWith(
    Schema.Number.pipe(Schema.int(says(sinceDaysMessage)), Schema.between(MIN_V1_SINCE_DAYS, MAX_V1_SINCE_DAYS, says(sinceDaysMessage))),
    { exact: true, default: () => DEFAULT_V1_SINCE_DAYS },
  ),
}).annotations(STRICT)

export const V1EventCriteria = V1CriteriaFields.pipe(
  Schema.filter((c) => {
    const problems: Array<{ path: ReadonlyArray<string>; message: string }> = []
    if (c.minAmountUsd !== undefined && c.maxAmountUsd !== undefined && c.maxAmountUsd < c.minAmountUsd) {
      problems.push({ path: ["maxAmountUsd"], message: "criteria.maxAmountUsd must be at least criteria.minAmountUsd" })
    }
    if (c.priceMin !== undefined && c.priceMax !== undefined && c.priceMax < c.priceMin) {
      problems.push({ path: ["priceMax"], message: "criteria.priceMax must be at least criteria.priceMin" })
    }
    return problems
  }, { identifier: "V1EventCriteria" }),
)
export type V1EventCriteria = typeof V1EventCriteria.Type

/** POST /v1/events; an empty body is valid (the most recent trades across the feed). */
export const V1EventsRequest = Schema.Struct({
  criteria: optionalKey(V1EventCriteria),
  limit: Schema.optionalWith(PageLimit, { exact: true, default: () => DEFAULT_PAGE_LIMIT }),
  offset: Schema.optionalWith(Count, { exact: true, default: () => 0 }),
}).annotations({ ...STRICT, title: "V1EventsRequest" })
export type V1EventsRequest = typeof V1EventsRequest.Type

export const V1EventsResponse = Schema.Struct({
  events: Schema.Array(WhaleEventRow),
  limit: PageLimit,
  offset: Count,
})
export type V1EventsResponse = typeof V1EventsResponse.Type

/** A flat USD stake per trade: above 0 and at most the sizing bound (Limits). */
const v1Stake = (name: string) =>
  Schema.Number.pipe(
    Schema.greaterThan(0, says(`${name} must be above 0 and at most ${MAX_SIZING_USD}`)),
    Schema.lessThanOrEqualTo(MAX_SIZING_USD, says(`${name} must be above 0 and at most ${MAX_SIZING_USD}`)),
  )

const defaultCriteria = Schema.optionalWith(V1EventCriteria, { exact: true, default: () => ({ sinceDays: DEFAULT_V1_SINCE_DAYS }) })
const defaultStake = Schema.optionalWith(v1Stake("stake"), { exact: true, default: () => DEFAULT_SIZING_USD })

/** POST /v1/backtest: `stake` is a flat USD amount per trade, 100 by default. */
export const V1BacktestRequest = Schema.Struct({
  criteria: defaultCriteria,
  stake: defaultStake,
  holdout: optionalKey(Schema.Boolean),
}).annotations({ ...STRICT, title: "V1BacktestRequest" })
export type V1BacktestRequest = typeof V1BacktestRequest.Type

const SPORTS: ReadonlySet<string> = new Set(KINDS_BY_CATEGORY.sports)
const LEAGUE_NAMES: Readonly<Record<string, Kind>> = {
  ncaaf: "college_football", ncaab: "college_basketball", epl: "soccer", mls: "soccer", ufc: "mma", f1: "motorsport",
  formula_1: "motorsport", atp: "tennis", wta: "tennis", pga: "golf",
}

/**
 * The sports kinds v1 `sportsLeagues` name: a kind itself, case-insensitively, with `-` or spaces for
 * `_` (`nba`, `college-football`), or a common league name (NCAAF, EPL, UFC, …). An unknown league names none.
 */
export const kindsOfLeagues = (leagues: ReadonlyArray<string>): ReadonlyArray<Kind> => {
  const kinds = new Set<Kind>()
  for (const league of leagues) {
    const word = league.trim().toLowerCase().replace(/[\s-]+/g, "_")
    const kind = SPORTS.has(word) ? (word as Kind) : LEAGUE_NAMES[word]
    if (kind !== undefined) kinds.add(kind)
  }
  return [...kinds]
}

/** Whale buys of one bucket of the universe, and how many of them settled and won. */
const UniverseBucket = {
  whaleBuys: Count,
  settled: Count,
  /** wins / (wins + losses) over the bucket's settled whale buys; null when none won or lost. */
  winRate: Schema.NullOr(Share),
}

/**
 * GET /v1/universe (tool `describe_universe`): what the backtests and event queries can see — the
 * backtest history's whale buys (and named buys of any size), with their coverage, counts and
 * price and size distributions.
 */
export const V1Universe = Schema.Struct({
  /** When these figures were computed (they are recomputed at most once a minute). */
  generatedAt: UtcTime,
  /** Earliest and latest whale buy held (null when there is none); days between them, rounded up. */
  coverage: Schema.Struct({ from: Schema.NullOr(UtcTime), to: Schema.NullOr(UtcTime), days: Count }),
  /** The longest `sinceDays` a v1 query or backtest accepts. */
  maxSinceDays: Count,
  whaleBuys: Schema.Struct({ total: Count, settled: Count, wins: Count, losses: Count, voids: Count, open: Count }),
  /** Buys by traders the venue names, whale-size or not (trader backtests score them). */
  namedBuys: Count,
  traders: Count,
  /** Distinct market titles among the buys held. */
  markets: Count,
  platforms: Schema.Array(Schema.Struct({ platform: Platform, ...UniverseBucket })),
  /** Every category (and `unclassified`), in the categories' order. */
  categories: Schema.Array(Schema.Struct({ category: Schema.String, ...UniverseBucket })),
  /** Price paid, in five bands: `0.00-0.20` … `0.80-1.00`. */
  priceBands: Schema.Array(Schema.Struct({ band: Schema.String, ...UniverseBucket })),
  /** Whale buy sizes in USD (nearest rank); null when there is no whale buy. */
  sizes: Schema.NullOr(Schema.Struct({ min: Usd, p25: Usd, p50: Usd, p75: Usd, p90: Usd, p99: Usd, max: Usd })),
}).annotations({ identifier: "V1Universe" })
export type V1Universe = typeof V1Universe.Type

const compareSinceDays = `sinceDays must be an integer from ${MIN_V1_SINCE_DAYS} to ${MAX_V1_SINCE_DAYS}`
export const MIN_COMPARED_TRADERS = 2
export const MAX_COMPARED_TRADERS = 10
const comparedMessage = `traders must hold ${MIN_COMPARED_TRADERS} to ${MAX_COMPARED_TRADERS} different trader refs`

/** POST /v1/traders/compare: two to ten traders, each scored on the same stake and window. */
export const V1CompareTradersRequest = Schema.Struct({
  traders: Schema.Array(TraderRef).pipe(
    Schema.minItems(MIN_COMPARED_TRADERS, says(comparedMessage)),
    Schema.maxItems(MAX_COMPARED_TRADERS, says(comparedMessage)),
    Schema.filter((refs) => new Set(refs).size === refs.length || comparedMessage),
  ),
  stake: Schema.optionalWith(v1Stake("stake"), { exact: true, default: () => DEFAULT_SIZING_USD }),
  sinceDays: Schema.optionalWith(
    Schema.Number.pipe(Schema.int(says(compareSinceDays)), Schema.between(MIN_V1_SINCE_DAYS, MAX_V1_SINCE_DAYS, says(compareSinceDays))),
    { exact: true, default: () => DEFAULT_V1_SINCE_DAYS },
  ),
}).annotations({ ...STRICT, title: "V1CompareTradersRequest" })
export type V1CompareTradersRequest = typeof V1CompareTradersRequest.Type

export const V1TraderScore = Schema.Struct({ trader: TraderRef, ...V1ScoreFields }).annotations({ identifier: "V1TraderScore" })
export type V1TraderScore = typeof V1TraderScore.Type

export const V1TraderComparison = Schema.Struct({
  /** In the request's order. */
  traders: Schema.Array(V1TraderScore),
  window: Schema.Struct({ sinceDays: Count, stake: Usd }),
}).annotations({ identifier: "V1TraderComparison" })
export type V1TraderComparison = typeof V1TraderComparison.Type

// The v1 backtest variants: sweep, compare, breakdown ------------------------------------------------


export const V1SweepField = Schema.Literal("priceMin", "priceMax", "minAmountUsd", "maxAmountUsd")
export type V1SweepField = typeof V1SweepField.Type
const sweepValuesMessage = `values must hold ${MIN_SWEEP_VALUES} to ${MAX_SWEEP_VALUES} numbers`

/** The criteria field on the other side of a swept bound, and whether the swept values must stay below it. */
const OPPOSITE_V1: Readonly<Record<V1SweepField, { readonly field: V1SweepField; readonly below: boolean }>> = {
  priceMin: { field: "priceMax", below: true },
  priceMax: { field: "priceMin", below: false },
  minAmountUsd: { field: "maxAmountUsd", below: true },
  maxAmountUsd: { field: "minAmountUsd", below: false },
}

/** POST /v1/backtest/sweep: the same criteria scored once per value of one bound. */
export const V1SweepRequest = Schema.Struct({
  criteria: defaultCriteria,
  stake: defaultStake,
  field: V1SweepField,
  values: Schema.Array(Schema.Number.pipe(Schema.finite(says("values must be finite numbers")))).pipe(
    Schema.minItems(MIN_SWEEP_VALUES, says(sweepValuesMessage)),
    Schema.maxItems(MAX_SWEEP_VALUES, says(sweepValuesMessage)),
  ),
}).pipe(
  Schema.filter((r) => {
    const price = r.field === "priceMin" || r.field === "priceMax"
    if (r.values.some((v) => (price ? v < 0 || v > 1 : v < 0))) {
      return { path: ["values"], message: price ? `values must be prices from 0 to 1 for ${r.field}` : `values must be at least 0 for ${r.field}` }
    }
    const opposite = OPPOSITE_V1[r.field]
    const bound = r.criteria[opposite.field]
    if (bound !== undefined && r.values.some((v) => (opposite.below ? v > bound : v < bound))) {
      return { path: ["values"], message: `values would put criteria.${r.field} ${opposite.below ? "above" : "below"} criteria.${opposite.field}` }
    }
    return true
  }),
).annotations({ ...STRICT, title: "V1SweepRequest" })
export type V1SweepRequest = typeof V1SweepRequest.Type

export const V1Sweep = Schema.Struct({
  field: V1SweepField,
  /** In the request's order. */
  results: Schema.Array(Schema.Struct({ value: Schema.Number, ...V1ScoreFields })),
  window: Schema.Struct({ sinceDays: Count, stake: Usd }),
}).annotations({ identifier: "V1Sweep" })
export type V1Sweep = typeof V1Sweep.Type

export const MIN_COMPARED_RULES = 2
export const MAX_COMPARED_RULES = 10
export const MAX_RULE_LABEL = 60
const rulesMessage = `rules must hold ${MIN_COMPARED_RULES} to ${MAX_COMPARED_RULES} rules with different labels`
const labelMessage = `label must be 1 to ${MAX_RULE_LABEL} characters`

/** POST /v1/backtest/compare: several labelled rules (criteria), each scored at the same stake. */
export const V1CompareRequest = Schema.Struct({
  rules: Schema.Array(Schema.Struct({
    label: boundedText(1, MAX_RULE_LABEL, labelMessage),
    criteria: defaultCriteria,
  }).annotations(STRICT)).pipe(
    Schema.minItems(MIN_COMPARED_RULES, says(rulesMessage)),
    Schema.maxItems(MAX_COMPARED_RULES, says(rulesMessage)),
    Schema.filter((rules) => new Set(rules.map((r) => r.label)).size === rules.length || rulesMessage),
  ),
  stake: defaultStake,
}).annotations({ ...STRICT, title: "V1CompareRequest" })
export type V1CompareRequest = typeof V1CompareRequest.Type

export const V1Comparison = Schema.Struct({
  /** In the request's order; each rule over its own `sinceDays`. */
  results: Schema.Array(Schema.Struct({ label: Schema.String, sinceDays: Count, ...V1ScoreFields })),
  stake: Usd,
}).annotations({ identifier: "V1Comparison" })
export type V1Comparison = typeof V1Comparison.Type

export const V1BreakdownBy = Schema.Literal("category", "platform", "month", "price_band")
export type V1BreakdownBy = typeof V1BreakdownBy.Type

/** POST /v1/backtest/breakdown: the criteria's score split by category, platform, month or price band. */
export const V1BreakdownRequest = Schema.Struct({
  criteria: defaultCriteria,
  stake: defaultStake,
  by: V1BreakdownBy,
}).annotations({ ...STRICT, title: "V1BreakdownRequest" })
export type V1BreakdownRequest = typeof V1BreakdownRequest.Type

export const V1Breakdown = Schema.Struct({
  by: V1BreakdownBy,
  /** Buckets with a matched trade: categories in order (`unclassified` last), platforms, months and bands ascending. */
  rows: Schema.Array(Schema.Struct({ bucket: Schema.String, ...V1ScoreFields })),
  window: Schema.Struct({ sinceDays: Count, stake: Usd }),
}).annotations({ identifier: "V1Breakdown" })
export type V1Breakdown = typeof V1Breakdown.Type

/**
 * The followed venues among v1 platform ids (`venue_e`, `venue_f`, `venue_g` name no followed feed);
 * undefined (every venue) when `platforms` is omitted or empty, as every other empty criteria list means
 * "all". Naming only venues with no followed feed matches nothing.
 */
export const followedVenues = (platforms: ReadonlyArray<Platform> | undefined): ReadonlyArray<Venue> | undefined =>
  platforms === undefined || platforms.length === 0 ? undefined : VENUES.filter((v: Venue) => platforms.includes(v))

// Strategies (save_strategy, list_strategies, get_performance; shapes not shown by the spec) ------------

export const StrategyName = boundedText(1, MAX_STRATEGY_NAME, `name must be 1 to ${MAX_STRATEGY_NAME} characters`)

/**
 * The name a strategy is saved under: also not only spaces, as a signal's keywords (a blank name names
 * nothing in a list). Checked on the way in only, so a name stored before the rule still reads back.
 */
const NewStrategyName = StrategyName.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "name must hold something other than spaces" }),
)

/** POST /v1/strategies: a named v1 rule (event criteria and a flat stake) kept to be scored again. */
export const StrategyRequest = Schema.Struct({
  name: NewStrategyName,
  criteria: defaultCriteria,
  stake: defaultStake,
}).annotations({ ...STRICT, title: "StrategyRequest" })
export type StrategyRequest = typeof StrategyRequest.Type

/** A saved strategy: the criteria as saved (defaults applied) and when. */
export const Strategy = Schema.Struct({
  id: Schema.String,
  name: StrategyName,
  criteria: V1EventCriteria,
  stake: Usd,
  createdAt: UtcTime,
}).annotations({ identifier: "Strategy" })
export type Strategy = typeof Strategy.Type

/** GET /v1/strategies/{id}/performance. */
export const StrategyPerformance = Schema.Struct({
  strategy: Strategy,
  /** Its criteria backtested over their last `sinceDays`, as POST /v1/backtest scores them now. */
  backtest: V1BacktestScore,
  /** The whale buys it matched from the moment it was saved until now: its record going forward. */
  sinceSaved: Schema.Struct({ from: UtcTime, to: UtcTime, ...V1ScoreFields }),
}).annotations({ identifier: "StrategyPerformance" })
export type StrategyPerformance = typeof StrategyPerformance.Type
