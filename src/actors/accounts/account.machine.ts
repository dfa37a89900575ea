// The PaperAccount actor: one xstate v5 statechart per account holding its paper holdings, by hand and
// by bot, keyed by (contract, side, source, bot id), and the account's realized profit and settled
// record. Fills arrive as `fill.recorded` (a recorded order, hand or bot) and settlements as
// `market.settled` / `market.voided`; the arithmetic is the pure `applyFill` / `applySettlement` below,
// which the operation also uses to know an order's profit before it is stored. The actor never touches
// the clock, the database or the bus: times come in the events.
//
// Decisions:
// - A holding's `cost` is what was paid, fee included; `entryPrice` = cost / contracts (average cost).
//   A sale takes contracts at that average: realized += proceeds − entryPrice × sold; a holding sold
//   to zero is dropped (its profit lives on in `realized` and in the order list).
// - Settlement: every holding on the contract becomes `settled` with price = payout, 1 for the winning
//   side and 0 for the other, and realized += contracts × payout − cost. A void refunds at cost:
//   price = entryPrice, profit 0, result `void`, not counted in the win rate.
// - winRate = wins / (wins + losses) over settled holdings; null until one wins or loses.
// - Holdings of market bots are kept (the bot may read them) but left out of the account's positions
//   and totals: the spec keeps a market bot's trades on the bot.
import { assign, setup, type SnapshotFrom } from "xstate"
import type { MarketObject } from "../../domain/market-object.js"

export type Source = "hand" | "bot"

export interface BotTag {
  readonly id: string
  readonly name: string
}

/** One recorded fill as the account applies it (a hand order or a bot's fill). */
export interface RecordedFill {
  /** Per-account sequence: the order fills are applied in, and replayed in on restore. */
  readonly seq: number
  /** Contract ref. */
  readonly ref: string
  readonly market: MarketObject
  /** Side `name`. */
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly contracts: number
  /** Buy: paid, fee included. Sale: proceeds, fee deducted. */
  readonly cost: number
  /** Epoch ms. */
  readonly at: number
  readonly source: Source
  readonly bot: BotTag | null
}

export interface Holding {
  readonly key: string
  readonly ref: string
  readonly market: MarketObject
  readonly outcome: string
  readonly source: Source
  readonly bot: BotTag | null
  readonly contracts: number
  /** Total paid for the contracts still held, fee included. */
  readonly cost: number
  readonly openedAt: number
  readonly status: "open" | "settled"
  readonly result: "win" | "loss" | "void" | null
  /** Payout per contract once settled (void: the entry price). */
  readonly payout: number | null
  readonly settledAt: number | null
}

export interface AccountContext {
  readonly accountId: string
  readonly holdings: Readonly<Record<string, Holding>>
  /** Sales and settled holdings, market bots left out. */
  readonly realized: number
  readonly wins: number
  readonly losses: number
  /** The last fill's seq. */
  readonly seq: number
}

export type AccountEvent =
  | { readonly type: "fill.recorded"; readonly fill: RecordedFill }
  /** Takes back a fill whose write failed (`applyFill` run backwards on the holding it changed). */
  | { readonly type: "fill.undone"; readonly fill: RecordedFill; readonly before: Holding | null; readonly profit: number | null }
  | { readonly type: "market.settled"; readonly ref: string; readonly winner: string; readonly at: number }
  | { readonly type: "market.voided"; readonly ref: string; readonly at: number }

// ---- pure arithmetic ----

/** Sums to 1e-10: contracts and dollars carry at most 6 and 12 decimals; this keeps float dust out. */
const tidy = (x: number, places = 10): number => {
  const r = Number(x.toFixed(places))
  return Object.is(r, -0) ? 0 : r
}

export const holdingKey = (ref: string, outcome: string, source: Source, botId: string | null): string =>
  `${ref}\u0000${outcome}\u0000${source}\u0000${botId ?? ""}`

export const isMarketBot = (bot: BotTag | null): boolean => bot !== null && bot.id.startsWith("market:")

/** The account after one fill, and on a sale its profit against the average cost held. */
export const applyFill = (context: AccountContext, fill: RecordedFill): {
  readonly context: AccountContext
  readonly profit: number | null
  readonly before: Holding | null
} => {
  const key = holdingKey(fill.ref, fill.outcome, fill.source, fill.bot?.id ?? null)
  const held = context.holdings[key]
  const before = held ?? null
  const seq = Math.max(context.seq, fill.seq)
  if (fill.action === "buy" && held !== undefined && held.status === "settled") {
    // A fill that reached the account after its market settled (a bot's, from the bots' flush): it joins the
    // settled holding as if it had come before the settlement, which is what a restore makes of it.
    const joined = settledWith(held, held.contracts + fill.contracts, held.cost + fill.cost)
    return {
      context: { ...context, seq, holdings: { ...context.holdings, [key]: joined }, realized: tidy(context.realized + settledGain(held, fill)) },
      profit: null, before,
    }
  }
  if (fill.action === "buy") {
    const next: Holding = held !== undefined && held.status === "open"
      // The newest fill's tag: a signal bot's name changes (PATCH, or a new signal renames a derived one).
      ? { ...held, contracts: tidy(held.contracts + fill.contracts, 6), cost: tidy(held.cost + fill.cost), bot: fill.bot ?? held.bot }
      : {
        key, ref: fill.ref, market: fill.market, outcome: fill.outcome, source: fill.source, bot: fill.bot,
        contracts: fill.contracts, cost: fill.cost, openedAt: fill.at, status: "open", result: null, payout: null,
        settledAt: null,
      }
    return { context: { ...context, seq, holdings: { ...context.holdings, [key]: next } }, profit: null, before }
  }
  if (held !== undefined && held.status === "settled" && held.contracts > 0) {
    // A sale that reached the account after its market settled (a bot's mirrored exit, from the bots'
    // flush): as if it had come before the settlement, which is what a restore makes of it. The settled
    // holding keeps what was not sold, and realized trades the settlement's gain on the sold contracts
    // for the sale's profit; a holding sold whole had never settled, so it no longer counts a win or loss.
    const { sold, basis, profit, left } = saleFrom(held, fill)
    const holdings = replaced(context.holdings, key, left <= 0 ? null : settledWith(held, left, held.cost - basis))
    const counted = !isMarketBot(fill.bot)
    const realized = counted ? tidy(context.realized + settledSaleGain(held, fill, sold, basis)) : context.realized
    const wins = counted && left <= 0 && held.result === "win" ? context.wins - 1 : context.wins
    const losses = counted && left <= 0 && held.result === "loss" ? context.losses - 1 : context.losses
    return { context: { ...context, seq, holdings, realized, wins, losses }, profit, before }
  }
  if (held === undefined || held.status !== "open" || held.contracts <= 0) return { context: { ...context, seq }, profit: null, before }
  const { basis, profit, left } = saleFrom(held, fill)
  const holdings = replaced(context.holdings, key, left <= 0 ? null : { ...held, contracts: left, cost: tidy(held.cost - basis) })
  const realized = isMarketBot(fill.bot) ? context.realized : tidy(context.realized + profit)
  return { context: { ...context, seq, holdings, realized }, profit, before }
}

/** What a sale of `fill` takes out of `held`: contracts, their cost basis (average cost), its profit, what is left. */
const saleFrom = (held: Holding, fill: RecordedFill) => {
  const sold = Math.min(fill.contracts, held.contracts)
  const basis = tidy((held.cost * sold) / held.contracts)
  return { sold, basis, profit: tidy(fill.cost - basis), left: tidy(held.contracts - sold, 6) }
}

/** The holdings with `key` set to `next`, or without it when `next` is null. */
const replaced = (holdings: AccountContext["holdings"], key: string, next: Holding | null): AccountContext["holdings"] => {
  const out = { ...holdings }
  if (next === null) delete out[key]
  else out[key] = next
  return out
}

/** A settled holding with other contracts and cost (a void pays back the new average entry price). */
const settledWith = (held: Holding, contracts: number, cost: number): Holding => {
  const c = tidy(contracts, 6)
  const paid = tidy(cost)
  return { ...held, contracts: c, cost: paid, payout: held.result === "void" ? tidy(paid / c, 6) : held.payout }
}

/** What a buy joining a settled holding adds to realized (nothing on a void or for a market bot). */
const settledGain = (held: Holding, fill: RecordedFill): number =>
  held.result === "void" || isMarketBot(fill.bot) ? 0 : fill.contracts * (held.payout ?? 0) - fill.cost

/**
 * What a sale of `sold` contracts (cost basis `basis`) meeting a settled holding changes in realized: its
 * proceeds less what the settlement paid on them (a void paid back their cost).
 */
const settledSaleGain = (held: Holding, fill: RecordedFill, sold: number, basis: number): number =>
  held.result === "void" ? fill.cost - basis : fill.cost - sold * (held.payout ?? 0)

/** Reverses `applyFill` for a fill whose write failed: the fill taken out of its holding, realized without its profit. */
// Other fills may have been applied to the same holding since (a group commit applies every waiting order
// before its one write), so the fill is taken out of the holding as it is NOW, not by putting `before`
// back (which would also take those fills out): a buy's contracts and cost are subtracted, a sale's
// contracts and cost basis added back. Only when the holding is just this fill's is `before` restored.
export const undoFill = (context: AccountContext, fill: RecordedFill, before: Holding | null, profit: number | null): AccountContext => {
  const key = holdingKey(fill.ref, fill.outcome, fill.source, fill.bot?.id ?? null)
  const holdings = { ...context.holdings }
  const now = holdings[key]
  if (fill.action === "buy" && before !== null && before.status === "settled" && now !== undefined && now.status === "settled") {
    // It had joined a settled holding (applyFill): take it out again, with what it added to realized.
    const contracts = now.contracts - fill.contracts
    holdings[key] = contracts > 1e-9 ? settledWith(now, contracts, now.cost - fill.cost) : before
    return { ...context, holdings, realized: tidy(context.realized - settledGain(before, fill)) }
  }
  if (fill.action === "sell" && before !== null && before.status === "settled" && before.contracts > 0) {
    // It had met a settled holding (applyFill): the sold contracts and their basis go back, and realized,
    // wins and losses are as before it.
    const { sold, basis } = saleFrom(before, fill)
    holdings[key] = now !== undefined && now.status === "settled" ? settledWith(now, now.contracts + sold, now.cost + basis) : before
    if (isMarketBot(fill.bot)) return { ...context, holdings }
    const whole = now === undefined
    return {
      ...context, holdings, realized: tidy(context.realized - settledSaleGain(before, fill, sold, basis)),
      wins: whole && before.result === "win" ? context.wins + 1 : context.wins,
      losses: whole && before.result === "loss" ? context.losses + 1 : context.losses,
    }
  }
  if (fill.action === "buy") {
    const merged = before !== null && before.status === "open"
    if (now !== undefined && now.status === "open" && (merged || now.contracts > fill.contracts + 1e-9)) {
      const contracts = tidy(now.contracts - fill.contracts, 6)
      if (contracts > 0) holdings[key] = { ...now, contracts, cost: tidy(now.cost - fill.cost) }
      else delete holdings[key] // sold since: nothing of it is left to take out
    } else if (before === null) delete holdings[key]
    else holdings[key] = before
  } else if (before !== null && before.status === "open" && before.contracts > 0) {
    const { sold, basis } = saleFrom(before, fill)
    holdings[key] = now !== undefined && now.status === "open"
      ? { ...now, contracts: tidy(now.contracts + sold, 6), cost: tidy(now.cost + basis) }
      : before
  }
  const realized = profit === null || isMarketBot(fill.bot) ? context.realized : tidy(context.realized - profit)
  return { ...context, holdings, realized }
}

/** Every open holding on `ref` settled: `winner` is the winning side's name, null for a void. */
export const applySettlement = (context: AccountContext, ref: string, winner: string | null, at: number): AccountContext => {
  let changed = false
  const holdings = { ...context.holdings }
  let { realized, wins, losses } = context
  for (const h of Object.values(context.holdings)) {
    if (h.ref !== ref || h.status !== "open") continue
    changed = true
    const entry = h.contracts > 0 ? h.cost / h.contracts : 0
    const result = winner === null ? "void" : h.outcome === winner ? "win" : "loss"
    const payout = result === "void" ? tidy(entry, 6) : result === "win" ? 1 : 0
    holdings[h.key] = { ...h, status: "settled", result, payout, settledAt: at }
    if (isMarketBot(h.bot)) continue
    if (result !== "void") realized = tidy(realized + h.contracts * payout - h.cost)
    if (result === "win") wins++
    if (result === "loss") losses++
  }
  return changed ? { ...context, holdings, realized, wins, losses } : context
}

export const emptyAccount = (accountId: string): AccountContext => ({
  accountId, holdings: {}, realized: 0, wins: 0, losses: 0, seq: 0,
})

// ---- the statechart ----

export const accountMachine = setup({
  types: {
    context: {} as AccountContext,
    input: {} as AccountContext,
    events: {} as AccountEvent,
  },
  actions: {
    recordFill: assign(({ context, event }) => (event.type === "fill.recorded" ? applyFill(context, event.fill).context : context)),
    undoFill: assign(({ context, event }) =>
      event.type === "fill.undone" ? undoFill(context, event.fill, event.before, event.profit) : context),
    settle: assign(({ context, event }) => {
      if (event.type === "market.settled") return applySettlement(context, event.ref, event.winner, event.at)
      if (event.type === "market.voided") return applySettlement(context, event.ref, null, event.at)
      return context
    }),
  },
}).createMachine({
  id: "paperAccount",
  context: ({ input }) => input,
  initial: "active",
  states: {
    active: {
      on: {
        "fill.recorded": { actions: "recordFill" },
        "fill.undone": { actions: "undoFill" },
        "market.settled": { actions: "settle" },
        "market.voided": { actions: "settle" },
      },
    },
  },
})

export type AccountSnapshot = SnapshotFrom<typeof accountMachine>

/** The account's totals over its open and settled holdings (market bots left out), given current prices. */
export const totalsOf = (context: AccountContext, priceOf: (h: Holding) => number | null): {
  readonly openUsd: number
  readonly unrealized: number
  readonly realized: number
  readonly winRate: number | null
} => {
  let openUsd = 0
  let unrealized = 0
  for (const h of Object.values(context.holdings)) {
    if (h.status !== "open" || isMarketBot(h.bot)) continue
    openUsd += h.cost
    const price = priceOf(h)
    if (price !== null) unrealized += h.contracts * price - h.cost
  }
  const decided = context.wins + context.losses
  return {
    openUsd: tidy(openUsd, 6),
    unrealized: tidy(unrealized, 6),
    realized: tidy(context.realized, 6),
    winRate: decided === 0 ? null : context.wins / decided,
  }
}
