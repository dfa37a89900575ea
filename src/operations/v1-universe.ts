// GET /v1/universe (tool `describe_universe`; spec: MCP tool to REST mapping): what data exists — the
// backtest history's coverage, counts, and price and size distributions (intel/universe.ts) — so an
// agent knows what a v1 query or backtest can find before it asks.
//
// Decisions where the spec is silent (README "v1 universe"):
// - The figures describe the in-memory backtest history: whale buys, and buys by named traders of any size.
// - They are recomputed at most once a minute (a pass over every row held); `generatedAt` says when.
//   The cache is shared by every account (it holds no account data).
import { Clock, Effect, Schema } from "effect"
import { V1Universe } from "../domain/v1.js"
import { BacktestHistoryService, type BacktestHistory } from "../intel/backtest-store.js"
import { describeUniverse } from "../intel/universe.js"
import { operation } from "./operation.js"

export const UNIVERSE_REFRESH_MS = 60_000

const cached = new WeakMap<BacktestHistory, { readonly at: number; readonly universe: V1Universe }>()

export const describeUniverseOperation = operation({
  name: "describeUniverse", tool: "describe_universe", method: "GET", path: "/v1/universe", scope: "read",
  summary: "What data exists: coverage, counts, and price and size distributions of the whale history",
  input: Schema.Struct({}), output: V1Universe,
  run: Effect.fn("V1Universe.describe")(function* () {
    const history = yield* BacktestHistoryService
    const now = yield* Clock.currentTimeMillis
    const known = cached.get(history)
    if (known !== undefined && now >= known.at && now - known.at < UNIVERSE_REFRESH_MS) return known.universe
    const universe = describeUniverse(history, now)
    cached.set(history, { at: now, universe })
    return universe
  }),
})
