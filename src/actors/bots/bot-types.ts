// What the three bot statecharts share: the context every bot keeps (JSON only, since it is the
// persisted snapshot), the commands the registry and operations send, and what bots emit. No logic.
import type { BotKind } from "../../domain/refs.js"
import type { MarketRule } from "../../domain/bot.js"
import type { Signal, Sizing, UsdSizing } from "../../domain/signal.js"
import type { Venue } from "../../domain/enums.js"
import type { Fill } from "../../domain/fill.js"
import type { BotTrade, Filled, Matched, TradeMarket } from "./ledger.js"
import type { Quoter } from "./quote.js"

export interface BotCore {
  readonly id: string
  readonly accountId: string
  readonly kind: BotKind
  readonly name: string
  readonly mode: "paper" | "live"
  readonly alerts: boolean
  /** Wall time of creation (epoch ms), from the operation's Clock; orders listings. */
  readonly createdAt: number
  /** Every trade, oldest first; append-only, changed in place (ledger.ts); `seq` n at index n − 1. */
  readonly trades: Array<BotTrade>
}

export interface TraderSettings {
  readonly trader: { readonly ref: string; readonly name: string | null }
  readonly sizing: Sizing
  readonly mirrorExits: boolean
}

export interface SignalSettings {
  /** Null when the bot holds settings only the app can edit (never for an API bot). */
  readonly signal: Signal | null
  readonly sizing: Sizing
  /** Set by the app for settings the API cannot show (e.g. sports leagues); the API refuses to edit the signal then. */
  readonly appOnly: boolean
  /** True when `name` was given by the user (else it follows the signal). */
  readonly named: boolean
}

export interface MarketSettings {
  /** The contract traded now (moves along the series when following one). */
  readonly market: TradeMarket
  readonly side: 0 | 1
  /** Spec: `Yes` or `No`. */
  readonly outcome: "Yes" | "No"
  /** The side's `name` on this contract (venue_b names its outcomes). */
  readonly sideName: string
  readonly rule: MarketRule
  readonly sizing: UsdSizing
  /** Follow the repeating series (`series: true` at creation); `seriesId` is MarketInfo.series. */
  readonly followSeries: boolean
  readonly seriesId: string | null
}

export interface TraderBotContext extends BotCore {
  readonly kind: "trader"
  readonly settings: TraderSettings
  readonly matched: Array<Matched>
}

export interface SignalBotContext extends BotCore {
  readonly kind: "signal"
  readonly settings: SignalSettings
  readonly matched: Array<Matched>
}

export interface MarketBotContext extends BotCore {
  readonly kind: "market"
  readonly settings: MarketSettings
  /** The side's price when the bot started on this market (dropsBy / risesBy measure from it). */
  readonly basePrice: number | null
  /** Bought at least once on the current market. */
  readonly boughtHere: boolean
  /** The current market settled, was voided or closed. */
  readonly marketOver: boolean
  /** Listing time of the current market (the next one of the series must be listed later). */
  readonly listedAt: number
}

export type AnyBotContext = TraderBotContext | SignalBotContext | MarketBotContext

/** A live trade as a bot sees it. */
export interface SourceTrade {
  readonly market: TradeMarket
  readonly side: 0 | 1
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly usd: number
  readonly time: number
}

/**
 * Live trades for one bot, oldest first, as one command (the registry gathers a delivery's trades per
 * bot): `quoters[i]` walks the book of `trades[i]`; `ords[i]` is the registry's delivery order of that
 * trade to this bot, carried on the fill it makes so fills leave in feed order whatever the batching.
 * Handling the batch is handling its trades one by one: nothing else reaches the bot in between.
 */
export interface TradeBatch {
  readonly trades: ReadonlyArray<SourceTrade>
  readonly quoters: ReadonlyArray<Quoter>
  readonly ords: ReadonlyArray<number>
  /**
   * Where the bot's fills go (the registry's outbox), in place of an xstate `emit` per fill: measured
   * (xstate 5.33, 5,000 actors) a send costs ~3.4 µs, and each `emit` or `assign` in it ~4 µs more.
   */
  readonly out: (event: BotEmitted) => void
}

/** Commands every kind understands. */
export type CommonCommand =
  | { readonly type: "market.settled"; readonly contract: string; readonly winner: string | null; readonly ts: number }
  | { readonly type: "bot.pause" }
  | { readonly type: "bot.resume" }
  | { readonly type: "bot.end" }
  | { readonly type: "bot.alerts"; readonly alerts: boolean }

export type TraderCommand =
  | CommonCommand
  /** Trades of the bot's trader (buy: copy; sell: mirror when asked to). */
  | ({ readonly type: "trades.seen" } & TradeBatch)
  | { readonly type: "bot.configure"; readonly sizing?: Sizing; readonly mirrorExits?: boolean }

export type SignalCommand =
  | CommonCommand
  /** Whale buys that matched the signal. */
  | ({ readonly type: "trades.matched" } & TradeBatch)
  | { readonly type: "bot.configure"; readonly name?: string; readonly signal?: Signal; readonly sizing?: Sizing; readonly derivedName?: string }

export type MarketCommand =
  | CommonCommand
  /** The side's market moved (or the bot starts: `ts` is the feed time now). */
  | { readonly type: "market.price"; readonly ts: number; readonly yesPrice: number | null; readonly quoter: Quoter }
  /** Feed time passed with no price (maxHoldHours). */
  | { readonly type: "clock.tick"; readonly ts: number; readonly yesPrice: number | null; readonly quoter: Quoter }
  /** The next market of the series opened. */
  | {
    readonly type: "series.next"; readonly market: TradeMarket; readonly sideName: string; readonly listedAt: number
    readonly ts: number; readonly yesPrice: number | null; readonly quoter: Quoter
  }
  | { readonly type: "bot.configure"; readonly rule?: MarketRule; readonly sizing?: UsdSizing }

/** What bots emit; the registry forwards fills to the paper accounts and marks the bot for persisting. */
export type BotEmitted =
  | {
    readonly type: "bot.traded"; readonly botId: string; readonly accountId: string; readonly kind: BotKind
    readonly action: "buy" | "sell"; readonly market: TradeMarket; readonly side: 0 | 1; readonly outcome: string
    readonly fill: Fill; readonly at: number
    /** The delivery order of the trade it copies (TradeBatch.ords); absent on a market bot's fill. */
    readonly ord?: number
  }
  | { readonly type: "bot.settled"; readonly botId: string; readonly contract: string }
  | { readonly type: "bot.changed"; readonly botId: string }

export const venueList = (venues: ReadonlyArray<Venue> | undefined, all: ReadonlyArray<Venue>): ReadonlyArray<Venue> =>
  venues === undefined || venues.length === 0 ? all : venues

export type { BotTrade, Filled, Matched, TradeMarket }
