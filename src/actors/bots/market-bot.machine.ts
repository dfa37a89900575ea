// The market bot: one side of one contract, one buy trigger and its exits (market-rule.ts), `usd`
// sizing. running (waiting → holding → waiting again with `repeat`, or on to the next market of its
// series, or ended) ⇄ paused; ended once it has nothing left to do or is deleted. Its trades stay on the
// bot (never in the paper account). Prices and book walks arrive with the events; the registry offers
// the next market of the series whenever the bot is `seeking`. Outputs leave only by `emit`.
import { and, enqueueActions, not, or, setup, type SnapshotFrom } from "xstate"
import type { BotEmitted, MarketBotContext, MarketCommand } from "./bot-types.js"
import { type BotTrade, nextSeqOf, openTrade, sellHeld, settleOn, sidePrice } from "./ledger.js"
import { buyTriggered, exitDue } from "./market-rule.js"

/** The open trade on the current market: a market bot holds at most one, its latest. */
const held = (context: MarketBotContext): ReadonlyArray<BotTrade> => {
  const last = context.trades[context.trades.length - 1]
  return last !== undefined && last.status === "open" && last.market.contract === context.settings.market.contract && last.side === context.settings.side
    ? [last]
    : []
}

export const marketBotMachine = setup({
  types: {
    context: {} as MarketBotContext,
    input: {} as MarketBotContext,
    events: {} as MarketCommand,
    emitted: {} as BotEmitted,
  },
  actions: {
    tryBuy: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.price" && event.type !== "clock.tick") return
      const { settings } = context
      const price = sidePrice(event.yesPrice, settings.side)
      const basePrice = context.basePrice ?? price
      if (basePrice !== context.basePrice) enqueue.assign({ basePrice })
      if (!buyTriggered(settings.rule, price, basePrice)) return
      const fill = event.quoter.buy(settings.side, settings.sizing.usd)
      if (fill === null) return
      const trade = openTrade({
        botId: context.id, seq: nextSeqOf(context), market: settings.market, side: settings.side, outcome: settings.sideName,
        fill, at: event.ts, sourceUsd: null,
      })
      context.trades.push(trade)
      enqueue.assign({ boughtHere: true })
      enqueue.emit({
        type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "market", action: "buy",
        market: settings.market, side: settings.side, outcome: settings.sideName, fill, at: event.ts,
      })
    }),
    trySell: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.price" && event.type !== "clock.tick") return
      const { settings } = context
      const holding = held(context)
      const first = holding[0]
      if (first === undefined) return
      if (exitDue(settings.rule, first, sidePrice(event.yesPrice, settings.side), event.ts) === null) return
      const sale = event.quoter.sell(settings.side, holding.reduce((s, t) => s + t.contracts, 0))
      if (sale === null) return
      sellHeld(context.trades, holding, sale, event.ts)
      enqueue.emit({
        type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "market", action: "sell",
        market: settings.market, side: settings.side, outcome: settings.sideName, fill: sale, at: event.ts,
      })
    }),
    settle: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.settled") return
      const changed = settleOn(context.trades, event.contract, event.winner, event.ts)
      const over = event.contract === context.settings.market.contract
      if (!changed && !over) return
      if (over) enqueue.assign({ marketOver: true })
      enqueue.emit({ type: "bot.settled", botId: context.id, contract: event.contract })
    }),
    switchMarket: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "series.next") return
      enqueue.assign({
        settings: { ...context.settings, market: event.market, sideName: event.sideName },
        basePrice: sidePrice(event.yesPrice, context.settings.side),
        listedAt: event.listedAt, boughtHere: false, marketOver: false,
      })
      enqueue.emit({ type: "bot.changed", botId: context.id })
    }),
    configure: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "bot.configure") return
      enqueue.assign({
        settings: {
          ...context.settings,
          ...(event.rule === undefined ? {} : { rule: event.rule }),
          ...(event.sizing === undefined ? {} : { sizing: event.sizing }),
        },
      })
      enqueue.emit({ type: "bot.changed", botId: context.id })
    }),
    alerts: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "bot.alerts") return
      enqueue.assign({ alerts: event.alerts })
      enqueue.emit({ type: "bot.changed", botId: context.id })
    }),
    changed: enqueueActions(({ context, enqueue }) => enqueue.emit({ type: "bot.changed", botId: context.id })),
  },
  guards: {
    holds: ({ context }) => held(context).length > 0,
    doneHere: ({ context }) => context.marketOver || (context.boughtHere && !context.settings.rule.repeat),
    followsSeries: ({ context }) => context.settings.followSeries && context.settings.seriesId !== null,
  },
}).createMachine({
  id: "marketBot",
  context: ({ input }) => input,
  initial: "running",
  on: {
    "market.settled": { actions: "settle" },
    "bot.alerts": { actions: "alerts" },
  },
  states: {
    running: {
      initial: "check",
      on: {
        "market.settled": { actions: "settle", target: ".check" },
        "bot.configure": { actions: "configure", target: ".check" },
        "bot.pause": { target: "paused", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
      states: {
        /** Where the bot stands, from its context alone (also after a restore or a resume). */
        check: {
          always: [
            { guard: "holds", target: "holding" },
            { guard: and(["doneHere", "followsSeries"]), target: "seeking" },
            { guard: "doneHere", target: "#marketBot.ended", actions: "changed" },
            { target: "waiting" },
          ],
        },
        // A price that changes nothing leaves the state as it is (no exit, no check): most prices do, and
        // the check runs only once a buy or a sale moved the bot.
        waiting: {
          always: { guard: or(["holds", "doneHere"]), target: "check" },
          on: {
            "market.price": { actions: "tryBuy" },
            "clock.tick": { actions: "tryBuy" },
          },
        },
        holding: {
          always: { guard: not("holds"), target: "check" },
          on: {
            "market.price": { actions: "trySell" },
            "clock.tick": { actions: "trySell" },
          },
        },
        /** Done with this market; the registry offers the next market of the series. */
        seeking: {
          on: { "series.next": { actions: "switchMarket", target: "check" } },
        },
      },
    },
    paused: {
      on: {
        "bot.configure": { actions: "configure" },
        "bot.resume": { target: "running", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    /** Not an xstate final state: an open trade still settles. */
    ended: {},
  },
})

export type MarketBotSnapshot = SnapshotFrom<typeof marketBotMachine>
