// The bots of a running service as an Effect service: restores every bot from its stored snapshot,
// follows the OrderedFeed (live trades with the prices, settlements and series listings, in the one order
// the intel pipeline handled them: intel-bus.ts) into the BotRegistry, persists the snapshots of bots whose money or status moved from its own fiber (every
// `flushEveryMs`; the rest on shutdown), then hands their fills to the paper accounts (when the Accounts
// service runs) so trader and signal bot holdings show in GET /v2/paper. Operations persist their own
// changes at once (`persist`) before they answer. Actors never touch the database; this layer does.
// A fill is stored in the outbox in the same transaction as the bot that made it, and recorded on the
// account with the outbox id: a crash between the two leaves the fill in the outbox, recorded at the next
// start (src/store/bot-fills.ts), so a bot's trades and its account never disagree.
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Cause, Clock, Context, Duration, Effect, Exit, Layer, Option, PubSub, Queue } from "effect"
import { OrderedFeed } from "../../intel/intel-bus.js"
import { type FeedMarks, type Replay, replayOf } from "../../intel/recent-feed.js"
import { type Fenced, fencedTransaction } from "../write-fence.js"
import { webhookSink } from "../../webhooks/sink.js"
import { BotFills, type OutboxFill } from "../../store/bot-fills.js"
import { FeedMark } from "../../store/feed-marks.js"
import { BotStore, type BotSave, type StoredBotRow } from "../../store/bots.js"
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
  /**
   * A write of this actor's state made by an operation (creating, changing or deleting one), in a
   * transaction fenced as the actor's own writes are (src/actors/write-fence.ts).
   */
  readonly fenced: Fenced
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
    return { ...save, trades: this.unsaved(save.id, trades) }
  }

  /** The trades not saved in their state yet, taken as saved from now on. */
  unsaved(id: string, trades: ReadonlyArray<import("./ledger.js").BotTrade>): Array<import("./ledger.js").BotTrade> {
    let known = this.saved.get(id)
    if (known === undefined) this.saved.set(id, (known = new Map()))
    const out = trades.filter((t) => known.get(t.id) !== t.status)
    for (const t of out) known.set(t.id, t.status)
    return out
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
      /**
       * Fills the bots made, not yet in the outbox (taken synchronously with the dirty bots they go with);
       * none without accounts (nothing would ever record them).
       */
      const fills: Array<OutboxFill> = []
      /** Fills durable in the outbox, not yet paper orders. */
      const outboxed: Array<OutboxFill> = []
      const reads: MarketReads = {
        info: (ref) => markets.info(ref),
        book: (ref) => markets.book(ref),
        yesPrice: (ref) => markets.yesPrice(ref),
        status: (ref) => markets.status(ref),
        openRefs: () => markets.openRefs(),
        contractsOfEvent: (ref) => markets.contractsOfEvent(ref),
        requestBook: (ref) => markets.requestBook(ref),
      }
      const registry = new BotRegistry(reads, (event) => {
        if (Option.isSome(accounts)) fills.push(outboxOf(event))
      })
      const saved = new SavedTrades()
      const stored = yield* BotStore.load
      const restored = registry.restore(stored)
      yield* Effect.logInfo(`bots restored: ${restored}`)
      for (const id of registry.ids()) {
        const ctx = registry.context(id)
        if (ctx !== undefined) saved.unsaved(id, ctx.trades)
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => registry.stop()))
      // The trades and prices bots fill on come with their book as of the feed (registry.ts).
      const unwatch = markets.watchBooks((event) => registry.wantsBook(event))
      yield* Effect.addFinalizer(() => Effect.sync(unwatch))
      /** The recent feed, where nodes share the lease: the bots catch up from it, and the flush stores marks. */
      const replay = yield* replayOf
      /** The catch-up when there was one: the live loop takes off what it gave the bots already. */
      const replayed = replay !== null && (yield* catchUp(registry, stored, replay)) ? replay : null

      const saveOf = (id: string, through = registry.through()): BotSave | null => {
        const ctx = registry.context(id)
        const status = registry.status(id)
        if (ctx === undefined || status === undefined) return null
        return saved.changed({ id, name: ctx.name, status, settings: settingsOf(ctx), snapshot: registry.persisted(id), through }, ctx.trades)
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

      /** A fill as the outbox keeps it. */
      function outboxOf(f: BotTraded): OutboxFill {
        return {
          id: randomUUID(), accountId: f.accountId,
          fill: {
            bot: { id: f.botId, name: registry.context(f.botId)?.name ?? f.botId },
            market: f.market.contract, outcome: f.outcome, fill: f.fill, at: f.at,
          },
        }
      }
      const takeFills = (botId?: string): Array<OutboxFill> => {
        if (botId === undefined) return fills.splice(0)
        const mine = fills.filter((f) => f.fill.bot.id === botId)
        if (mine.length > 0) fills.splice(0, fills.length, ...fills.filter((f) => f.fill.bot.id !== botId))
        return mine
      }

      /** Records outboxed fills on the paper accounts, in order; one that fails stays in the outbox for the next start. */
      const recordOutboxed = Effect.gen(function* () {
        if (Option.isNone(accounts) || outboxed.length === 0) return
        const recorded: Array<string> = []
        for (const f of outboxed.splice(0)) {
          const ok = yield* accounts.value.recordBotFill(f.accountId, { ...f.fill, fillId: f.id }).pipe(
            Effect.as(true),
            Effect.catchAllCause((cause) => Effect.as(Effect.logError("bots: recording a fill on the paper account failed (kept for the next start)", cause), false)),
          )
          if (ok) recorded.push(f.id)
        }
        if (recorded.length > 0) yield* BotFills.done(recorded)
      })

      /**
       * Bot writes (the flush's and `persist`'s) take turns, and each takes its snapshots once its turn has
       * come: two writes of one bot on two pool connections could otherwise commit in the other order, and
       * an older snapshot would be what the store keeps and a restart brings back (two PATCHes at once did
       * that on PostgreSQL). The store always ends with the newest state.
       */
      const writes = yield* Effect.makeSemaphore(1)
      // Where nodes share a lease, bots are written only as its holder (write-fence.ts): every write is a
      // transaction that holds the lease at this node's epoch first.
      const fenced = yield* fencedTransaction

      /**
       * The feed the bots had been given at the flush last stored, when catching up (`catchUp`): stored with
       * the flush, or alone once a second while none of them changes (when the feed moved).
       */
      const lastMark = { json: "", at: Number.NEGATIVE_INFINITY }
      const storeMark = (mark: FeedMarks | null) =>
        mark === null ? Effect.void : Effect.zipRight(FeedMark.write(mark), Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => {
          lastMark.json = JSON.stringify(mark)
          lastMark.at = at
        })))

      /** Every dirty bot with its fills, in one transaction (each bot alone when that fails). */
      const storeDirty = Effect.gen(function* () {
        // Taken in one synchronous step: every fill taken belongs to a bot state saved with it, and the mark
        // is the feed every bot not saved had been given unchanged since it was last stored.
        const through = registry.through()
        const saves = registry.drainDirty().map((id) => saveOf(id, through)).filter((s): s is BotSave => s !== null)
        const taken = takeFills()
        const mark = replay !== null ? through : null
        if (saves.length === 0 && taken.length === 0) {
          if (mark === null || JSON.stringify(mark) === lastMark.json || (yield* Clock.currentTimeMillis) - lastMark.at < MARK_EVERY_MS) return
          return yield* fenced(storeMark(mark)).pipe(Effect.catchAllCause((cause) => Effect.logWarning("bots: storing the feed mark failed", cause)))
        }
        /** Not written: kept dirty with their fills, for the next round. */
        const keep = (these: ReadonlyArray<BotSave>) => {
          for (const s of these) {
            registry.dirty.add(s.id)
            saved.forget(s.id)
          }
        }
        // One transaction for all; when it fails, each bot alone, so one snapshot the store refuses never
        // holds back the others (it stays dirty, retried next round, and is logged), then the fills.
        // Refused by the fence, nothing is written at all (none of it was acknowledged; the node that takes
        // over restores what is stored).
        // The mark only with all of them: a bot left dirty has not stored what that feed did to it.
        const together = yield* Effect.exit(fenced(Effect.zipRight(BotStore.save(saves), Effect.zipRight(BotFills.insert(taken), storeMark(mark)))))
        if (Exit.isFailure(together) && Cause.failureOption(together.cause).pipe(Option.exists((e) => e._tag === "LeaseLost"))) {
          keep(saves)
          fills.unshift(...taken)
          return yield* Effect.logWarning("bots: not written, this node may no longer write them", together.cause)
        }
        const stored = Exit.isSuccess(together) ? saves : yield* Effect.map(Effect.forEach(saves, (s) =>
          fenced(BotStore.save([s])).pipe(
            Effect.as([s]),
            Effect.catchAllCause((cause) =>
              Effect.zipRight(
                Effect.sync(() => keep([s])),
                Effect.as(Effect.logError(`bots: persisting bot ${s.id} failed; retrying next round`, cause), []),
              )),
          )), (each) => each.flat()).pipe(
          Effect.zipLeft(fenced(BotFills.insert(taken)).pipe(
            Effect.catchAllCause((cause) => Effect.logError("bots: storing fills in the outbox failed; recording them anyway", cause)),
          )),
        )
        outboxed.push(...taken)
        publishTrades(stored)
      })

      /** Stores every dirty bot with its fills (one transaction), then records the fills on the paper accounts. */
      const flushNow = Effect.uninterruptible(Effect.gen(function* () {
        yield* writes.withPermits(1)(storeDirty)
        yield* recordOutboxed
      })).pipe(Effect.provide(sqlContext))

      // What a crash left between a bot's save and its paper order: recorded now, before any new fill.
      if (Option.isSome(accounts)) {
        outboxed.push(...(yield* BotFills.pending.pipe(Effect.provide(sqlContext))))
        if (outboxed.length > 0) yield* Effect.logInfo(`bots: recording ${outboxed.length} fills a crash left in the outbox`)
        yield* recordOutboxed.pipe(Effect.provide(sqlContext))
      }

      yield* Effect.addFinalizer(() => flushNow)
      yield* Effect.forkScoped(Effect.forever(
        // One chunk is one delivery: each bot gets its trades of the chunk as one command.
        Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) =>
          Effect.sync(() => registry.deliver(replayed === null ? chunk : replayed.live(chunk)))),
      ))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(options.flushEveryMs ?? 200)), flushNow)))

      const service: BotsService = {
        registry,
        markets: reads,
        // Its trades are published once stored, as the flush does (a market bot's buy at creation included).
        // A write that fails leaves the bot dirty, so the flush stores the change when the store answers
        // again: memory and store converge whatever the caller does with the failure.
        persist: (id) =>
          writes.withPermits(1)(Effect.suspend(() => {
            registry.dirty.delete(id)
            const s = saveOf(id)
            if (s === null) return Effect.void
            // The bot's fills so far go with it (a market bot's buy at creation); the flush records them.
            const taken = takeFills(id)
            return fenced(Effect.zipRight(BotStore.save([s]), BotFills.insert(taken))).pipe(
              Effect.orDie,
              Effect.tap(() => Effect.sync(() => {
                outboxed.push(...taken)
                publishTrades([s])
              })),
              Effect.tapErrorCause(() => Effect.sync(() => {
                registry.dirty.add(id)
                saved.forget(id)
                fills.unshift(...taken)
              })),
            )
          })).pipe(Effect.provide(sqlContext)),
        trader: (ref) => BotStore.trader(ref).pipe(Effect.provide(sqlContext)),
        flush: flushNow,
        fenced,
      }
      return service
    }),
  )

/** Events a catch-up routes before it lets other work in (~100 ms at the bench's densest feed). */
const CATCH_UP_RUN = 2_048

/** How often the feed mark is stored while no bot changes (`storeDirty`). */
const MARK_EVERY_MS = 1_000

/**
 * Catch-up, where nodes share the paper lease: gives the bots just restored what this node's recent feed
 * (src/intel/recent-feed.ts) brought after the feed the store says they had been given, the flush's mark
 * (`feed_marks`) or a bot's own when stored later (`BotRegistry.catchUp`), so whale trades, prices and
 * settlements that came while no node ran them (a holder dying, or handing over) still reach them. None
 * without a stored mark (no holder has written one: nothing says what they had seen). Whether it replayed.
 */
const catchUp = (registry: BotRegistry, stored: ReadonlyArray<StoredBotRow>, replay: Replay) =>
  Effect.gen(function* () {
    const floor = yield* FeedMark.read
    if (floor === null) return false
    const marks = new Map(stored.flatMap((b): Array<[string, FeedMarks]> => (b.through === null ? [] : [[b.id, b.through]])))
    // In runs, letting the node's I/O in between: at the recent feed's cap (100,000 events) with 5,000 bots
    // the whole replay takes seconds (bench/bots.ts), which would stall every read and stream meanwhile.
    const replayed = registry.startCatchUp(replay.events, floor)
    let routed = 0
    for (let i = 0; i < replayed.length; i += CATCH_UP_RUN) {
      routed += registry.catchUpSome(replayed.slice(i, i + CATCH_UP_RUN), marks)
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    registry.endCatchUp()
    yield* replay.warnBehind("bots", floor)
    yield* Effect.logInfo(`bots: caught up on ${routed} events of the recent feed after the last stored flush (${replay.events.length} kept)`)
    return true
  })

/** Bots of a running service: needs OrderedFeed, Markets and SqlClient (Accounts when present). */
export const BotsLive = makeBotsLayer()
