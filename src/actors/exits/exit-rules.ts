// The exit rules' watcher: every armed rule in memory by contract, fed the OrderedFeed's prices and
// market endings on feed time. A rule fires at the first price of its side at or below `stopLoss`, at or
// above `takeProfit`, or `trailingStop` points or more below the highest price seen since it was armed;
// it then sells the account's whole hand-held position on that side as a paper order (the same pricing
// as POST /v2/paper-orders: the live bids, the venue's taker fee), filled at the price event's feed time,
// durable before the rule is marked `executed`. Nothing held by hand any more: `cancelled`. No bid to
// sell into: it stays armed and tries again at the next price that fires it. The market settling or
// being voided first: `cancelled` (the position settles). Rebuilt on start from the armed rules; the
// trailing high restarts from the first price seen after a restart.
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer, PubSub, Queue } from "effect"
import { holdingKey } from "../accounts/account.machine.js"
import { Accounts } from "../accounts/registry.js"
import { Markets } from "../markets/market-bus.js"
import { OrderedFeed, type OrderedEvent } from "../../intel/intel-bus.js"
import type { PaperSell } from "../../domain/paper.js"
import { prepareOrder } from "../../operations/paper-orders.js"
import { type ExitOutcome, ExitRulesStore, type StoredExitRule } from "../../store/exit-rules.js"
import { sidePrice } from "../alerts/market-alerts.js"
import { ByContract } from "../by-contract.js"

export type ExitReason = "stopLoss" | "takeProfit" | "trailingStop"

/** Which level `price` reaches, given the highest price seen (`high`); null when none. */
export const exitReason = (rule: Pick<StoredExitRule, "stopLoss" | "takeProfit" | "trailingStop">, price: number, high: number): ExitReason | null => {
  if (rule.stopLoss !== null && price <= rule.stopLoss + 1e-9) return "stopLoss"
  if (rule.takeProfit !== null && price >= rule.takeProfit - 1e-9) return "takeProfit"
  if (rule.trailingStop !== null && price <= high - rule.trailingStop + 1e-9) return "trailingStop"
  return null
}

interface Watched {
  readonly rule: StoredExitRule
  /** Highest price of the side seen since armed (or restored). */
  high: number
}

/** What one feed event asks of the rules: a sale to try, or an end. */
export type ExitStep =
  | { readonly _tag: "Sell"; readonly rule: StoredExitRule; readonly at: number; readonly price: number; readonly reason: ExitReason }
  | { readonly _tag: "End"; readonly rule: StoredExitRule; readonly at: number; readonly reason: string }

/** Armed rules by contract; `apply` says what one feed event fires. */
export class ExitWatch {
  private readonly armed = new ByContract<Watched>()

  arm(rule: StoredExitRule, high = -Infinity): void {
    this.armed.add(rule.market, rule.id, { rule, high })
  }

  disarm(ref: string, id: string): void {
    this.armed.remove(ref, id)
  }

  get size(): number {
    return this.armed.size
  }

  apply(event: OrderedEvent, out: Array<ExitStep>): void {
    if (event._tag !== "PriceChanged" && event._tag !== "MarketSettled" && event._tag !== "MarketVoided") return
    const armed = this.armed.on(event.ref)
    if (armed === undefined) return
    for (const watched of armed.values()) {
      const { rule } = watched
      if (event._tag !== "PriceChanged") {
        out.push({ _tag: "End", rule, at: event.ts, reason: event._tag === "MarketSettled" ? "market settled" : "market voided" })
      } else {
        const price = sidePrice(event.yesPrice, rule.side)
        watched.high = Math.max(watched.high, price)
        const reason = exitReason(rule, price, watched.high)
        if (reason === null) continue
        out.push({ _tag: "Sell", rule, at: event.ts, price, reason })
      }
      armed.delete(rule.id)
    }
    this.armed.prune(event.ref)
  }
}

export interface ExitRulesService {
  readonly arm: (rule: StoredExitRule) => void
  readonly disarm: (ref: string, id: string) => void
}

export class ExitRules extends Context.Tag("whalewatch/ExitRules")<ExitRules, ExitRulesService>() {}

export const ExitRulesLive: Layer.Layer<ExitRules, never, OrderedFeed | Markets | Accounts | SqlClient.SqlClient> = Layer.scoped(
  ExitRules,
  Effect.gen(function* () {
    const sqlContext = yield* Effect.context<SqlClient.SqlClient>()
    const markets = yield* Markets
    const accounts = yield* Accounts
    // Subscribed before the store is read, so events published meanwhile wait in the subscription.
    const events = yield* PubSub.subscribe(yield* OrderedFeed)
    const watch = new ExitWatch()
    for (const rule of yield* ExitRulesStore.armed) watch.arm(rule)

    /** Tries one step; how the rule ended, or null when it stays armed (re-armed here). */
    const attempt = (step: ExitStep): Effect.Effect<ExitOutcome | null> => {
      const { rule } = step
      if (step._tag === "End") return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: step.reason, orderId: null })
      const held = accounts.context(rule.accountId).holdings[holdingKey(rule.market, rule.outcome, "hand", null)]
      if (held === undefined || held.status !== "open" || held.contracts <= 0) {
        return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: "nothing held by hand", orderId: null })
      }
      const info = markets.info(rule.market)
      const side = info?.sides.find((s) => s.name === rule.outcome)
      if (info === null || side === undefined) {
        return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: "market unknown", orderId: null })
      }
      const sale = { market: rule.market as PaperSell["market"], outcome: rule.outcome, action: "sell" as const, contracts: "all" as const }
      return Effect.exit(accounts.commit(rule.accountId, prepareOrder(markets, info, side, sale, null, ""), step.at)).pipe(
        Effect.map((exit): ExitOutcome | null => {
          if (Exit.isSuccess(exit) && exit.value !== null) {
            return { id: rule.id, status: "executed", at: step.at, reason: step.reason, orderId: exit.value.order.id }
          }
          watch.arm(rule, step.price) // nothing fills now (no bid, market not open): the next price that fires tries again
          return null
        }),
      )
    }

    yield* Effect.forkScoped(Effect.forever(
      Effect.gen(function* () {
        const chunk = yield* Queue.takeBetween(events, 1, 4_096)
        const steps: Array<ExitStep> = []
        for (const event of chunk) watch.apply(event, steps)
        if (steps.length === 0) return
        const outcomes: Array<ExitOutcome> = []
        for (const step of steps) {
          const outcome = yield* attempt(step)
          if (outcome !== null) outcomes.push(outcome)
        }
        yield* ExitRulesStore.finish(outcomes).pipe(
          Effect.provide(sqlContext),
          Effect.catchAllCause((cause) => Effect.logError("exit rules: recording how rules ended failed", cause)),
        )
      }),
    ))
    yield* Effect.logInfo(`exit rules armed: ${watch.size}`)
    return { arm: (rule) => watch.arm(rule), disarm: (ref, id) => watch.disarm(ref, id) }
  }),
)
