// The exit rules' watcher: every armed rule in memory by contract, fed the OrderedFeed's prices and
// market endings on feed time. A rule fires at the first price of its side at or below `stopLoss`, at or
// above `takeProfit`, or `trailingStop` points or more below the highest price seen since it was armed;
// it then sells the account's whole hand-held position on that side as a paper order (the same pricing
// as POST /v2/paper-orders: the bids, here as of the price event (the book it carries: the rules watch
// their contracts' books, MarketsService.watchBooks), the venue's taker fee), filled at its feed time,
// durable before the rule is marked `executed`. Nothing held by hand any more: `cancelled`. No bid to
// sell into: it stays armed and tries again at the next price that fires it. The market settling or
// being voided first: `cancelled` (the position settles).
// Restarts: the armed rules are re-armed from the store, each trailing one from its stored high (written
// at most HIGHS_EVERY behind). The sale carries the Idempotency-Key `exit:<rule id>:<level>`, so a rule
// sells once even across a crash, and a rule the crash left armed after its sale was recorded is marked
// `executed` from the ledger before the others are armed.
import type { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Exit, Layer, PubSub, Queue, Schedule } from "effect"
import { holdingKey } from "../accounts/account.machine.js"
import { Accounts } from "../accounts/registry.js"
import { Markets } from "../markets/market-bus.js"
import { OrderedFeed, type OrderedEvent } from "../../intel/intel-bus.js"
import { replayFromMark } from "../../intel/recent-feed.js"
import type { BookView } from "../../domain/market-events.js"
import type { PaperSell } from "../../domain/paper.js"
import { Validation } from "../../domain/errors.js"
import { prepareOrder } from "../../operations/paper-orders.js"
import { type ExitOutcome, ExitRulesStore, saleKeyOf, type StoredExitRule } from "../../store/exit-rules.js"
import { sidePrice } from "../alerts/market-alerts.js"
import { ByContract } from "../by-contract.js"
import { type Fenced, fencedTransaction } from "../write-fence.js"

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
  | {
    readonly _tag: "Sell"
    readonly rule: StoredExitRule
    readonly at: number
    readonly price: number
    readonly reason: ExitReason
    /** The highest price seen, this one included (a rule that cannot sell now is re-armed with it). */
    readonly high: number
    /** The book as of the price event, when it carried one (else the sale takes the current book). */
    readonly book?: BookView | undefined
    /** Whether the market was open at that point of the feed (the market actors may be past its close). */
    readonly open: boolean
  }
  | { readonly _tag: "End"; readonly rule: StoredExitRule; readonly at: number; readonly reason: string; readonly high: number }

/** Armed rules by contract; `apply` says what one feed event fires. */
export class ExitWatch {
  private readonly armed = new ByContract<Watched>()
  /** Trailing rules whose high rose since `takeHighs`. */
  private readonly risen = new Map<string, Watched>()
  /** Contracts whose close the feed brought, until they settle or are voided. */
  private readonly closed = new Set<string>()

  /** Arms a rule; a trailing one from `high` (default: its stored high, else the first price it sees). */
  arm(rule: StoredExitRule, high = rule.trailHigh ?? -Infinity): void {
    this.armed.add(rule.market, rule.id, { rule, high })
  }

  /** The market of `ref` is closed (at arming: a restart, or a rule set on a closed market); its sales cannot fill. */
  markClosed(ref: string): void {
    this.closed.add(ref)
  }

  disarm(ref: string, id: string): void {
    this.armed.remove(ref, id)
    this.risen.delete(id)
  }

  /** The high an armed rule's trail is measured from now, or null (not armed here, or no price seen yet). */
  highOf(ref: string, id: string): number | null {
    const high = this.armed.on(ref)?.get(id)?.high
    return high === undefined || high === -Infinity ? null : high
  }

  /** The highs of the armed trailing rules that rose since the last call. */
  takeHighs(): Array<{ readonly id: string; readonly high: number }> {
    const highs = [...this.risen.values()].map((w) => ({ id: w.rule.id, high: w.high }))
    this.risen.clear()
    return highs
  }

  get size(): number {
    return this.armed.size
  }

  /** Whether a rule is armed on `ref`. */
  watches(ref: string): boolean {
    return this.armed.on(ref) !== undefined
  }

  apply(event: OrderedEvent, out: Array<ExitStep>): void {
    if (event._tag === "MarketClosed") {
      // Every close (not only of contracts with a rule armed now): a rule that fired and could not sell is
      // re-armed later, and a late print after the close must not sell it.
      this.closed.add(event.ref)
      return
    }
    if (event._tag !== "PriceChanged" && event._tag !== "MarketSettled" && event._tag !== "MarketVoided") return
    if (event._tag !== "PriceChanged") this.closed.delete(event.ref)
    const armed = this.armed.on(event.ref)
    if (armed === undefined) return
    for (const watched of armed.values()) {
      const { rule } = watched
      if (event._tag !== "PriceChanged") {
        out.push({ _tag: "End", rule, at: event.ts, reason: event._tag === "MarketSettled" ? "market settled" : "market voided", high: watched.high })
      } else {
        const price = sidePrice(event.yesPrice, rule.side)
        if (price > watched.high) {
          watched.high = price
          if (rule.trailingStop !== null) this.risen.set(rule.id, watched)
        }
        const reason = exitReason(rule, price, watched.high)
        if (reason === null) continue
        out.push({ _tag: "Sell", rule, at: event.ts, price, reason, high: watched.high, book: event.book, open: !this.closed.has(event.ref) })
      }
      armed.delete(rule.id)
      this.risen.delete(rule.id)
    }
    this.armed.prune(event.ref)
  }
}

/** How far behind the stored trailing highs may be. */
export const HIGHS_EVERY = Duration.seconds(1)

export interface ExitRulesService {
  /**
   * Runs `change` (a rule's store write, then its arm and disarm here) when no other change is running:
   * two rules set at once on one position are stored and armed in the same order, so the one the store
   * keeps armed is the one armed here.
   */
  readonly inTurn: <A, E, R>(change: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly arm: (rule: StoredExitRule) => void
  readonly disarm: (ref: string, id: string) => void
  /** The live high of an armed rule (the store's may be up to HIGHS_EVERY behind). */
  readonly highOf: (ref: string, id: string) => number | null
  /**
   * A write of this actor's state made by an operation (creating, changing or deleting one), in a
   * transaction fenced as the actor's own writes are (src/actors/write-fence.ts).
   */
  readonly fenced: Fenced
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
    // Where nodes share a lease, rules are written only as its holder (write-fence.ts); a refused write is
    // logged like a failed one (a sale is fenced as the paper order it is).
    const fenced = yield* fencedTransaction
    // Rules a crash left armed after their sale was recorded end `executed` first; the rest are armed.
    yield* ExitRulesStore.finish(yield* ExitRulesStore.soldOnLedger)
    /** Arms a rule, knowing its market closed when it is (a close the feed brought before is not brought again). */
    const arm = (rule: StoredExitRule): void => {
      watch.arm(rule)
      if (markets.status(rule.market) === "closed") watch.markClosed(rule.market)
    }
    // Where nodes share the lease and a holder stored the bots' feed mark, the rules restored are given what
    // this node's recent feed kept after it (below): the prices that came while no node watched them. A
    // rule still armed in the store did not sell (one whose sale was recorded ended `executed` just above);
    // its trail goes on from its stored high.
    const caught = yield* replayFromMark
    for (const rule of yield* ExitRulesStore.armed) arm(rule)
    const unwatch = markets.watchBooks((event) => event._tag === "PriceChanged" && watch.watches(event.ref))
    yield* Effect.addFinalizer(() => Effect.sync(unwatch))

    /** Tries one step; how the rule ended, or null when it stays armed (re-armed here). */
    const attempt = (step: ExitStep): Effect.Effect<ExitOutcome | null> => {
      const { rule } = step
      // The high the rule ended with: the store's is written only every HIGHS_EVERY.
      const high = step.high === -Infinity ? null : step.high
      if (step._tag === "End") return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: step.reason, orderId: null, high })
      const held = accounts.context(rule.accountId).holdings[holdingKey(rule.market, rule.outcome, "hand", null)]
      if (held === undefined || held.status !== "open" || held.contracts <= 0) {
        return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: "nothing held by hand", orderId: null, high })
      }
      const info = markets.info(rule.market)
      const side = info?.sides.find((s) => s.name === rule.outcome)
      if (info === null || side === undefined) {
        return Effect.succeed({ id: rule.id, status: "cancelled", at: step.at, reason: "market unknown", orderId: null, high })
      }
      const sale = { market: rule.market as PaperSell["market"], outcome: rule.outcome, action: "sell" as const, contracts: "all" as const }
      const priced = prepareOrder(markets, info, side, sale, saleKeyOf(rule.id, step.reason), "exit rule", { book: step.book, open: step.open })
      // All or nothing, as a bot's sale: bids too thin for the whole hand-held position sell none of it,
      // and the rule stays armed for the next price that fires.
      const prepared: typeof priced = (context) => {
        const made = priced(context)
        return Exit.isSuccess(made) && made.value.fill.unfilledContracts > 0
          ? Exit.fail(new Validation({ error: "the bids do not take the whole position" }))
          : made
      }
      return Effect.exit(accounts.commit(rule.accountId, prepared, step.at)).pipe(
        Effect.map((exit): ExitOutcome | null => {
          if (Exit.isSuccess(exit) && exit.value !== null) {
            return { id: rule.id, status: "executed", at: step.at, reason: step.reason, orderId: exit.value.order.id, high }
          }
          watch.arm(rule, step.high) // nothing fills now (no bid or too few, market not open): the next price that fires tries again
          return null
        }),
      )
    }

    /** What a run of feed events fires: each sale tried, then how the rules ended, stored. */
    const handle = (chunk: Iterable<OrderedEvent>) =>
      Effect.gen(function* () {
        const steps: Array<ExitStep> = []
        for (const event of chunk) watch.apply(event, steps)
        if (steps.length === 0) return
        const outcomes: Array<ExitOutcome> = []
        for (const step of steps) {
          const outcome = yield* attempt(step)
          if (outcome !== null) outcomes.push(outcome)
        }
        yield* fenced(ExitRulesStore.finish(outcomes)).pipe(
          Effect.provide(sqlContext),
          Effect.catchAllCause((cause) => Effect.logError("exit rules: recording how rules ended failed", cause)),
        )
      })
    if (caught !== null) {
      yield* handle(caught.missed)
      yield* Effect.logInfo(`exit rules: caught up on ${caught.missed.length} events of the recent feed after the bots' last stored flush`)
    }
    yield* Effect.forkScoped(Effect.forever(
      Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) => handle(caught === null ? chunk : caught.replay.live(chunk))),
    ))
    yield* Effect.forkScoped(Effect.repeat(
      fenced(Effect.suspend(() => ExitRulesStore.saveHighs(watch.takeHighs()))).pipe(
        Effect.provide(sqlContext),
        Effect.catchAllCause((cause) => Effect.logError("exit rules: storing trailing highs failed", cause)),
      ),
      Schedule.spaced(HIGHS_EVERY),
    ))
    yield* Effect.logInfo(`exit rules armed: ${watch.size}`)
    const turn = yield* Effect.makeSemaphore(1)
    return {
      inTurn: (change) => turn.withPermits(1)(change),
      arm, disarm: (ref, id) => watch.disarm(ref, id), highOf: (ref, id) => watch.highOf(ref, id), fenced,
    }
  }),
)
