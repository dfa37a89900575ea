// A bot as clients read it, from its actor's context and status: the list item, the full bot, the
// trade rows and the activity. Pure: current prices come in as a function, `now` (feed time) for the
// activity window comes from the caller; epoch ms become ISO strings here.
import type { Bot, BotActivity, BotListItem, BotSettings, BotTradeRow } from "../../domain/bot.js"
import { VENUES, type Venue } from "../../domain/enums.js"
import { handleLabel } from "../../domain/refs.js"
import type { AnyBotContext } from "./bot-types.js"
import { activityOf, curveOf, lastTradeAtOf, recordOf, sidePrice, type BotTrade } from "./ledger.js"
import type { BotStatus } from "./registry.js"
import { signalName, sizingText } from "./signal-match.js"

export type Prices = (contract: string) => number | null

export const iso = (ms: number): string => new Date(ms).toISOString()

export const venuesOf = (ctx: AnyBotContext): ReadonlyArray<Venue> => {
  switch (ctx.kind) {
    case "trader": return [ctx.settings.trader.ref.slice(0, ctx.settings.trader.ref.indexOf(":")) as Venue]
    case "signal": {
      // The venues it can copy on, each once, in the venues' order: those it names (none = all), and of
      // those only its traders' when it copies named traders.
      const signal = ctx.settings.signal
      const named = signal?.venue === undefined || signal.venue.length === 0 ? VENUES : signal.venue
      const traders = signal?.traders === undefined || signal.traders.length === 0
        ? null
        : new Set(signal.traders.map((ref) => ref.slice(0, ref.indexOf(":"))))
      return VENUES.filter((v) => named.includes(v) && (traders === null || traders.has(v)))
    }
    case "market": return [ctx.settings.market.venue]
  }
}

const ruleText = (ctx: Extract<AnyBotContext, { kind: "market" }>): string => {
  const r = ctx.settings.rule
  const side = ctx.settings.outcome
  const buy = r.buyBelow !== undefined ? `Buys ${side} at or below ${r.buyBelow}`
    : r.buyAbove !== undefined ? `Buys ${side} at or above ${r.buyAbove}`
    : r.dropsBy !== undefined ? `Buys ${side} after a ${r.dropsBy} drop`
    : r.risesBy !== undefined ? `Buys ${side} after a ${r.risesBy} rise`
    : `Buys ${side} at once`
  const exits = [
    r.takeProfit === undefined ? null : `take profit ${r.takeProfit}`,
    r.stopLoss === undefined ? null : `stop loss ${r.stopLoss}`,
    r.takeProfitPoints === undefined ? null : `take profit +${r.takeProfitPoints}`,
    r.stopLossPoints === undefined ? null : `stop loss −${r.stopLossPoints}`,
    r.maxHoldHours === undefined ? null : `hold at most ${r.maxHoldHours} h`,
  ].filter((x): x is string => x !== null)
  const where = ctx.settings.followSeries ? `${ctx.settings.market.title} and its series` : ctx.settings.market.title
  return [`${buy} on ${where}`, ...exits, r.repeat ? "repeats" : null, sizingText(ctx.settings.sizing)].filter((x) => x !== null).join(", ")
}

/** One line. */
export const summaryOf = (ctx: AnyBotContext): string => {
  switch (ctx.kind) {
    case "trader": {
      // A trader with no public name is called by its handle, a wallet shortened (never given out whole).
      const who = ctx.settings.trader.name ?? handleLabel(ctx.settings.trader.ref.slice(ctx.settings.trader.ref.indexOf(":") + 1))
      return `Copies ${who}'s buys at ${sizingText(ctx.settings.sizing)}${ctx.settings.mirrorExits ? ", sells when they sell" : ""}`
    }
    case "signal":
      return ctx.settings.signal === null
        ? `Copies whale buys (settings made in the app) at ${sizingText(ctx.settings.sizing)}`
        : `Copies ${signalName(ctx.settings.signal).replace(/^Whale buys/, "whale buys")} at ${sizingText(ctx.settings.sizing)}`
    case "market":
      return ruleText(ctx)
  }
}

export const settingsOf = (ctx: AnyBotContext): BotSettings => {
  switch (ctx.kind) {
    case "trader":
      return { trader: ctx.settings.trader, sizing: ctx.settings.sizing, mirrorExits: ctx.settings.mirrorExits, alerts: ctx.alerts }
    case "signal":
      // Settings only the app can edit are not shown (spec: `signal` null), as a PATCH of them is refused.
      return { signal: ctx.settings.appOnly ? null : ctx.settings.signal, sizing: ctx.settings.sizing, alerts: ctx.alerts }
    case "market": {
      const m = ctx.settings.market
      return {
        market: { ref: m.ref, contract: m.contract, title: m.title, outcome: ctx.settings.outcome, series: ctx.settings.followSeries },
        rule: ctx.settings.rule, sizing: ctx.settings.sizing, alerts: ctx.alerts,
      }
    }
  }
}

export const listItemOf = (ctx: AnyBotContext, status: BotStatus, prices: Prices): BotListItem => {
  const record = recordOf(ctx.trades, prices)
  const last = lastTradeAtOf(ctx.trades)
  return {
    id: ctx.id, name: ctx.name, kind: ctx.kind, mode: ctx.mode, summary: summaryOf(ctx), status, venues: venuesOf(ctx),
    trades: record.trades, profit: record.profit, winRate: record.winRate, lastTradeAt: last === null ? null : iso(last),
  }
}

export const botOf = (ctx: AnyBotContext, status: BotStatus, prices: Prices): Bot => {
  const record = recordOf(ctx.trades, prices)
  const last = lastTradeAtOf(ctx.trades)
  return {
    id: ctx.id, name: ctx.name, kind: ctx.kind, mode: ctx.mode, summary: summaryOf(ctx), status, venues: venuesOf(ctx),
    profit: record.profit, winRate: record.winRate, lastTradeAt: last === null ? null : iso(last),
    settings: settingsOf(ctx), record, curve: curveOf(ctx.trades).map((p) => ({ time: iso(p.time), profit: p.profit })),
  }
}

export const tradeRowOf = (t: BotTrade, prices: Prices): BotTradeRow => {
  const now = t.status === "open" ? sidePrice(prices(t.market.contract), t.side) : t.exitPrice
  return {
    market: { ref: t.market.ref, contract: t.market.contract, title: t.market.title, venue: t.market.venue, category: null, kind: null },
    outcome: t.outcome, contracts: t.contracts, entryPrice: t.entryPrice, price: now,
    profit: t.status === "closed" ? t.profit : now === null ? null : Math.round((t.contracts * now - t.cost) * 1e6) / 1e6,
    status: t.status, result: t.result, openedAt: iso(t.openedAt), closedAt: t.closedAt === null ? null : iso(t.closedAt),
  }
}

/** Trades newest first (by sequence), filtered: opened at or after `since`; `result` open, win or loss. */
export const tradesOf = (
  ctx: AnyBotContext, filter: { readonly since?: number; readonly result?: "open" | "win" | "loss" },
): Array<BotTrade> =>
  ctx.trades.filter((t) =>
    (filter.since === undefined || t.openedAt >= filter.since) &&
    (filter.result === undefined || (filter.result === "open" ? t.status === "open" : t.status === "closed" && t.result === filter.result))
  ).reverse()

/** Null for a market bot. */
export const activityView = (ctx: AnyBotContext, now: number): BotActivity | null => {
  if (ctx.kind === "market") return null
  const a = activityOf(ctx.matched, now)
  return { ...a, lastTradeAt: a.lastTradeAt === null ? null : iso(a.lastTradeAt) }
}
