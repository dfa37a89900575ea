// GET /v2/paper (get_paper_account): the paper account, hand-placed and bot holdings together, read from
// the account actor's current snapshot (positions, totals) and the stored ledger (hand orders). Must not
// change anything.
//
// Decisions where the spec is silent:
// - Positions are newest opened first (then by holding); `cursor` pages them, `ordersCursor` the orders,
//   `limit` sizes both. A positions cursor is bound to the position filters, an orders cursor to `since`.
// - Filters (`status`, `source`, `bot`, `venue`, `market`) apply to positions only; `since` to orders only.
//   `market` matches the contract ref (or the event ref of the market object). Totals ignore every filter.
// - `price` of an open position is its side's current price (the Yes price, or 1 − it for the second
//   side); null (with `value` and `profit`) when the market has none. Settled: the payout (void: the
//   entry price, so profit 0). `cost` is what was paid, fee included; `entryPrice` = cost / contracts, not
//   rounded, so `cost` is contracts × entryPrice as the spec says.
// - Orders are hand orders only, newest first, each with `profit` (sales: against the average cost
//   held, fee included on both sides; buys: null). Holdings of market bots are not shown.
import { Effect, Option, Schema } from "effect"
import { Validation } from "../domain/errors.js"
import { round6 } from "../numbers.js"
import { Accounts } from "../actors/accounts/registry.js"
import { type BotTag, type Holding, isMarketBot, totalsOf } from "../actors/accounts/account.machine.js"
import { Bots } from "../actors/bots/bots-live.js"
import { Venue } from "../domain/enums.js"
import { STRICT } from "../domain/limits.js"
import { PaperAccount, type PaperOrderRow, type PaperPosition } from "../domain/paper.js"
import { PaperStore } from "../store/paper.js"
import { MarketRefParam, TimeWithOffset } from "./filters.js"
import { operation } from "./operation.js"
import { Cursor, PageParams, paginate } from "./paging.js"
import { Repeatable } from "./params.js"
import { paperOrderOf } from "../store/paper.js"
import { isoOf } from "../intel/rows.js"

const literal = <const L extends ReadonlyArray<string>>(name: string, ...values: L) =>
  Schema.Literal(...values).annotations({ message: () => ({ message: `${name} must be one of ${values.join(", ")}`, override: true }) })

export const GetPaperInput = Schema.Struct({
  status: Schema.optionalWith(literal("status", "open", "settled", "all"), { default: () => "open" as const }),
  source: Schema.optionalWith(literal("source", "hand", "bot", "all"), { default: () => "all" as const }),
  bot: Schema.optional(Schema.String.pipe(Schema.pattern(/^(trader|signal|market):.{1,200}$/, {
    message: () => "bot must be a bot id `trader:<id>`, `signal:<id>` or `market:<id>`",
  }))),
  venue: Schema.optional(Repeatable("venue", Venue)),
  market: Schema.optional(Repeatable("market", MarketRefParam)),
  include: Schema.optional(Repeatable("include", literal("include", "orders"))),
  since: Schema.optional(TimeWithOffset("since")),
  ordersCursor: Schema.optional(Cursor),
  ...PageParams,
}).annotations({ ...STRICT, identifier: "GetPaperInput" })
export type GetPaperInput = typeof GetPaperInput.Type

export const positionOf = (h: Holding, price: number | null): PaperPosition => {
  // Not rounded: the spec's `cost` is "contracts times entryPrice", and a 6-decimal entry price times a large
  // holding drifted from what was paid (audit: $0.26 on 527,485 contracts).
  const entryPrice = h.contracts > 0 ? Math.min(1, Math.max(0, h.cost / h.contracts)) : 0
  // A void refunds exactly what was paid: its payout is the entry price.
  const void_ = h.result === "void"
  const value = void_ ? round6(h.cost) : price === null ? null : round6(h.contracts * price)
  return {
    market: h.market, outcome: h.outcome, contracts: h.contracts, entryPrice, price: void_ ? entryPrice : price, cost: round6(h.cost), value,
    profit: value === null ? null : round6(value - h.cost), status: h.status, result: h.result, source: h.source,
    bot: h.bot, openedAt: isoOf(h.openedAt), settledAt: h.settledAt === null ? null : isoOf(h.settledAt),
  }
}

const PositionKey = Schema.Tuple(Schema.Number, Schema.String)
const OrderKey = Schema.Tuple(Schema.Number, Schema.String)

/** What a positions cursor is bound to: the position filters (a cursor is the listing's own `cursor`). */
const positionFilters = (i: GetPaperInput): { readonly limit: number; readonly cursor?: string | undefined } => {
  const { include: _include, since: _since, ordersCursor: _ordersCursor, ...rest } = i
  return rest
}

/** What an orders cursor is bound to: `since` (its cursor is `ordersCursor`). */
const orderFilters = (i: GetPaperInput): { readonly limit: number; readonly cursor?: string } => {
  const filters: { limit: number; cursor?: string; since?: number } = { limit: i.limit }
  if (i.ordersCursor !== undefined) filters.cursor = i.ordersCursor
  if (i.since !== undefined) filters.since = i.since
  return filters
}

/** Newest opened first, then by holding key: a total order. */
const before = (a: Holding, b: Holding): number => b.openedAt - a.openedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

export const getPaperAccount = operation({
  name: "getPaperAccount", tool: "get_paper_account", method: "GET", path: "/v2/paper", scope: "read",
  summary: "The paper account: totals, hand and bot positions, and (include=orders) hand orders",
  input: GetPaperInput, output: PaperAccount,
  run: Effect.fn("Paper.get")(function* (input, ctx) {
    const accounts = yield* Accounts
    const accountId = ctx.principal.accountId
    const context = accounts.context(accountId)
    const shown = Object.values(context.holdings).filter((h) => !isMarketBot(h.bot))
    const totals = totalsOf(context, (h) => accounts.priceOf(h))

    const { status, source, bot, venue, market } = input
    const matching = shown.filter((h) =>
      (status === "all" || h.status === status) &&
      (source === "all" || h.source === source) &&
      (bot === undefined || h.bot?.id === bot) &&
      (venue === undefined || venue.includes(h.market.venue)) &&
      (market === undefined || market.includes(h.ref) || market.includes(h.market.ref))
    ).sort(before)
    const positionsPage = yield* paginate({
      listing: "getPaperAccount.positions",
      input: positionFilters(input),
      ctx,
      key: PositionKey,
      keyOf: (h: Holding) => [h.openedAt, h.key] as const,
      fetch: (after, take) =>
        Effect.succeed(Option.match(after, {
          onNone: () => matching,
          onSome: ([t, key]) => matching.filter((h) => h.openedAt < t || (h.openedAt === t && h.key > key)),
        }).slice(0, take)),
    })
    // A bot position names the bot as it is now (a signal bot is renamed by PATCH, or with its signal when
    // its name is derived); a bot no longer running keeps the name of its newest fill.
    const bots = yield* Effect.serviceOption(Bots)
    const current = (tag: BotTag | null): BotTag | null => {
      if (tag === null || Option.isNone(bots)) return tag
      const live = bots.value.registry.context(tag.id)
      return live === undefined || live.accountId !== accountId || live.name === tag.name ? tag : { id: tag.id, name: live.name }
    }
    const positions = {
      data: positionsPage.data.map((h) => positionOf({ ...h, bot: current(h.bot) }, accounts.priceOf(h))),
      nextCursor: positionsPage.nextCursor,
    }
    const since = input.since ?? null
    const wanted = (input.include ?? []).includes("orders")
    // Without include=orders an `ordersCursor` is still checked (a foreign one is VALIDATION) but reads nothing.
    if (!wanted && input.ordersCursor === undefined) return { totals, positions }
    const orders = yield* paginate({
      listing: "getPaperAccount.orders",
      input: orderFilters(input),
      ctx,
      key: OrderKey,
      keyOf: (o: PaperOrderRow & { readonly at: number }) => [o.at, o.id] as const,
      fetch: (after, take) =>
        wanted
          ? Effect.map(
            PaperStore.orders({ accountId, kind: "hand", since, after: Option.getOrNull(after), take }),
            (rows) => rows.map((o) => ({ ...paperOrderOf(o), profit: o.profit, at: o.filledAt })),
          )
          : Effect.succeed([]),
    }).pipe(
      // Its cursor is the `ordersCursor` parameter: the sentence names that one.
      Effect.mapError((e) => (e instanceof Validation && e.error.startsWith("cursor ") ? new Validation({ error: `ordersCursor${e.error.slice(6)}` }) : e)),
    )
    if (!wanted) return { totals, positions }
    return {
      totals,
      positions,
      orders: { data: orders.data.map(({ at: _at, ...row }) => row), nextCursor: orders.nextCursor },
    }
  }),
})
