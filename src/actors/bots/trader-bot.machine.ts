// The trader bot: copies each buy of one named trader as a paper buy at its sizing, and (with
// `mirrorExits`) sells its holding on a side when the trader sells that side. running ⇄ paused; ended
// when deleted. Settlement closes its open trades in every state. Book walks come with the event (a
// Quoter); arithmetic lives in ledger.ts and signal-match.ts. Outputs leave only by `emit`.
import { enqueueActions, setup, type SnapshotFrom } from "xstate"
import type { BotEmitted, TraderBotContext, TraderCommand } from "./bot-types.js"
import { addMatched, openOn, openTrade, sellHeld, settleOn } from "./ledger.js"
import { stakeOf } from "./signal-match.js"

export const traderBotMachine = setup({
  types: {
    context: {} as TraderBotContext,
    input: {} as TraderBotContext,
    events: {} as TraderCommand,
    emitted: {} as BotEmitted,
  },
  actions: {
    copy: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "trade.seen") return
      const t = event.trade
      if (t.action === "buy") {
        addMatched(context.matched, t.time, t.usd)
        const fill = event.quoter.buy(t.side, stakeOf(context.settings.sizing, t.usd))
        if (fill === null) return
        const trade = openTrade({
          botId: context.id, seq: context.nextSeq, market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time, sourceUsd: t.usd,
        })
        context.trades.push(trade)
        enqueue.assign({ nextSeq: context.nextSeq + 1 })
        enqueue.emit({
          type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "trader", action: "buy",
          market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time,
        })
        return
      }
      if (!context.settings.mirrorExits) return
      const held = openOn(context.trades, t.market.contract, t.side)
      if (held.length === 0) return
      const sale = event.quoter.sell(t.side, held.reduce((s, h) => s + h.contracts, 0))
      if (sale === null) return
      sellHeld(context.trades, held, sale, t.time)
      enqueue.emit({
        type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "trader", action: "sell",
        market: t.market, side: t.side, outcome: t.outcome, fill: sale, at: t.time,
      })
    }),
    noteMatch: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === "trade.seen" && event.trade.action === "buy") {
        addMatched(context.matched, event.trade.time, event.trade.usd)
      }
    }),
    settle: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.settled") return
      if (!settleOn(context.trades, event.contract, event.winner, event.ts)) return
      enqueue.emit({ type: "bot.settled", botId: context.id, contract: event.contract })
    }),
    configure: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "bot.configure") return
      enqueue.assign({
        settings: {
          ...context.settings,
          ...(event.sizing === undefined ? {} : { sizing: event.sizing }),
          ...(event.mirrorExits === undefined ? {} : { mirrorExits: event.mirrorExits }),
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
}).createMachine({
  id: "traderBot",
  context: ({ input }) => input,
  initial: "running",
  on: {
    "market.settled": { actions: "settle" },
    "bot.configure": { actions: "configure" },
    "bot.alerts": { actions: "alerts" },
  },
  states: {
    running: {
      on: {
        "trade.seen": { actions: "copy" },
        "bot.pause": { target: "paused", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    paused: {
      on: {
        "trade.seen": { actions: "noteMatch" },
        "bot.resume": { target: "running", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    /** Not an xstate final state: open trades still settle. */
    ended: {},
  },
})

export type TraderBotSnapshot = SnapshotFrom<typeof traderBotMachine>
