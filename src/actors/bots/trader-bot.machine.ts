// The trader bot: copies each buy of one named trader as a paper buy at its sizing, and (with
// `mirrorExits`) sells its holding on a side when the trader sells that side. running ⇄ paused; ended
// when deleted. Settlement closes its open trades in every state. Trades come in batches (one command
// per delivery, handled trade by trade), each with its book walks (a Quoter); arithmetic lives in
// ledger.ts and signal-match.ts. Fills leave through the batch's `out` (TradeBatch: an `emit` per fill
// cost ~4 µs each in xstate, most of a busy bot's time); every other output leaves by `emit`.
import { enqueueActions, setup, type SnapshotFrom } from "xstate"
import type { BotEmitted, SourceTrade, TraderBotContext, TraderCommand } from "./bot-types.js"
import { addMatched, nextSeqOf, openOn, openTrade, sellHeld, settleOn } from "./ledger.js"
import type { Quoter } from "./quote.js"
import { stakeOf } from "./signal-match.js"

type Out = (event: BotEmitted) => void

/** One trade of the trader: a buy is copied at the bot's sizing, a sale mirrored with `mirrorExits`. */
const copyOne = (context: TraderBotContext, t: SourceTrade, quoter: Quoter, ord: number, out: Out): void => {
  if (t.action === "buy") {
    addMatched(context.matched, t.time, t.usd)
    const fill = quoter.buy(t.side, stakeOf(context.settings.sizing, t.usd))
    if (fill === null) return
    context.trades.push(openTrade({
      botId: context.id, seq: nextSeqOf(context), market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time, sourceUsd: t.usd,
    }))
    out({
      type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "trader", action: "buy",
      market: t.market, side: t.side, outcome: t.outcome, fill, at: t.time, ord,
    })
    return
  }
  if (!context.settings.mirrorExits) return
  const held = openOn(context.trades, t.market.contract, t.side)
  if (held.length === 0) return
  const sale = quoter.sell(t.side, held.reduce((s, h) => s + h.contracts, 0))
  if (sale === null) return
  sellHeld(context.trades, held, sale, t.time)
  out({
    type: "bot.traded", botId: context.id, accountId: context.accountId, kind: "trader", action: "sell",
    market: t.market, side: t.side, outcome: t.outcome, fill: sale, at: t.time, ord,
  })
}

export const traderBotMachine = setup({
  types: {
    context: {} as TraderBotContext,
    input: {} as TraderBotContext,
    events: {} as TraderCommand,
    emitted: {} as BotEmitted,
  },
  actions: {
    copy: enqueueActions(({ context, event }) => {
      if (event.type !== "trades.seen") return
      event.trades.forEach((t, i) => {
        const quoter = event.quoters[i]
        const ord = event.ords[i]
        if (quoter !== undefined && ord !== undefined) copyOne(context, t, quoter, ord, event.out)
      })
    }),
    noteMatch: enqueueActions(({ context, event }) => {
      if (event.type !== "trades.seen") return
      for (const t of event.trades) if (t.action === "buy") addMatched(context.matched, t.time, t.usd)
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
        "trades.seen": { actions: "copy" },
        "bot.pause": { target: "paused", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    paused: {
      on: {
        "trades.seen": { actions: "noteMatch" },
        "bot.resume": { target: "running", actions: "changed" },
        "bot.end": { target: "ended", actions: "changed" },
      },
    },
    /** Not an xstate final state: open trades still settle. */
    ended: {},
  },
})

export type TraderBotSnapshot = SnapshotFrom<typeof traderBotMachine>
