// The bots of a running service as an Effect service: restores every bot from its stored snapshot,
// follows the OrderedFeed (live trades with the prices, settlements and series listings, in the one order
// the intel pipeline handled them: intel-bus.ts) into the BotRegistry, persists the snapshots of bots whose money or status moved from its own fiber (every
// `flushEveryMs`; the rest on shutdown), then hands their fills to the paper accounts (when the Accounts
// service runs) so trader and signal bot holdings show in GET /v2/paper. Operations persist their own
// changes at once (`persist`) before they answer. Actors never touch the database; this layer does.
import type { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, PubSub, Queue } from "effect"
import { OrderedFeed } from "../../intel/intel-bus.js"
import { webhookSink } from "../../webhooks/sink.js"
import { BotStore, type BotSave } from "../../store/bots.js"
import { Accounts } from "../accounts/registry.js"
import { Markets } from "../markets/market-bus.js"
import { BotRegistry, type BotTraded, type MarketReads } from "./registry.js"
import { settingsOf, tradeRowOf } from "./view.js"

export interface BotsService {
  readonly registry: BotRegistry
  readonly markets: MarketReads
  /** Writes the bot's snapshot (and changed trades) now; durable when it succeeds. */
  readonly persist: (id: string) => Effect.Effect<void>
  /** The trader's public name when the trader is known (seen live or stored), else null. */
  readonly trader: (ref: string) => Effect.Effect<{ readonly name: string | null } | null>
  /** Wait until what the feed changed so far is stored (tests, shutdown). */
  readonly flush: Effect.Effect<void>
}

export class Bots extends Context.Tag("whalewatch/Bots")<Bots, BotsService>() {}

export interface BotsOptions {
  /** Persist changed bots this often (default 200 ms). */
  readonly flushEveryMs?: number
}

/** Remembers which trades of each bot were saved in which state, to save only what changed. */
class SavedTrades {
  private readonly saved = new Map<string, Map<string, string>>()

  changed(save: Omit<BotSave, "trades">, trades: ReadonlyArray<import("./ledger.js").BotTrade>): BotSave {
    let known = this.saved.get(save.id)
    if (known === undefined) this.saved.set(save.id, (known = new Map()))
    const out = trades.filter((t) => known.get(t.id) !== t.status)
    for (const t of out) known.set(t.id, t.status)
    return { ...save, trades: out }
  }

  forget(id: string): void {
    this.saved.delete(id)
  }
}

export const makeBotsLayer = (options: BotsOptions = {}): Layer.Layer<Bots, never, OrderedFeed | Markets | SqlClient.SqlClient> =>
  Layer.scoped(
    Bots,
    Effect.gen(function* () {
      const markets = yield* Markets
      const accounts = yield* Effect.serviceOption(Accounts)
      const sqlContext = yield* Effect.context<SqlClient.SqlClient>()
      // Subscribed before the store is read, so events published meanwhile wait in the subscription.
      const events = yield* PubSub.subscribe(yield* OrderedFeed)
      const fills = yield* Queue.unbounded<BotTraded>()
      const reads: MarketReads = {
        info: (ref) => markets.info(ref),
        book: (ref) => markets.book(ref),
        yesPrice: (ref) => markets.yesPrice(ref),
        status: (ref) => markets.status(ref),
        openRefs: () => markets.openRefs(),
        contractsOfEvent: (ref) => markets.contractsOfEvent(ref),
      }
      const registry = new BotRegistry(reads, (event) => void fills.unsafeOffer(event))
      const saved = new SavedTrades()
      const restored = registry.restore(yield* BotStore.load)
      yield* Effect.logInfo(`bots restored: ${restored}`)
      for (const id of registry.ids()) {
        const ctx = registry.context(id)
        if (ctx !== undefined) saved.changed({ id, name: "", status: "running", settings: null, snapshot: null }, ctx.trades)
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => registry.stop()))

      const saveOf = (id: string): BotSave | null => {
        const ctx = registry.context(id)
        const status = registry.status(id)
        if (ctx === undefined || status === undefined) return null
        return saved.changed({ id, name: ctx.name, status, settings: settingsOf(ctx), snapshot: registry.persisted(id) }, ctx.trades)
      }

      /**
       * Tells the webhooks (when they run) of each trade just stored opened or closed by a bot with `alerts:
       * true` (spec: Notifications; `bot.trade` is the messaging-app half of a bot's alerts).
       */
      const sink = yield* webhookSink
      const publishTrades = (saves: ReadonlyArray<BotSave>): void => {
        if (Option.isNone(sink)) return
        const prices = (contract: string) => markets.yesPrice(contract)
        sink.value.publish(saves.flatMap((save) => {
          const ctx = registry.context(save.id)
          if (ctx === undefined || !ctx.alerts) return []
          return save.trades.map((t) => ({
            _tag: "BotTradeSaved" as const, accountId: ctx.accountId, bot: { id: save.id, name: save.name }, tradeId: t.id,
            status: t.status, at: t.closedAt ?? t.openedAt, row: tradeRowOf(t, prices),
          }))
        }))
      }

      /** Stores every dirty bot, then records the fills that went with them on the paper accounts. */
      const flushNow = Effect.uninterruptible(Effect.gen(function* () {
        const saves = registry.drainDirty().map(saveOf).filter((s): s is BotSave => s !== null)
        if (saves.length > 0) {
          // One statement for all; when it fails, each bot alone, so one snapshot the store refuses never
          // holds back the others (it stays dirty, retried next round, and is logged).
          const stored = yield* BotStore.save(saves).pipe(
            Effect.as(saves),
            Effect.catchAllCause(() =>
              Effect.map(Effect.forEach(saves, (s) =>
                BotStore.save([s]).pipe(
                  Effect.as([s]),
                  Effect.catchAllCause((cause) =>
                    Effect.zipRight(
                      Effect.sync(() => {
                        registry.dirty.add(s.id)
                        saved.forget(s.id)
                      }),
                      Effect.as(Effect.logError(`bots: persisting bot ${s.id} failed; retrying next round`, cause), []),
                    )),
                )), (each) => each.flat())),
          )
          publishTrades(stored)
        }
        const pending = yield* Queue.takeAll(fills)
        if (Option.isSome(accounts)) {
          for (const f of pending) {
            yield* accounts.value.recordBotFill(f.accountId, {
              bot: { id: f.botId, name: registry.context(f.botId)?.name ?? f.botId },
              market: f.market.contract, outcome: f.outcome, fill: f.fill, at: f.at,
            }).pipe(Effect.catchAllCause((cause) => Effect.logError("bots: recording a fill on the paper account failed", cause)))
          }
        }
      })).pipe(Effect.provide(sqlContext))

      yield* Effect.addFinalizer(() => flushNow)
      yield* Effect.forkScoped(Effect.forever(
        // One chunk is one delivery: each bot gets its trades of the chunk as one command.
        Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) => Effect.sync(() => registry.deliver(chunk))),
      ))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(options.flushEveryMs ?? 200)), flushNow)))

      const service: BotsService = {
        registry,
        markets: reads,
        // Its trades are published once stored, as the flush does (a market bot's buy at creation included).
        // A write that fails leaves the bot dirty, so the flush stores the change when the store answers
        // again: memory and store converge whatever the caller does with the failure.
        persist: (id) =>
          Effect.suspend(() => {
            registry.dirty.delete(id)
            const s = saveOf(id)
            if (s === null) return Effect.void
            return BotStore.save([s]).pipe(
              Effect.tap(() => Effect.sync(() => publishTrades([s]))),
              Effect.tapErrorCause(() => Effect.sync(() => {
                registry.dirty.add(id)
                saved.forget(id)
              })),
            )
          }).pipe(Effect.provide(sqlContext)),
        trader: (ref) => BotStore.trader(ref).pipe(Effect.provide(sqlContext)),
        flush: flushNow,
      }
      return service
    }),
  )

/** Bots of a running service: needs OrderedFeed, Markets and SqlClient (Accounts when present). */
export const BotsLive = makeBotsLayer()
