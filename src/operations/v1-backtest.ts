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
import { Clock, Effect } from "effect"
import { V1BacktestRequest, V1BacktestScore } from "../domain/v1.js"
import { BacktestHistoryService } from "../intel/backtest-store.js"
import { scoreV1 } from "../intel/backtest.js"
import { operation } from "./operation.js"

export const runV1Backtest = operation({
  name: "runV1Backtest", tool: "backtest", method: "POST", path: "/v1/backtest", scope: "read",
  summary: "Score whale buys matching v1 event criteria at a flat stake (v1 backtest score)",
  input: V1BacktestRequest, output: V1BacktestScore,
  run: Effect.fn("V1Backtest.run")(function* (request) {
    const history = yield* BacktestHistoryService
    return scoreV1(history, request, yield* Clock.currentTimeMillis)
  }),
})
