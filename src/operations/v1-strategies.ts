// Saved strategies (spec: v1 operations, tools save_strategy, list_strategies, get_performance; shapes
// not shown): a named v1 rule (event criteria and a flat stake, as POST /v1/backtest takes them) kept in
// the store and scored again on demand, on the same in-memory backtest history as POST /v1/backtest.
//
// Decisions where the spec is silent (README "Strategies"):
// - POST /v1/strategies (write) answers 201 with the strategy `{ id, name, criteria, stake, createdAt }`,
//   criteria with their defaults applied (sinceDays 90), stake 100 by default. Names are 1 to 60
//   characters, not only spaces, and unique per account (a second strategy with a name in use is
//   VALIDATION). At most 50 strategies per account (the 51st is VALIDATION; deleting one frees its place).
// - GET /v1/strategies (read) lists them oldest first, not paged (at most 50).
// - GET /v1/strategies/{id}/performance (read): `backtest`, the v1 score of its criteria over their last
//   `sinceDays` now, and `sinceSaved`, the same counts and money over the whale buys made from its
//   `createdAt` until now: how it has done since it was saved.
// - DELETE /v1/strategies/{id} (write; tool `delete_strategy`, not in the spec's table) removes one.
// - Another account's strategy is the same NOT_FOUND as a missing one.
import { Clock, Effect, Schema } from "effect"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_STRATEGIES, STRICT } from "../domain/limits.js"
import { Strategy, StrategyPerformance, StrategyRequest, V1EventCriteria } from "../domain/v1.js"
import { BacktestHistoryService } from "../intel/backtest-store.js"
import { scoreV1, scoreV1Between } from "../intel/backtest.js"
import { Strategies, type StoredStrategy } from "../store/strategies.js"
import { operation } from "./operation.js"
import { isoOf } from "../intel/rows.js"


const decodeCriteria = Schema.decodeUnknown(V1EventCriteria)

/** The stored row as the Strategy resource (its criteria decoded again: they were stored decoded). */
const strategyOf = (stored: StoredStrategy): Effect.Effect<Strategy> =>
  Effect.map(decodeCriteria(stored.criteria).pipe(Effect.orDie), (criteria) => ({
    id: stored.id, name: stored.name, criteria, stake: stored.stake, createdAt: isoOf(stored.createdAt),
  }))

const StrategyId = Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(100)) }).annotations(STRICT)

const found = (accountId: string, id: string) =>
  Effect.flatMap(Strategies.get(accountId, id), (stored) =>
    stored === null ? Effect.fail(new NotFound({ error: `No strategy has id ${quoted(id)}` })) : Effect.succeed(stored))

export const saveStrategy = operation({
  name: "saveStrategy", tool: "save_strategy", method: "POST", path: "/v1/strategies", scope: "write", status: 201,
  summary: "Save a named v1 rule (event criteria and a flat stake) to score again later",
  input: StrategyRequest, output: Strategy,
  run: Effect.fn("Strategies.save")(function* (request, ctx) {
    const saved = yield* Strategies.save({
      accountId: ctx.principal.accountId, name: request.name, criteria: Schema.encodeSync(V1EventCriteria)(request.criteria),
      stake: request.stake, createdAt: yield* Clock.currentTimeMillis, max: MAX_STRATEGIES,
    })
    if (saved._tag === "Duplicate") return yield* new Validation({ error: `name: a strategy named ${request.name} already exists` })
    if (saved._tag === "Limit") return yield* new Validation({ error: `at most ${MAX_STRATEGIES} strategies per account` })
    return yield* strategyOf(saved.strategy)
  }),
})

export const listStrategies = operation({
  name: "listStrategies", tool: "list_strategies", method: "GET", path: "/v1/strategies", scope: "read",
  summary: "The account's saved strategies, oldest first",
  input: Schema.Struct({}).annotations(STRICT), output: Schema.Array(Strategy),
  run: (_input, ctx) => Effect.flatMap(Strategies.list(ctx.principal.accountId), Effect.forEach(strategyOf)),
})

export const getStrategyPerformance = operation({
  name: "getStrategyPerformance", tool: "get_performance", method: "GET", path: "/v1/strategies/:id/performance", scope: "read",
  summary: "A saved strategy's backtest now and its record since it was saved",
  input: StrategyId, output: StrategyPerformance,
  run: Effect.fn("Strategies.performance")(function* (input, ctx) {
    const stored = yield* found(ctx.principal.accountId, input.id)
    const strategy = yield* strategyOf(stored)
    const history = yield* BacktestHistoryService
    const now = yield* Clock.currentTimeMillis
    const from = Math.min(stored.createdAt, now)
    return {
      strategy,
      backtest: scoreV1(history, { criteria: strategy.criteria, stake: strategy.stake }, now),
      sinceSaved: { from: isoOf(from), to: isoOf(now), ...scoreV1Between(history, strategy, from, now) },
    }
  }),
})

export const deleteStrategy = operation({
  name: "deleteStrategy", tool: "delete_strategy", method: "DELETE", path: "/v1/strategies/:id", scope: "write",
  summary: "Remove a saved strategy",
  input: StrategyId, output: Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }),
  run: Effect.fn("Strategies.delete")(function* (input, ctx) {
    if (!(yield* Strategies.remove(ctx.principal.accountId, input.id))) {
      return yield* new NotFound({ error: `No strategy has id ${quoted(input.id)}` })
    }
    return { id: input.id, deleted: true as const }
  }),
})
