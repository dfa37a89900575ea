// Paper bots (spec: Bots; Bot; States and transitions; Errors per operation; Limits): create, list, read,
// change and delete (end) an account's bots. Checks that need stored or live data live here: the trader
// exists, no second bot on one trader, the market is one open contract and the outcome one of its sides,
// the 20 signal / 20 market bots per account (in the store, atomically). Every write is stored before it
// answers. Another account's bot is the same NOT_FOUND as a missing one.
//
// Decisions where the spec is silent (README "Paper bots"):
// - DELETE /v2/bots/{id} (write) ends a paper bot of any kind (status `ended`, answered with the full
//   bot); it stops trading, its open trades still settle, it stays listed, and it no longer counts
//   toward the 20-bot limits. Deleting an ended bot answers the same bot again.
// - An ended bot cannot be resumed (PATCH status → VALIDATION), and it no longer counts as the account's
//   bot on its trader: a new trader bot on that trader may be created. A malformed bot id is NOT_FOUND.
// - A market bot needs an open market (VALIDATION otherwise); `series: true` needs a market of a
//   repeating series (VALIDATION otherwise). An event ref with one contract stands for that contract.
// - `since`, `result`, `limit` and `cursor` of Get Bot apply to `include=trades` and are ignored without it.
import { Clock, Effect, FiberRef, Option, Schema } from "effect"
import { Bots } from "../actors/bots/bots-live.js"
import type { AnyBotContext, MarketBotContext, SignalBotContext, TraderBotContext } from "../actors/bots/bot-types.js"
import { hasBuyTrigger } from "../actors/bots/market-rule.js"
import { botName, signalName } from "../actors/bots/signal-match.js"
import { activityView, botOf, listItemOf, tradeRowOf, tradesOf, venuesOf } from "../actors/bots/view.js"
import {
  Bot, BotCreateRequest, BotListItem, BotPatchRequest, botPatchProblem, BotStatus, type MarketBotRequest, type SignalBotRequest,
  type TraderBotRequest,
} from "../domain/bot.js"
import { Venue } from "../domain/enums.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_MARKET_BOTS, MAX_SIGNAL_BOTS, STRICT } from "../domain/limits.js"
import { BotId, BotKind, handleLabel, splitTraderRef } from "../domain/refs.js"
import { namesTraders } from "../domain/enums.js"
import type { UsdSizing } from "../domain/signal.js"
import { BotStore, newBotId } from "../store/bots.js"
import { TimeWithOffset } from "./filters.js"
import { listing, operation, type OperationContext } from "./operation.js"
import { sideOf } from "./paper-orders.js"
import { Cursor, Limit, paginate, PageParams, DEFAULT_LIMIT } from "./paging.js"
import { Repeatable } from "./params.js"

const INCLUDES = ["trades", "activity"] as const
type Include = (typeof INCLUDES)[number]

/**
 * The Bots service. Looked up rather than required, so servers built without bots (tests of other
 * operations) still start; the service's main provides it (BotsLive), and without it a bot route dies.
 */
const useBots = Effect.flatMap(Effect.serviceOption(Bots), (bots) =>
  Option.isSome(bots) ? Effect.succeed(bots.value) : Effect.dieMessage("the bots service is not running"))

const notFound = (id: string) => new NotFound({ error: `No bot has id ${quoted(id)}` })

/** The caller's bot, or NOT_FOUND (missing, malformed and another account's alike). */
const ownBot =
  Effect.fnUntraced(function* (raw: string, ctx: OperationContext) {
    const bots = yield* useBots
    const id = Option.getOrUndefined(Schema.decodeUnknownOption(BotId)(raw))
    const bot = id === undefined ? undefined : bots.registry.context(id)
    const status = id === undefined ? undefined : bots.registry.status(id)
    if (bot === undefined || status === undefined || bot.accountId !== ctx.principal.accountId) return yield* notFound(raw)
    return { bots, ctx: bot, status }
  })

const prices = (bots: Bots["Type"]) => (contract: string) => bots.markets.yesPrice(contract)

/** Feed time for windows: the bots' newest event, else the Clock. */
const feedNow = (bots: Bots["Type"]) =>
  Effect.map(Clock.currentTimeMillis, (wall) => (Number.isFinite(bots.registry.feedTime()) ? bots.registry.feedTime() : wall))

/** What every kind's context starts with; a name the service derived is held to the bound (`botName`). */
const base = (id: string, accountId: string, createdAt: number, name: string, alerts: boolean) => ({
  id, accountId, name: botName(name), mode: "paper" as const, alerts, createdAt, trades: [],
})

// ---- create ----

const traderContext = (request: TraderBotRequest, accountId: string, createdAt: number) =>
  Effect.gen(function* () {
    const bots = yield* useBots
    const ref = request.trigger.trader
    if (!namesTraders(splitTraderRef(ref).venue)) {
      return yield* new Validation({ error: "trigger.trader: only venue_a and venue_b name traders" })
    }
    const known = yield* bots.trader(ref)
    if (known === null) return yield* new NotFound({ error: `No trader has ref ${quoted(ref)}` })
    const name = known.name ?? handleLabel(splitTraderRef(ref).handle)
    const ctx: TraderBotContext = {
      ...base(newBotId("trader"), accountId, createdAt, name, request.alerts), kind: "trader",
      settings: { trader: { ref, name: known.name }, sizing: request.sizing, mirrorExits: request.mirrorExits }, matched: [],
    }
    return ctx
  })

const signalContext = (request: SignalBotRequest, accountId: string, createdAt: number): SignalBotContext => ({
  ...base(newBotId("signal"), accountId, createdAt, request.name ?? signalName(request.trigger.signal), request.alerts),
  kind: "signal",
  settings: { signal: request.trigger.signal, sizing: request.sizing, appOnly: false, named: request.name !== undefined },
  matched: [],
})

const marketContext = (request: MarketBotRequest, accountId: string, createdAt: number) =>
  Effect.gen(function* () {
    const bots = yield* useBots
    const { market, outcome, rule } = request.trigger
    const contracts = bots.markets.contractsOfEvent(market)
    if (contracts.length > 1) {
      return yield* new Validation({ error: "trigger.market has several contracts; pass one contract's ref (outcomes[].ref of Get Market)" })
    }
    const ref = contracts[0] ?? market
    const info = bots.markets.info(ref)
    if (info === null) return yield* new NotFound({ error: `No market has ref ${quoted(market)}` })
    // Read as a paper order reads it: a side's name, then its label (case-insensitive, trimmed), then yes or no.
    const named = sideOf(info, outcome)
    const side = named === null ? undefined : info.sides.indexOf(named) === 1 ? 1 : 0
    if (side === undefined) {
      return yield* new Validation({
        error: `trigger.outcome must be one of the market's sides (${info.sides.map((s) => s.name).join(", ")}), or yes or no`,
      })
    }
    const status = bots.markets.status(ref)
    if (status !== "open") return yield* new Validation({ error: `trigger.market: ${ref} is not open (${status ?? "unknown"})` })
    if (request.series && info.series === null) {
      return yield* new Validation({ error: "series: this market is not part of a repeating series" })
    }
    const ctx: MarketBotContext = {
      ...base(newBotId("market"), accountId, createdAt, request.series && info.series !== null ? info.series : info.title, request.alerts),
      kind: "market",
      settings: {
        // As a paper order's market object: the event's ref when the contract is one of an event's.
        market: { ref: info.event ?? ref, contract: ref, title: info.title, venue: info.venue }, side, outcome: side === 0 ? "Yes" : "No",
        sideName: info.sides[side].name, rule, sizing: request.sizing as UsdSizing, followSeries: request.series,
        seriesId: info.series,
      },
      basePrice: null, boughtHere: false, marketOver: false, listedAt: info.listedAt,
    }
    return { ctx, ref }
  })

/**
 * An account has one live trader bot per trader: creating a trader bot, ending one, and autopilot (which
 * looks for one, then creates or changes it) take turns, so none acts on a bot another has half made or
 * half ended (the store holds it and the registry not yet, or the other way round). Bots run on one node
 * (README: Several nodes). Re-entrant within a fiber: autopilot's turn creates through createBot.
 */
const traderTurn = Effect.unsafeMakeSemaphore(1)
const holdsTraderTurn = FiberRef.unsafeMake(false)
export const inTraderTurn = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(holdsTraderTurn), (held) =>
    held ? effect : traderTurn.withPermits(1)(Effect.locally(effect, holdsTraderTurn, true)))

const create = Effect.fn("Bots.create")(function* (request: typeof BotCreateRequest.Type, ctx: OperationContext) {
  const bots = yield* useBots
  const accountId = ctx.principal.accountId
  const createdAt = yield* Clock.currentTimeMillis
  let context: AnyBotContext
  let snapshot: unknown
  switch (request.kind) {
    case "trader":
      context = yield* traderContext(request, accountId, createdAt)
      snapshot = bots.registry.preview(context)
      break
    case "signal":
      context = signalContext(request, accountId, createdAt)
      snapshot = bots.registry.preview(context)
      break
    case "market": {
      const made = yield* marketContext(request, accountId, createdAt)
      context = made.ctx
      // The start: the side's price now is the base of dropsBy / risesBy; with no trigger it buys at once.
      const ts = yield* feedNow(bots)
      snapshot = bots.registry.preview(context, {
        type: "market.price", ts, yesPrice: bots.markets.yesPrice(made.ref), quoter: bots.registry.quoterOf(made.ref),
      })
      if (!hasBuyTrigger(request.trigger.rule)) yield* Effect.annotateCurrentSpan("buysAtOnce", true)
      break
    }
  }
  const persisted = snapshot as { readonly value: unknown; readonly context: AnyBotContext }
  const limit = request.kind === "signal" ? MAX_SIGNAL_BOTS : request.kind === "market" ? MAX_MARKET_BOTS : null
  const outcome = yield* bots.fenced(BotStore.insert({
    id: context.id, accountId, kind: context.kind, name: persisted.context.name, mode: "paper",
    status: persisted.value === "ended" ? "ended" : "running",
    trader: context.kind === "trader" ? context.settings.trader.ref : null,
    settings: null, snapshot, through: bots.registry.through(),
  }, new Date(createdAt), limit)).pipe(Effect.orDie)
  if (outcome === "duplicate") return yield* new Validation({ error: "trigger.trader: a bot on this trader already exists" })
  if (outcome === "limit") {
    return yield* new Validation({ error: `the account is at its limit of ${limit} ${request.kind} bots` })
  }
  // A copy: the stored JSON, not the preview actor's objects.
  bots.registry.restore([{ id: context.id, kind: context.kind, snapshot: JSON.parse(JSON.stringify(snapshot)) as unknown }])
  // The bot is durable with the insert (its snapshot holds its trades); this write stores its trade rows,
  // and when it fails the flush stores them later: the creation stands.
  yield* bots.persist(context.id).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`bots: the new bot ${context.id}'s trade rows are left to the flush`, cause)),
  )
  const now = bots.registry.context(context.id) ?? persisted.context
  return botOf(now, bots.registry.status(context.id) ?? "running", prices(bots))
})

export const createBot = operation({
  name: "createBot", tool: "create_bot", method: "POST", path: "/v2/bots", scope: "write", status: 201,
  summary: "Create a paper bot (trader, signal or market)",
  input: BotCreateRequest, output: Bot,
  run: (request, ctx) => (request.kind === "trader" ? inTraderTurn(create(request, ctx)) : create(request, ctx)),
})

// ---- list ----

export const ListBotsInput = Schema.Struct({
  ...PageParams,
  kind: Schema.optional(Repeatable("kind", BotKind)),
  status: Schema.optional(Repeatable("status", BotStatus)),
  venue: Schema.optional(Repeatable("venue", Venue)),
}).annotations(STRICT)

const ListKey = Schema.Tuple(Schema.Number, Schema.String)

export const listBots = listing({
  name: "listBots", tool: "list_bots", method: "GET", path: "/v2/bots", scope: "read",
  summary: "List the account's bots, newest first",
  input: ListBotsInput, row: BotListItem,
  run: Effect.fnUntraced(function* (input: typeof ListBotsInput.Type, ctx: OperationContext) {
    const bots = yield* useBots
    const rows = bots.registry.idsOf(ctx.principal.accountId)
      .map((id) => ({ id, ctx: bots.registry.context(id), status: bots.registry.status(id) }))
      .filter((r): r is { id: string; ctx: AnyBotContext; status: "running" | "paused" | "ended" } =>
        r.ctx !== undefined && r.status !== undefined &&
        (input.kind === undefined || input.kind.includes(r.ctx.kind)) &&
        (input.status === undefined || input.status.includes(r.status)) &&
        (input.venue === undefined || venuesOf(r.ctx).some((v) => input.venue?.includes(v) === true)))
      .sort((a, b) => b.ctx.createdAt - a.ctx.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    const key = (r: { readonly id: string; readonly ctx: AnyBotContext }) => [r.ctx.createdAt, r.id] as const
    const after = (r: { readonly id: string; readonly ctx: AnyBotContext }, k: readonly [number, string]) =>
      r.ctx.createdAt < k[0] || (r.ctx.createdAt === k[0] && r.id < k[1])
    const page = yield* paginate({
      listing: "listBots", input, ctx, key: ListKey, keyOf: key,
      fetch: (from, take) =>
        Effect.succeed(Option.match(from, { onNone: () => rows, onSome: (k) => rows.filter((r) => after(r, k)) }).slice(0, take)),
    })
    return { data: page.data.map((r) => listItemOf(r.ctx, r.status, prices(bots))), nextCursor: page.nextCursor }
  }),
})

// ---- get ----

/** A bot id in the path: at most 100 characters (an id is `<kind>:` and 22 more). */
const BotIdParam = Schema.String.pipe(Schema.maxLength(100, { message: () => "id must be a bot id of at most 100 characters" }))

export const GetBotInput = Schema.Struct({
  id: BotIdParam,
  include: Schema.optional(Repeatable("include", Schema.String.pipe(Schema.maxLength(200)))),
  since: Schema.optional(TimeWithOffset("since")),
  result: Schema.optional(Schema.Literal("open", "win", "loss")),
  limit: Schema.optional(Limit),
  cursor: Schema.optional(Cursor),
}).annotations(STRICT)

/** Comma-separated or repeated; duplicates count once. */
const includesOf = (values: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<Include>, Validation> => {
  const out = new Set<Include>()
  for (const value of values ?? []) {
    for (const part of value.split(",")) {
      const name = part.trim()
      if (name === "") continue
      if (!(INCLUDES as ReadonlyArray<string>).includes(name)) {
        return Effect.fail(new Validation({ error: `include must be one of ${INCLUDES.join(", ")} (got \`${name}\`)` }))
      }
      out.add(name as Include)
    }
  }
  return Effect.succeed(INCLUDES.filter((i) => out.has(i)))
}

export const getBot = operation({
  name: "getBot", tool: "get_bot", method: "GET", path: "/v2/bots/:id", scope: "read",
  summary: "One bot, with its trades and activity on request",
  input: GetBotInput, output: Bot,
  run: Effect.fn("Bots.get")(function* (input, ctx) {
    const includes = yield* includesOf(input.include)
    const own = yield* ownBot(input.id, ctx)
    const { bots } = own
    const bot = botOf(own.ctx, own.status, prices(bots))
    let out: Bot = bot
    const wanted = includes.includes("trades")
    // Without include=trades a `cursor` is still checked (a foreign one is VALIDATION) but reads nothing.
    if (wanted || input.cursor !== undefined) {
      const filter = {
        ...(input.since === undefined ? {} : { since: input.since }),
        ...(input.result === undefined ? {} : { result: input.result }),
      }
      const rows = wanted ? tradesOf(own.ctx, filter) : []
      // The cursor binds to the bot and the trade filters (not to the includes asked for).
      const pageInput = { id: own.ctx.id, ...filter, limit: input.limit ?? DEFAULT_LIMIT, ...(input.cursor === undefined ? {} : { cursor: input.cursor }) }
      const page = yield* paginate({
        listing: "getBot.trades",
        input: pageInput,
        ctx, key: Schema.Number, keyOf: (t: (typeof rows)[number]) => t.seq,
        fetch: (from, take) =>
          Effect.succeed(Option.match(from, { onNone: () => rows, onSome: (seq) => rows.filter((t) => t.seq < seq) }).slice(0, take)),
      })
      if (wanted) out = { ...out, trades: { data: page.data.map((t) => tradeRowOf(t, prices(bots))), nextCursor: page.nextCursor } }
    }
    if (includes.includes("activity")) {
      const now = yield* feedNow(bots)
      out = { ...out, activity: activityView(own.ctx, now) }
    }
    // Charged once the request is known good (a foreign cursor is refused for one unit, as elsewhere).
    if (includes.length > 0) yield* ctx.charge(includes.length)
    return out
  }),
})

// ---- update ----

export const UpdateBotInput = Schema.Struct({
  id: BotIdParam,
  ...BotPatchRequest.from.fields,
}).annotations(STRICT)

export const updateBot = operation({
  name: "updateBot", tool: "update_bot", method: "PATCH", path: "/v2/bots/:id", scope: "write",
  summary: "Change a paper bot (send only the changed fields)",
  input: UpdateBotInput, output: Bot,
  run: Effect.fn("Bots.update")(function* (input, ctx) {
    const { id: rawId, ...patch } = input
    const own = yield* ownBot(rawId, ctx)
    const { bots } = own
    const id = own.ctx.id
    if (Object.keys(patch).length === 0) return yield* new Validation({ error: "the body must change at least one field" })
    if (own.ctx.mode === "live") return yield* new Validation({ error: "live bots are read-only in the API; change them in the app" })
    // An ended bot trades no more: nothing of it can change (every kind alike; its record stays readable).
    if (own.status === "ended") {
      const field = Object.keys(patch)[0] ?? "status"
      return yield* new Validation({ error: `${field}: the bot has ended; an ended bot cannot be changed` })
    }
    const problem = botPatchProblem(own.ctx.kind, patch)
    if (problem !== undefined) {
      return yield* new Validation({ error: own.ctx.kind === "signal" && patch.status !== undefined ? "status: signal bots cannot be paused" : problem })
    }
    if (own.ctx.kind === "signal" && patch.signal !== undefined && own.ctx.settings.appOnly) {
      return yield* new Validation({ error: "signal: this bot holds settings only the app can edit" })
    }
    switch (own.ctx.kind) {
      case "trader":
        if (patch.sizing !== undefined || patch.mirrorExits !== undefined) {
          bots.registry.sendTrader(id, {
            type: "bot.configure",
            ...(patch.sizing === undefined ? {} : { sizing: patch.sizing }),
            ...(patch.mirrorExits === undefined ? {} : { mirrorExits: patch.mirrorExits }),
          })
        }
        break
      case "signal":
        if (patch.name !== undefined || patch.signal !== undefined || patch.sizing !== undefined) {
          bots.registry.sendSignal(id, {
            type: "bot.configure",
            ...(patch.name === undefined ? {} : { name: patch.name }),
            ...(patch.signal === undefined ? {} : { signal: patch.signal, derivedName: signalName(patch.signal) }),
            ...(patch.sizing === undefined ? {} : { sizing: patch.sizing }),
          })
        }
        break
      case "market":
        if (patch.rule !== undefined || patch.sizing !== undefined) {
          bots.registry.sendMarket(id, {
            type: "bot.configure",
            ...(patch.rule === undefined ? {} : { rule: patch.rule }),
            ...(patch.sizing === undefined ? {} : { sizing: patch.sizing as UsdSizing }),
          })
        }
        break
    }
    if (patch.alerts !== undefined) bots.registry.sendCommon(id, { type: "bot.alerts", alerts: patch.alerts })
    if (patch.status === "paused" && own.status === "running") bots.registry.sendCommon(id, { type: "bot.pause" })
    if (patch.status === "running" && own.status === "paused") bots.registry.sendCommon(id, { type: "bot.resume" })
    // A market bot changed or resumed running meets the price now, as one just created does: a rule with no
    // buy trigger buys at once, and a level the price already stands past fires now, not at the next change.
    const after = bots.registry.context(id)
    if (after?.kind === "market" && bots.registry.status(id) === "running" &&
      (patch.rule !== undefined || patch.sizing !== undefined || (patch.status === "running" && own.status === "paused"))) {
      const ref = after.settings.market.contract
      bots.registry.sendMarket(id, {
        type: "market.price", ts: yield* feedNow(bots), yesPrice: bots.markets.yesPrice(ref), quoter: bots.registry.quoterOf(ref),
      })
    }
    yield* bots.persist(id)
    return botOf(bots.registry.context(id) ?? own.ctx, bots.registry.status(id) ?? own.status, prices(bots))
  }),
})

// ---- delete ----

export const deleteBot = operation({
  name: "deleteBot", tool: "delete_bot", method: "DELETE", path: "/v2/bots/:id", scope: "write",
  summary: "End a paper bot (a signal bot is stopped by deleting it); it stays listed as ended",
  input: Schema.Struct({ id: BotIdParam }).annotations(STRICT), output: Bot,
  run: Effect.fn("Bots.delete")(function* (input, ctx) {
    const own = yield* ownBot(input.id, ctx)
    const { bots } = own
    const id = own.ctx.id
    if (own.ctx.mode === "live") return yield* new Validation({ error: "live bots are read-only in the API; change them in the app" })
    if (own.status !== "ended") {
      const end = Effect.zipRight(Effect.sync(() => bots.registry.sendCommon(id, { type: "bot.end" })), bots.persist(id))
      yield* own.ctx.kind === "trader" ? inTraderTurn(end) : end
    }
    return botOf(bots.registry.context(id) ?? own.ctx, bots.registry.status(id) ?? "ended", prices(bots))
  }),
})
