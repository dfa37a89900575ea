// Exit rules (spec: v1 operations, tool set_exit_rule: "stop-loss, take-profit or trailing stop on a
// position"; shape not shown). The watching and selling is actors/exits/exit-rules.ts; these handlers store
// and read.
//
// Decisions where the spec is silent (README "Exit rules"):
// - POST /v1/exits (write) `{ market, outcome, stopLoss?, takeProfit?, trailingStop? }` answers 201 with the
//   rule. It applies to the account's position held BY HAND on that side of that contract (bots manage
//   their own): none held is VALIDATION, as is a market that is not open. Levels are prices 0..1 (stopLoss
//   under takeProfit); `trailingStop` is points of price above 0 and under 1. At least one is needed.
//   Setting a rule on a position that has one replaces it (the old one is `cancelled`, reason `replaced`),
//   so a position has one armed rule at most and the rules need no limit of their own.
// - The rule sells the whole hand-held position once, as a paper order (GET /v2/paper lists it), at the
//   feed time of the price that fired it; then `executed` with `orderId` and `reason` (which level).
// - GET /v1/exits (read; tool `list_exit_rules`, not in the spec's table): newest first, paged, `armed=true`
//   for the armed ones only. DELETE /v1/exits/{id} (write; tool `delete_exit_rule`) cancels an armed rule.
import { Clock, Effect, Option, Schema } from "effect"
import { holdingKey } from "../actors/accounts/account.machine.js"
import { Accounts, marketObjectOf } from "../actors/accounts/registry.js"
import { ExitRules } from "../actors/exits/exit-rules.js"
import { Markets } from "../actors/markets/market-bus.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { ExitRule, ExitRuleRequest } from "../domain/exits.js"
import { STRICT } from "../domain/limits.js"
import { ExitRulesStore, type StoredExitRule } from "../store/exit-rules.js"
import { listing, operation } from "./operation.js"
import { paginate, PageParams } from "./paging.js"
import { BooleanParam } from "./params.js"
import { contractOf, sideOf } from "./paper-orders.js"
import { isoOf } from "../intel/rows.js"
import { sidePrice } from "../actors/alerts/market-alerts.js"


/** A rule as answered; an armed one with its live trailing high when the watcher has one. */
export const exitRuleOf = (r: StoredExitRule, exits?: ExitRules["Type"]): ExitRule => ({
  id: r.id, market: r.marketObject, outcome: r.outcome, stopLoss: r.stopLoss, takeProfit: r.takeProfit, trailingStop: r.trailingStop,
  trailHigh: r.trailingStop === null ? null : ((r.status === "armed" ? exits?.highOf(r.market, r.id) : null) ?? r.trailHigh),
  status: r.status, createdAt: isoOf(r.createdAt), doneAt: r.doneAt === null ? null : isoOf(r.doneAt), reason: r.reason, orderId: r.orderId,
})

export const setExitRule = operation({
  name: "setExitRule", tool: "set_exit_rule", method: "POST", path: "/v1/exits", scope: "write", status: 201,
  summary: "Set a stop-loss, take-profit or trailing stop that sells a position held by hand once, on paper",
  input: ExitRuleRequest, output: ExitRule,
  run: Effect.fn("ExitRules.set")(function* (request, ctx) {
    const info = yield* contractOf(request.market)
    const side = sideOf(info, request.outcome)
    if (side === null) {
      return yield* new Validation({ error: `outcome must be one of ${info.sides.map((s) => s.name).join(", ")} (name or label), or yes or no` })
    }
    const status = (yield* Markets).status(info.ref)
    if (status !== "open") return yield* new Validation({ error: `market ${info.ref} is not open (${status ?? "unknown"})` })
    const accountId = ctx.principal.accountId
    const held = (yield* Accounts).context(accountId).holdings[holdingKey(info.ref, side.name, "hand", null)]
    if (held === undefined || held.status !== "open" || held.contracts <= 0) {
      return yield* new Validation({ error: `nothing held by hand on ${side.name} of ${info.ref}: an exit rule needs a position` })
    }
    const sideIndex = info.sides[0].id === side.id ? 0 : 1
    const yesPrice = request.trailingStop === undefined ? null : (yield* Markets).yesPrice(info.ref)
    const exits = yield* ExitRules
    const rule = yield* exits.inTurn(Effect.gen(function* () {
      const { rule, replaced } = yield* exits.fenced(ExitRulesStore.set({
        accountId, market: info.ref, marketObject: marketObjectOf(info), outcome: side.name, side: sideIndex,
        stopLoss: request.stopLoss ?? null, takeProfit: request.takeProfit ?? null, trailingStop: request.trailingStop ?? null,
        trailHigh: yesPrice === null ? null : sidePrice(yesPrice, sideIndex),
        createdAt: yield* Clock.currentTimeMillis,
      })).pipe(Effect.orDie)
      if (replaced !== null) exits.disarm(info.ref, replaced)
      exits.arm(rule)
      return rule
    }))
    return exitRuleOf(rule, exits)
  }),
})

const RuleKey = Schema.Tuple(Schema.Number, Schema.String)

export const listExitRules = listing({
  name: "listExitRules", tool: "list_exit_rules", method: "GET", path: "/v1/exits", scope: "read",
  summary: "The account's exit rules, newest first (armed=true: the armed ones only)",
  input: Schema.Struct({ armed: Schema.optional(BooleanParam("armed")), ...PageParams }),
  row: ExitRule,
  run: Effect.fn("ExitRules.list")(function* (input, ctx) {
    const page = yield* paginate({
      listing: "listExitRules", input, ctx, key: RuleKey,
      keyOf: (r: StoredExitRule) => [r.createdAt, r.id] as const,
      fetch: (after, take) => ExitRulesStore.list({
        accountId: ctx.principal.accountId, armedOnly: input.armed === true, after: Option.getOrNull(after), take,
      }),
    })
    const exits = yield* ExitRules
    return { data: page.data.map((r) => exitRuleOf(r, exits)), nextCursor: page.nextCursor }
  }),
})

export const deleteExitRule = operation({
  name: "deleteExitRule", tool: "delete_exit_rule", method: "DELETE", path: "/v1/exits/:id", scope: "write",
  summary: "Cancel an armed exit rule",
  input: Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(100)) }).annotations(STRICT), output: ExitRule,
  run: Effect.fn("ExitRules.delete")(function* (input, ctx) {
    const exits = yield* ExitRules
    const cancelled = yield* exits.fenced(ExitRulesStore.cancel(ctx.principal.accountId, input.id, yield* Clock.currentTimeMillis)).pipe(Effect.orDie)
    if (cancelled === null) return yield* new NotFound({ error: `No armed exit rule has id ${quoted(input.id)}` })
    exits.disarm(cancelled.market, cancelled.id)
    return exitRuleOf(cancelled)
  }),
})
