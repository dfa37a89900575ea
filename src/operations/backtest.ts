// POST /v2/backtest (spec: Backtest, Backtest score (v2), Limits): decodes the request (domain/
// backtest.ts refuses every VALIDATION case), charges a sweep's values against the per-minute limit,
// answers a repeated identical request from a 10-minute cache, and otherwise scores the in-memory
// backtest history (intel/backtest.ts). Must not query the store: the history is already in memory.
//
// Decisions (README "Backtests"):
// - A sweep of n values costs n requests in all: the request itself is one, and n − 1 more are
//   charged before anything else (a cached answer too). When they would pass the limit nothing extra
//   is charged and the answer is QUOTA_EXCEEDED.
// - The cache is shared by every account (a score holds no account data). Its key is the decoded
//   request (defaults applied; venue, category, traders and keywords sorted and without repeats);
//   an entry lives 10 minutes from when it was computed, on the Clock. Responses carry `x-cache: hit`
//   (with `age`, the entry's age in seconds) or `x-cache: miss`.
// - While the startup backfill runs (GET /healthz waits for `backfill`) a score is answered but not
//   cached: the history is still filling, and the same request a minute later must see more of it.
import { Clock, Effect, Option } from "effect"
import { BacktestRequest, BacktestScore, isSignalBacktest } from "../domain/backtest.js"
import { BacktestHistoryService, type BacktestHistory } from "../intel/backtest-store.js"
import { scoreSignal, scoreTrader } from "../intel/backtest.js"
import { Health } from "./health.js"
import { operation } from "./operation.js"

export const BACKTEST_CACHE_MS = 10 * 60_000
const CACHE_ENTRIES = 1_000

interface Cached {
  readonly at: number
  readonly score: BacktestScore
}

/** One cache per history (so a test's fresh history starts with an empty cache). */
const caches = new WeakMap<BacktestHistory, Map<string, Cached>>()
const cacheOf = (history: BacktestHistory): Map<string, Cached> => {
  let cache = caches.get(history)
  if (cache === undefined) {
    cache = new Map()
    caches.set(history, cache)
  }
  return cache
}

const sortedSet = (values: ReadonlyArray<string> | undefined): ReadonlyArray<string> | undefined =>
  values === undefined || values.length === 0 ? undefined : [...new Set(values)].sort()

/** Whether the history is complete enough to cache a score: the backfill check is ready (or absent). */
const historyComplete: Effect.Effect<boolean> = Effect.flatMap(Effect.serviceOption(Health), Option.match({
  onNone: () => Effect.succeed(true),
  onSome: (health) => Effect.map(health.report, (report) => report.checks["backfill"]?.ready ?? true),
}))

/** The cache key: the decoded request with its set-like lists in one order, keys in one order. */
export const cacheKey = (request: BacktestRequest): string => {
  if (!isSignalBacktest(request)) return JSON.stringify(["trader", request.trader, request.days, request.sizing])
  const s = request.signal
  const signal = [
    sortedSet(s.venue), sortedSet(s.category), s.minUsd, s.maxUsd, s.priceMin, s.priceMax, s.entry,
    sortedSet(s.traders), sortedSet(s.keywords),
  ]
  return JSON.stringify(["signal", signal, request.days, request.sizing, request.holdout, request.sweep ?? null, request.breakdown ?? null])
}

export const runBacktest = operation({
  name: "runBacktest", tool: "run_backtest", method: "POST", path: "/v2/backtest", scope: "read",
  summary: "Score a signal or one trader on settled whale history (holdout, sweep and breakdown for signals)",
  input: BacktestRequest, output: BacktestScore,
  run: Effect.fn("Backtests.run")(function* (request, ctx) {
    if (isSignalBacktest(request) && request.sweep !== undefined) yield* ctx.charge(request.sweep.values.length - 1)
    const history = yield* BacktestHistoryService
    const now = yield* Clock.currentTimeMillis
    const cache = cacheOf(history)
    const key = cacheKey(request)
    const hit = cache.get(key)
    if (hit !== undefined && now - hit.at < BACKTEST_CACHE_MS && now >= hit.at) {
      yield* ctx.setHeader("x-cache", "hit")
      yield* ctx.setHeader("age", String(Math.floor((now - hit.at) / 1000)))
      return hit.score
    }
    const score = isSignalBacktest(request) ? scoreSignal(history, request, now) : scoreTrader(history, request, now)
    yield* ctx.setHeader("x-cache", "miss")
    if (!(yield* historyComplete)) return score
    cache.delete(key)
    cache.set(key, { at: now, score })
    for (const [old, entry] of cache) {
      if (cache.size <= CACHE_ENTRIES && now - entry.at < BACKTEST_CACHE_MS) break
      cache.delete(old)
    }
    return score
  }),
})
