// The accounts side of the actor system as an Effect service: one PaperAccount actor per account
// (systemId `account:<id>`), rebuilt on start from the stored ledger (paper_orders, in each account's
// sequence) and the markets' settlements, kept current by MarketSettled / MarketVoided from the
// MarketBus, and written through one group-commit fiber (every order waiting is one statement).
//
// How a fill is recorded (`commit`): the caller's `prepare` runs on the account's CURRENT context and
// the fill is applied to the actor in the same synchronous step, so two orders of one account never see
// the same holdings (a second "sell all" sees the first one's sale). Then the order is written; the
// caller answers only after the write committed (durable before acknowledged). A write that fails, or
// whose idempotency key another node took first, is taken back (`fill.undone`). Reads see a fill from
// the moment it is applied, a few milliseconds before it is durable.
//
// Idempotency keys: which keys are held (younger than 24 hours) is kept in memory too (`KeyIndex`, loaded
// on start, a key added once its order is durable, at most `keyCapacity` of them), so an order with a new
// key costs one store round trip, the group commit, rather than a lookup and then the commit. A replay
// reads the order it answers from the store.
//
// Bots record their fills with `recordBotFill` and read their holdings with `botHoldings`.
import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Context, Duration, Effect, Exit, FiberId, Layer, Option, PubSub, Queue, Schedule } from "effect"
import { type Actor, createActor } from "xstate"
import type { ApiError } from "../../domain/errors.js"
import type { Fill } from "../../domain/fill.js"
import type { MarketInfo } from "../../domain/market-events.js"
import type { MarketObject } from "../../domain/market-object.js"
import { PaperStore, type StoredKey, type StoredOrder } from "../../store/paper.js"
import { holdConnection } from "../../store/held-connection.js"
import { makeInbox } from "../../inbox.js"
import { KeyIndex } from "./key-index.js"
import { webhookSink } from "../../webhooks/sink.js"
import type { LeaseLost, LeaseToken } from "../../store/leases.js"
import { writeFenceToken } from "../write-fence.js"
import { MarketBus, Markets, type MarketsService } from "../markets/market-bus.js"
import {
  type AccountContext, accountMachine, applyFill, applySettlement, type BotTag, emptyAccount, type Holding, type RecordedFill,
} from "./account.machine.js"

type AccountActor = Actor<typeof accountMachine>

/** The market object of rows for a contract: `ref` is its event's ref when it belongs to one. */
export const marketObjectOf = (info: MarketInfo): MarketObject => ({
  ref: info.event ?? info.ref, contract: info.ref, title: info.title, venue: info.venue, category: info.category,
  kind: info.kind,
})

/** Order ids derive from the account and the order's place in its ledger. */
export const orderIdOf = (accountId: string, seq: number): string =>
  "po_" + createHash("sha256").update(`${accountId}\u0000${seq}`).digest("base64url").slice(0, 22)

/** What `prepare` returns: the fill to record (on the account as it is now) and the row's extra fields. */
export interface PreparedOrder {
  readonly ref: string
  readonly market: MarketObject
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly fill: Fill
  readonly source: "hand" | "bot"
  readonly bot: BotTag | null
  readonly idempotencyKey: string | null
  readonly requestHash: string | null
  /** A bot's fill: its outbox id (the paper order carries it; a fill already recorded is not recorded again). */
  readonly botFillId?: string
}

export interface CommittedOrder {
  readonly order: StoredOrder
  /** On a sale: profit against the average cost held. */
  readonly profit: number | null
}

/** A bot's fill, as the bots record it. */
export interface BotFill {
  readonly bot: BotTag
  /** Contract ref. */
  readonly market: string
  /** Side `name`. */
  readonly outcome: string
  readonly fill: Fill
  /**
   * When the bot filled (epoch ms, feed time), so the holding opens when the bot's trade did; without
   * it, when the account records the fill.
   */
  readonly at?: number
  /** Its id in bot_fill_outbox: recorded at most once (see migration 16). */
  readonly fillId?: string
}

export interface AccountsService {
  /** The account's current context (an empty one when it has never traded). */
  readonly context: (accountId: string) => AccountContext
  /**
   * Records one order: `prepare` sees the account now and fails (nothing recorded) or gives the fill.
   * Succeeds with the stored order once it is durable; `null` when its idempotency key was taken by
   * another order meanwhile (nothing recorded; the caller replays that one).
   */
  readonly commit: <E extends ApiError>(
    accountId: string,
    prepare: (context: AccountContext) => Exit.Exit<PreparedOrder, E>,
    /** When it filled (epoch ms, feed time: an exit rule's sale); the Clock's now without it. */
    at?: number,
  ) => Effect.Effect<CommittedOrder | null, E>
  /** Records a bot's fill on the account (durable when it succeeds). */
  readonly recordBotFill: (accountId: string, fill: BotFill) => Effect.Effect<CommittedOrder>
  /** The bot's holdings on the account, open and settled. */
  readonly botHoldings: (accountId: string, botId: string) => ReadonlyArray<Holding>
  /** Current price of a holding's side (payout once settled); null when the market has none. */
  readonly priceOf: (holding: Holding) => number | null
  /**
   * Marks (account, key) as being placed on this node for the order of `requestHash`: `claimed`; or, when
   * the key is already being placed, `running` for the same order (IDEMPOTENCY_IN_PROGRESS), or `other`
   * for a different one with `released`, which ends when that order is placed or refused (whether the key
   * is then taken is known only then). `release` ends the mark.
   */
  readonly claim: (accountId: string, key: string, requestHash: string) => Claim
  readonly release: (accountId: string, key: string) => void
  /**
   * The idempotency key's first result, when it is held and younger than 24 hours. Which keys are held is
   * known in memory (the newest keys of the last 24 hours are loaded on start and every recorded key is
   * added once durable), so an order with a new key costs no lookup round trip; a held key's result (a
   * replay) is read from the store, as is any key once the index has had to drop keys younger than 24 hours.
   */
  readonly heldKey: (accountId: string, key: string) => Effect.Effect<StoredKey | null>
  /**
   * The same, asked of the store: for an order whose key `commit` found taken by an order this node
   * does not hold (another node's, or one whose commit's answer was lost).
   */
  readonly storedKey: (accountId: string, key: string) => Effect.Effect<StoredKey | null>
}

export class Accounts extends Context.Tag("whalewatch/Accounts")<Accounts, AccountsService>() {}

/** A call waiting for the group commit: its input, and how to answer it. */
interface Waiting<I, O> {
  readonly input: I
  readonly answer: (exit: Exit.Exit<O>) => void
}

/**
 * One fiber answers every call waiting at that moment with one `run` over all of them (outputs in the
 * inputs' order), at most `max` at a time: the group commit. `run` gets the services of the fiber that
 * starts it (a layer's), once, rather than each call providing them.
 *
 * The calls wait in an Inbox (a plain array), not an Effect Queue, whose linked nodes kept every order
 * that passed through them alive through the scavenge after it (src/inbox.ts): `node --import tsx
 * bench/gc-promotion.ts --rate 100 --only "paper order"` gave 6.8-7.7 KB promoted an order through the
 * Queue, 3.6-4.2 KB with this and the claims' dictionary below (the door alone, no order: 3.1 KB).
 *
 * A call's wait cannot be cut short: once offered, its order is written or refused with the rest of its
 * group, and the call learns which (an aborted request must not take back in memory an order the store
 * then records). The writer takes a group and writes it in one step nothing interrupts. When the layer
 * closes, calls still waiting are interrupted (nothing of theirs was written); a group being written is
 * finished first.
 */
const batched = <I, O, R>(max: number, run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, never, R>) =>
  Effect.gen(function* () {
    const inbox = makeInbox<Waiting<I, O>>()
    let closed = false
    const write = (group: ReadonlyArray<Waiting<I, O>>) =>
      Effect.flatMap(Effect.exit(run(group.map((w) => w.input))), (exit) =>
        Effect.sync(() => {
          const failed = Exit.isFailure(exit) ? Exit.failCause(exit.cause) : null
          for (let i = 0; i < group.length; i++) {
            group[i]!.answer(failed ?? Exit.succeed((exit as Exit.Success<ReadonlyArray<O>, never>).value[i] as O))
          }
        }))
    // Added before the writer is forked, so it runs after the writer has stopped.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        for (const w of inbox.take(inbox.size())) w.answer(Exit.interrupt(FiberId.none))
      }))
    const writeNext = Effect.suspend(() => (inbox.size() === 0 ? Effect.void : write(inbox.take(max))))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(inbox.ready, Effect.uninterruptible(writeNext))))
    return (input: I): Effect.Effect<O> =>
      Effect.async<O>((resume) => {
        if (closed) return resume(Exit.interrupt(FiberId.none))
        inbox.offer({ input, answer: resume })
      }).pipe(Effect.uninterruptible)
  })

/** What `claim` found: the key is now this order's, or another request is placing it. */
export type Claim =
  | { readonly _tag: "claimed" }
  | { readonly _tag: "running" }
  | { readonly _tag: "other"; readonly released: Effect.Effect<void> }

const CLAIM_CLAIMED: Claim = { _tag: "claimed" }
const CLAIM_RUNNING: Claim = { _tag: "running" }

/** An order being placed with a key: its request hash, and the calls waiting for its end. */
interface Claimed {
  readonly requestHash: string
  waiting: Array<() => void> | null
}

/** The live accounts: actors, the ref → accounts index for settlements, the write queue. */
class AccountRegistry {
  private readonly actors = new Map<string, AccountActor>()
  private readonly byRef = new Map<string, Set<string>>()
  /**
   * (account, key) → the order being placed with it. An object used as a dictionary, not a Map: a long-lived
   * Map or Set that entries pass through for a moment kept every entry alive through the next scavenge,
   * so each order's claim (and what it held) was promoted to die in old space (a scratch script, node
   * --trace-gc-nvp: 400,000 entries each held for 20 steps promoted 84 MB through a Map, 11 MB through an
   * object, 7.6 MB with neither).
   */
  private readonly claims: Record<string, Claimed> = Object.create(null)

  constructor(
    private readonly markets: MarketsService,
    /** Told of holdings a settlement (or void) turned from open to settled, live only (not on restore). */
    private readonly onSettled: (accountId: string, holdings: ReadonlyArray<Holding>) => void = () => {},
  ) {}

  /** Sends a settlement of `ref` to an account's actor and reports the holdings it settled. */
  private settleOn(accountId: string, actor: AccountActor, ref: string, winner: string | null, at: number): void {
    const open = Object.values(actor.getSnapshot().context.holdings).filter((h) => h.ref === ref && h.status === "open")
    actor.send(winner === null ? { type: "market.voided", ref, at } : { type: "market.settled", ref, winner, at })
    if (open.length === 0) return
    const holdings = actor.getSnapshot().context.holdings
    const settled = open.flatMap((h) => {
      const now = holdings[h.key]
      return now !== undefined && now.status === "settled" ? [now] : []
    })
    if (settled.length > 0) this.onSettled(accountId, settled)
  }

  restore(orders: ReadonlyArray<StoredOrder>): void {
    const contexts = new Map<string, AccountContext>()
    for (const o of orders) {
      const context = contexts.get(o.accountId) ?? emptyAccount(o.accountId)
      contexts.set(o.accountId, applyFill(context, recordedOf(o)).context)
    }
    for (const [accountId, start] of contexts) {
      let context = start
      for (const ref of new Set(Object.values(context.holdings).map((h) => h.ref))) {
        const over = this.settlementOf(ref)
        if (over !== null) context = applySettlement(context, ref, over.winner, over.at)
      }
      this.spawn(accountId, context)
    }
  }

  private spawn(accountId: string, context: AccountContext): AccountActor {
    const actor = createActor(accountMachine, { input: context, systemId: `account:${accountId}` })
    actor.start()
    this.actors.set(accountId, actor)
    for (const h of Object.values(context.holdings)) this.index(h.ref, accountId)
    return actor
  }

  private index(ref: string, accountId: string): void {
    const set = this.byRef.get(ref)
    if (set === undefined) this.byRef.set(ref, new Set([accountId]))
    else set.add(accountId)
  }

  actor(accountId: string): AccountActor {
    return this.actors.get(accountId) ?? this.spawn(accountId, emptyAccount(accountId))
  }

  context(accountId: string): AccountContext {
    return this.actors.get(accountId)?.getSnapshot().context ?? emptyAccount(accountId)
  }

  /** Applies a fill now; what `undo` needs to take it back. */
  apply(accountId: string, fill: RecordedFill): { readonly profit: number | null; readonly before: Holding | null } {
    const actor = this.actor(accountId)
    const { profit, before } = applyFill(actor.getSnapshot().context, fill)
    actor.send({ type: "fill.recorded", fill })
    this.index(fill.ref, accountId)
    return { profit, before }
  }

  /** How `ref` ended (winner's name, null on a void), once it has settled or been voided; else null. */
  private settlementOf(ref: string): { readonly winner: string | null; readonly at: number } | null {
    const record = this.markets.record(ref)
    if (record?.status === "settled" && record.winner !== null) return { winner: record.winner.name, at: record.settledAt ?? 0 }
    if (record?.status === "void") return { winner: null, at: record.settledAt ?? 0 }
    return null
  }

  /**
   * Settles the account's holdings on `ref` at once when the market is already over: a bot's fill
   * reaches the account from the bots' flush, possibly after the settlement did, and would otherwise
   * stay open for good. Settling is idempotent (only open holdings change).
   */
  settleIfOver(accountId: string, ref: string): void {
    const over = this.settlementOf(ref)
    if (over === null) return
    this.settleOn(accountId, this.actor(accountId), ref, over.winner, over.at)
  }

  undo(accountId: string, fill: RecordedFill, before: Holding | null, profit: number | null): void {
    this.actor(accountId).send({ type: "fill.undone", fill, before, profit })
  }

  settle(ref: string, winner: string | null, at: number): void {
    for (const accountId of this.byRef.get(ref) ?? []) {
      const actor = this.actors.get(accountId)
      if (actor === undefined) continue
      this.settleOn(accountId, actor, ref, winner, at)
    }
  }

  claim(accountId: string, key: string, requestHash: string): Claim {
    const id = `${accountId}\u0000${key}`
    const running = this.claims[id]
    if (running !== undefined) {
      if (running.requestHash === requestHash) return CLAIM_RUNNING
      const released = Effect.async<void>((resume) => {
        // Released already (between `claim` and this wait): go on at once.
        if (this.claims[id] !== running) return resume(Effect.void)
        ;(running.waiting ??= []).push(() => resume(Effect.void))
      })
      return { _tag: "other", released }
    }
    this.claims[id] = { requestHash, waiting: null }
    return CLAIM_CLAIMED
  }

  release(accountId: string, key: string): void {
    const id = `${accountId}\u0000${key}`
    const claim = this.claims[id]
    if (claim === undefined) return
    delete this.claims[id]
    for (const resume of claim.waiting ?? []) resume()
  }

  priceOf(h: Holding): number | null {
    if (h.status === "settled") return h.payout
    const yes = this.markets.yesPrice(h.ref)
    if (yes === null) return null
    const info = this.markets.info(h.ref)
    const first = info === null || info.sides[0].name === h.outcome
    return Math.round((first ? yes : 1 - yes) * 1e6) / 1e6
  }

  stop(): void {
    for (const actor of this.actors.values()) actor.stop()
    this.actors.clear()
  }
}

const recordedOf = (o: StoredOrder): RecordedFill => ({
  seq: o.seq, ref: o.market, market: o.marketObject, outcome: o.outcome, action: o.action, contracts: o.contracts,
  cost: o.cost, at: o.filledAt, source: o.source, bot: o.botId === null ? null : { id: o.botId, name: o.botName ?? o.botId },
})

export interface AccountsOptions {
  /** Orders per statement at most (default 500). */
  readonly batchRows?: number
  /** Idempotency keys held in memory at most (default KEY_INDEX_CAPACITY); older ones are looked up in the store. */
  readonly keyCapacity?: number
}

export const makeAccountsLayer = (options: AccountsOptions = {}): Layer.Layer<Accounts, never, Markets | MarketBus | SqlClient.SqlClient | PgClient.PgClient> =>
  Layer.scoped(
    Accounts,
    Effect.gen(function* () {
      const markets = yield* Markets
      // Subscribed before the ledger is read, so settlements published meanwhile wait in the subscription.
      const settlements = yield* PubSub.subscribe(yield* MarketBus)
      const sink = yield* webhookSink
      const registry = new AccountRegistry(markets, (accountId, holdings) => {
        if (Option.isSome(sink)) sink.value.publish(holdings.map((holding) => ({ _tag: "HoldingSettled", accountId, holding })))
      })
      registry.restore(yield* PaperStore.loadAll)
      yield* Effect.addFinalizer(() => Effect.sync(() => registry.stop()))

      // Every market event passes through this subscription (books included), so it is drained in chunks:
      // a fiber step per event would cost the ingest path, and a subscriber that falls 65,536 events behind
      // on the sliding MarketBus loses the oldest, settlements among them.
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.takeBetween(settlements, 1, 4_096), (chunk) =>
          Effect.sync(() => {
            for (const event of chunk) {
              if (event._tag === "MarketSettled") registry.settle(event.ref, event.winner.name, event.ts)
              else if (event._tag === "MarketVoided") registry.settle(event.ref, null, event.ts)
            }
          })),
      ))

      const sql = yield* SqlClient.SqlClient
      const batchRows = options.batchRows ?? 500
      // Group commit: every order waiting is written in one statement; true for each one recorded. When the
      // write fails, every fill of the group is taken back out, newest first: each undo then meets its
      // holding as its fill left it (a sale that sold a holding whole, undone before the buy that made it).
      // The group commit keeps one connection of its own (src/store/held-connection.ts).
      const record = PaperStore.recordOn(yield* holdConnection((yield* PgClient.PgClient).config))
      // Where nodes share a lease, a group is written only as its holder (write-fence.ts): surely its own by
      // this node's Clock, and still this node's at its epoch in the store, checked by the INSERT itself.
      const fence = yield* writeFenceToken
      const tokenNow: Effect.Effect<LeaseToken | null, LeaseLost> = Option.getOrElse(fence, () => Effect.succeed(null))
      const write = yield* batched(batchRows, (entries: ReadonlyArray<{ readonly order: StoredOrder; readonly undo: () => void }>) =>
        Effect.flatMap(tokenNow, (token) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => record(entries.map((e) => e.order), now, token))).pipe(
          Effect.orDie,
          Effect.map((stored) => entries.map((e) => stored.has(e.order.id))),
          Effect.onError(() => Effect.sync(() => {
            for (let i = entries.length - 1; i >= 0; i--) entries[i]?.undo()
          })),
        ))
      const keys = new KeyIndex(options.keyCapacity)
      // The newest keys held, as many as the index holds and one more: that one tells that older keys are
      // left in the store only.
      const loaded = yield* PaperStore.loadKeys(yield* Clock.currentTimeMillis, keys.capacity + 1)
      const kept = Math.min(loaded.length, keys.capacity)
      if (loaded.length > kept) keys.dropped(loaded[kept]!.createdAt)
      for (let i = kept - 1; i >= 0; i--) keys.remember(loaded[i]!.accountId, loaded[i]!.key, loaded[i]!.createdAt)
      // Keys are kept 24 hours.
      yield* Effect.forkScoped(Effect.repeat(
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.zipRight(PaperStore.purgeKeys(now), Effect.sync(() => keys.purge(now)))),
        Schedule.spaced(Duration.hours(1)),
      ))

      // One generator for every call (a generator made per call kept each order alive through a young GC: http/api.ts).
      // Not interruptible: a caller that goes away (an aborted request) does not cut an order short between
      // its fill applied and its write answered, so memory, the store, the key index and the webhooks agree.
      const commit: <E extends ApiError>(
        accountId: string,
        prepare: (context: AccountContext) => Exit.Exit<PreparedOrder, E>,
        at?: number,
      ) => Effect.Effect<CommittedOrder | null, E> = Effect.fnUntraced(function* <E extends ApiError>(
        accountId: string,
        prepare: (context: AccountContext) => Exit.Exit<PreparedOrder, E>,
        at?: number,
      ) {
        const filledAt = at ?? (yield* Clock.currentTimeMillis)
        // One synchronous step: read the account, prepare, apply.
        const applied = yield* Effect.suspend(() => {
          const context = registry.context(accountId)
          const prepared = prepare(context)
          if (Exit.isFailure(prepared)) return Effect.failCause(prepared.cause)
          const p = prepared.value
          const seq = context.seq + 1
          const id = orderIdOf(accountId, seq)
          const fill: RecordedFill = {
            seq, ref: p.ref, market: p.market, outcome: p.outcome, action: p.action, contracts: p.fill.contracts,
            cost: p.fill.cost, at: filledAt, source: p.source, bot: p.bot,
          }
          const { profit, before } = registry.apply(accountId, fill)
          const order: StoredOrder = {
            id, accountId, seq, idempotencyKey: p.idempotencyKey, requestHash: p.requestHash, market: p.ref,
            marketObject: p.market, outcome: p.outcome, action: p.action, contracts: p.fill.contracts,
            avgPrice: p.fill.avgPrice, cost: p.fill.cost, fee: p.fill.fee, unfilled: p.fill.unfilledContracts, filledAt,
            profit, source: p.source, botId: p.bot?.id ?? null, botName: p.bot?.name ?? null,
            botFillId: p.botFillId ?? null,
          }
          return Effect.succeed({ fill, order, profit, before })
        })
        // Taken back once: by the group's failed write (all of it, newest first), or here when this order
        // alone was not recorded (its key taken first) or its wait was cut short.
        let undone = false
        const undo = (): void => {
          if (undone) return
          undone = true
          registry.undo(accountId, applied.fill, applied.before, applied.profit)
        }
        const stored = yield* write({ order: applied.order, undo }).pipe(
          Effect.onExit((exit) => (Exit.isSuccess(exit) && exit.value ? Effect.void : Effect.sync(undo))),
        )
        if (!stored) return null
        const { idempotencyKey, requestHash } = applied.order
        if (idempotencyKey !== null && requestHash !== null) {
          keys.remember(accountId, idempotencyKey, filledAt)
        }
        if (Option.isSome(sink)) sink.value.publish([{ _tag: "OrderRecorded", order: applied.order }])
        registry.settleIfOver(accountId, applied.fill.ref)
        return { order: applied.order, profit: applied.profit }
      }, Effect.uninterruptible)

      const storedKeyAt = (accountId: string, key: string, now: number) =>
        PaperStore.findKey(accountId, key, now).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const service: AccountsService = {
        context: (accountId) => registry.context(accountId),
        commit,
        recordBotFill: (accountId, f) =>
          commit(accountId, () => {
            const info = markets.info(f.market)
            if (info === null) return Exit.die(new Error(`recordBotFill: unknown market ${f.market}`))
            return Exit.succeed<PreparedOrder>({
              ref: f.market, market: marketObjectOf(info), outcome: f.outcome, action: f.fill.action, fill: f.fill,
              source: "bot", bot: f.bot, idempotencyKey: null, requestHash: null,
              ...(f.fillId === undefined ? {} : { botFillId: f.fillId }),
            })
          }, f.at).pipe(Effect.flatMap((c) => (c === null ? Effect.dieMessage("recordBotFill: not recorded") : Effect.succeed(c)))),
        botHoldings: (accountId, botId) =>
          Object.values(registry.context(accountId).holdings).filter((h) => h.source === "bot" && h.bot?.id === botId),
        priceOf: (h) => registry.priceOf(h),
        claim: (accountId, key, requestHash) => registry.claim(accountId, key, requestHash),
        release: (accountId, key) => registry.release(accountId, key),
        heldKey: (accountId, key) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            keys.state(accountId, key, now) === "free" ? Effect.succeed(null) : storedKeyAt(accountId, key, now)),
        storedKey: (accountId, key) => Effect.flatMap(Clock.currentTimeMillis, (now) => storedKeyAt(accountId, key, now)),
      }
      return service
    }),
  )

/** The accounts of a running service: needs Markets, MarketBus and SqlClient (migrated). */
export const AccountsLive = makeAccountsLayer()
