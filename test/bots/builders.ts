// Builders of bot contexts (what an operation creates) and of the feed a bot test needs, in feed time.
import type { MarketRule } from "../../src/domain/bot.js"
import type { FeedTrader } from "../../src/domain/feed-events.js"
import type { Signal, Sizing } from "../../src/domain/signal.js"
import type { MarketBotContext, SignalBotContext, TraderBotContext } from "../../src/actors/bots/bot-types.js"
import { aListing, aPrint, aSnapshot } from "../actors/market-builders.js"

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
export const MIN = 60_000
export const HOUR = 60 * MIN

let n = 0
const core = (kind: string, over: { readonly id?: string; readonly accountId?: string; readonly name?: string }) => ({
  id: over.id ?? `${kind}:b${++n}`, accountId: over.accountId ?? "acct", name: over.name ?? `${kind} bot`, mode: "paper" as const,
  alerts: true, createdAt: T0, trades: [],
})

export const aTraderBot = (o: { readonly trader?: string; readonly sizing?: Sizing; readonly mirrorExits?: boolean; readonly id?: string; readonly accountId?: string } = {}): TraderBotContext => ({
  ...core("trader", o), kind: "trader",
  settings: { trader: { ref: o.trader ?? "venue_a:alice", name: "ALICE" }, sizing: o.sizing ?? { usd: 100 }, mirrorExits: o.mirrorExits ?? false },
  matched: [],
})

export const aSignalBot = (signal: Partial<Signal> = {}, o: { readonly sizing?: Sizing; readonly id?: string; readonly accountId?: string } = {}): SignalBotContext => ({
  ...core("signal", o), kind: "signal",
  settings: { signal: { entry: "all", ...signal } as Signal, sizing: o.sizing ?? { usd: 100 }, appOnly: false, named: false },
  matched: [],
})

export const aMarketBot = (o: {
  readonly contract?: string; readonly ref?: string; readonly rule?: Partial<MarketRule>; readonly side?: 0 | 1; readonly usd?: number
  readonly series?: string | null; readonly listedAt?: number; readonly id?: string; readonly accountId?: string
} = {}): MarketBotContext => {
  const ref = o.ref ?? `venue_a:${o.contract ?? "C1"}`
  const side = o.side ?? 0
  return {
    ...core("market", o), kind: "market",
    settings: {
      market: { ref, contract: ref, title: `Will ${o.contract ?? "C1"} happen?`, venue: ref.slice(0, ref.indexOf(":")) as "venue_a" }, side, outcome: side === 0 ? "Yes" : "No",
      sideName: side === 0 ? "Yes" : "No", rule: { repeat: false, ...o.rule }, sizing: { usd: o.usd ?? 100 },
      followSeries: o.series !== undefined && o.series !== null, seriesId: o.series ?? null,
    },
    basePrice: null, boughtHere: false, marketOver: false, listedAt: o.listedAt ?? T0,
  }
}

/** A listed contract with a two-sided book on both sides (Yes asks at `ask`, No asks at 1 − bid). */
export const aBookedMarket = (contract: string, t: number, o: { readonly bid?: number; readonly ask?: number; readonly size?: number; readonly series?: string; readonly category?: "politics" | "crypto"; readonly title?: string } = {}) => {
  const bid = o.bid ?? 0.48
  const ask = o.ask ?? 0.5
  const size = o.size ?? 100_000
  const listing = { ...aListing({ contract, t, ...(o.title === undefined ? {} : { title: o.title }) }), series: o.series ?? null, ...(o.category === undefined ? {} : { category: o.category, kind: o.category === "crypto" ? "bitcoin" as const : "us_politics" as const }) }
  return [
    listing,
    aSnapshot({ contract, t, outcome: "yes", bids: [[bid, size]], asks: [[ask, size]] }),
    aSnapshot({ contract, t, outcome: "no", bids: [[Math.round((1 - ask) * 100) / 100, size]], asks: [[Math.round((1 - bid) * 100) / 100, size]] }),
  ] as const
}

/** Moves both books so the Yes side trades around `mid` (bid mid − 0.01, ask mid + 0.01). */
export const aMove = (contract: string, t: number, mid: number, size = 100_000) => {
  const r = (x: number) => Math.round(x * 100) / 100
  return [
    aSnapshot({ contract, t, outcome: "yes", bids: [[r(mid - 0.01), size]], asks: [[r(mid + 0.01), size]] }),
    aSnapshot({ contract, t, outcome: "no", bids: [[r(1 - mid - 0.01), size]], asks: [[r(1 - mid + 0.01), size]] }),
  ] as const
}

export const ALICE: FeedTrader = { id: "alice", name: "ALICE" }
export const BOB: FeedTrader = { id: "bob", name: "BOB" }

/** A print by a trader (`usd` = price × contracts). */
export const aTrade = (contract: string, t: number, o: { readonly price?: number; readonly usd?: number; readonly trader?: FeedTrader | null; readonly outcome?: string; readonly action?: "buy" | "sell"; readonly tradeId?: string } = {}) => {
  const price = o.price ?? 0.5
  return aPrint({
    contract, t, price, contracts: (o.usd ?? 20_000) / price, trader: o.trader === undefined ? ALICE : o.trader,
    outcome: o.outcome ?? "yes", action: o.action ?? "buy", tradeId: o.tradeId ?? `tr-${contract}-${t}`,
  })
}
