// POST /v1/backtest (tool `backtest`; spec: v1 operations, v1 resources): the v1 score of whale buys
// matching v1 event criteria over the last `sinceDays`, at a flat `stake` per trade, from the same
// in-memory backtest history as POST /v2/backtest (intel/backtest.ts, `scoreV1`). Never queries the store.
//
// Decisions where the spec is silent (README "Backtests"):
// - Only whale buys are scored (the v1 criteria have no trader field). `directions` keep their buy
//   sides (`buy_yes` = the contract's first side); sell directions match nothing. `eventTypes` keep
//   `open`, `add`, `flip` and `unknown` (a buy on a venue that names no trader); trims and closes are
//   never buys and match nothing. Criteria that can only match nothing give an all-zero score.
// - `stake` is above 0 and at most 1,000,000 (the sizing bound of the Limits table); default 100.
// - `holdout: true` adds `holdout` {splitAt, train, test, holds}: the first two thirds of the window and
//   the last third, each with the score's counts and money; `holds` when the test third's return is above 0.
// - One request like any route; not cached (POST /v2/backtest's 10-minute cache is a v2 rule).
//
// The variants (spec: "Sweep, compare and breakdown variants exist at the paths below with shapes not shown"):
// - POST /v1/backtest/sweep (tool `sweep`): `{ criteria, stake, field, values }`, field `priceMin`,
//   `priceMax`, `minAmountUsd` or `maxAmountUsd`, 2–20 values (prices 0..1, amounts ≥ 0, none crossing the
//   criteria's opposite bound); `{ field, results: [{ value, …score }], window }` in the request's order.
//   Each value counts as one request (the Limits table's sweep rule), charged before scoring.
// - POST /v1/backtest/compare (tool `compare`): `{ rules: [{ label, criteria }], stake }`, 2–10 rules with
//   different labels (1–60 characters); `{ results: [{ label, sinceDays, …score }], stake }`. Each rule
//   counts as one request, as a sweep's values do.
// - POST /v1/backtest/breakdown (tool `breakdown`): `{ criteria, stake, by }`, by `category`, `platform`,
//   `month` or `price_band`; `{ by, rows: [{ bucket, …score }], window }`, buckets with a matched trade only.
import { Clock, Effect } from "effect"
import {
  V1BacktestRequest, V1BacktestScore, V1Breakdown, V1BreakdownRequest, V1CompareRequest, V1Comparison, V1Sweep, V1SweepRequest,
} from "../domain/v1.js"
import { type BacktestHistory, BacktestHistoryService } from "../intel/backtest-store.js"
import { breakdownV1, compareV1, scoreV1, sweepV1 } from "../intel/backtest.js"
import { operation, type OperationContext } from "./operation.js"

/**
 * The handler of an operation that scores on the backtest history at the Clock's now, after charging
 * `extraRequests` more requests (a sweep's values, compared rules) against the per-minute limit.
 */
export const onHistory = <I, O>(
  name: string,
  score: (history: BacktestHistory, request: I, now: number) => O,
  extraRequests?: (request: I) => number,
) =>
  Effect.fn(name)(function* (request: I, ctx: OperationContext) {
    if (extraRequests !== undefined) yield* ctx.charge(extraRequests(request))
    const history = yield* BacktestHistoryService
    return score(history, request, yield* Clock.currentTimeMillis)
  })

export const runV1Backtest = operation({
  name: "runV1Backtest", tool: "backtest", method: "POST", path: "/v1/backtest", scope: "read",
  summary: "Score whale buys matching v1 event criteria at a flat stake (v1 backtest score)",
  input: V1BacktestRequest, output: V1BacktestScore,
  run: onHistory("V1Backtest.run", scoreV1),
})

export const sweepV1Backtest = operation({
  name: "sweepV1Backtest", tool: "sweep", method: "POST", path: "/v1/backtest/sweep", scope: "read",
  summary: "The v1 backtest once per value of one bound (2 to 20 values, each counted as a request)",
  input: V1SweepRequest, output: V1Sweep,
  run: onHistory("V1Backtest.sweep", sweepV1, (request) => request.values.length - 1),
})

export const compareV1Backtests = operation({
  name: "compareV1Backtests", tool: "compare", method: "POST", path: "/v1/backtest/compare", scope: "read",
  summary: "Several labelled v1 rules backtested side by side at one stake (each rule counted as a request)",
  input: V1CompareRequest, output: V1Comparison,
  run: onHistory("V1Backtest.compare", compareV1, (request) => request.rules.length - 1),
})

export const breakdownV1Backtest = operation({
  name: "breakdownV1Backtest", tool: "breakdown", method: "POST", path: "/v1/backtest/breakdown", scope: "read",
  summary: "The v1 backtest split by category, platform, month or price band",
  input: V1BreakdownRequest, output: V1Breakdown,
  run: onHistory("V1Backtest.breakdown", breakdownV1),
})
