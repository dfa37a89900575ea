// The signal bot: copies every whale buy the registry matched against its signal (signal-match.ts) as a
// paper buy at its sizing; the matches of one delivery come as one command, handled trade by trade. It
// cannot be paused (spec): running, then ended when deleted. Settlement closes its open trades in both
// states. Fills leave through the batch's `out` (TradeBatch); every other output leaves by `emit`.
import { enqueueActions, setup, type SnapshotFrom } from "xstate"
import type { BotEmitted, SignalBotContext, SignalCommand } from "./bot-types.js"
import { addMatched, nextSeqOf, openTrade, settleOn } from "./ledger.js"
import { stakeOf } from "./signal-match.js"

export const signalBotMachine = setup({
  types: {
    context: {} as SignalBotContext,
    input: {} as SignalBotContext,
    events: {} as SignalCommand,
    emitted: {} as BotEmitted,
  },
  actions: {
    copy: enqueueActions(({ context, event }) => {
      if (event.type !== "trades.matched") return
      event.trades.forEach((t, i) => {
        const quoter = event.quoters[i]
        const ord = event.ords[i]
        if (quoter === undefined || ord === undefined) return
        addMatched(context.matched, t.time, t.usd)
        const fill = quoter.buy(t.side, stakeOf(context.settings.sizing, t.usd))
        if (fill === null) return
        context.trades.push(openTrade({
          botId: context.id, seq: nextSeqOf(context), market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time, sourceUsd: t.usd,
        }))
        event.out({
          type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "signal", action: "buy",
          market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time, ord,
        })
      })
    }),
    settle: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.settled") return
      if (!settleOn(context.trades, event.contract, event.winner, event.ts)) return
      enqueue.emit({ type: "bot.settled", botId: context.id, contract: event.contract })
    }),
    configure: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "bot.configure") return
      const named = context.settings.named || event.name !== undefined
      const name = event.name ?? (named ? context.name : event.derivedName ?? context.name)
      enqueue.assign({
        name,
        settings: {
          ...context.settings,
          named,
          ...(event.signal === undefined ? {} : { signal: event.signal }),
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
}).createMachine({
  id: "signalBot",
  context: ({ input }) => input,
  initial: "running",
  on: {
    "market.settled": { actions: "settle" },
  },
  states: {
    running: {
      on: {
        "trades.matched": { actions: "copy" },
        "bot.configure": { actions: "configure" },
        "bot.alerts": { actions: "alerts" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    /** Deleted: open trades still settle. */
    ended: {},
  },
})

export type SignalBotSnapshot = SnapshotFrom<typeof signalBotMachine>
