// Builders of MarketEvents for intel tests: a market listing, trades, prices and settlements in feed
// time, with the refs the market actors use (`<venue>:<contract>`, events `<venue>:event:<id>`).
import type { Category, Kind, Venue } from "../../src/domain/enums.js"
import type { MarketEvent, MarketInfo, MarketSide } from "../../src/domain/market-events.js"

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
export const MIN = 60_000

export const YES: MarketSide = { id: "yes", name: "Yes", label: "Yes" }
export const NO: MarketSide = { id: "no", name: "No", label: "No" }

export const aMarket = (over: Partial<MarketInfo> & { readonly contract: string; readonly venue?: Venue }): MarketInfo => {
  const venue = over.venue ?? "venue_a"
  return {
    ref: `${venue}:${over.contract}`, venue, event: null, eventTitle: null,
    title: `Market ${over.contract}`, category: "sports" as Category, kind: "nba" as Kind, sides: [YES, NO], rule: null,
    series: null, opensAt: null, closesAt: null, feeRate: null, listedAt: T0, ...over,
  }
}

export const opened = (market: MarketInfo, ts = market.listedAt): MarketEvent => ({ _tag: "MarketOpened", ts, market })

let n = 0
export const traded = (market: MarketInfo, o: {
  readonly ts: number; readonly side?: MarketSide; readonly action?: "buy" | "sell"; readonly price: number
  readonly usd: number; readonly trader?: string | null; readonly tradeId?: string
}): MarketEvent => ({
  _tag: "TradePrinted", ts: o.ts, ref: market.ref, tradeId: o.tradeId ?? `t${++n}`, txId: null, side: o.side ?? market.sides[0],
  action: o.action ?? "buy", price: o.price, contracts: o.usd / o.price, usd: o.usd,
  trader: o.trader === undefined || o.trader === null ? null : { id: o.trader, name: o.trader.toUpperCase() },
})

export const priced = (market: MarketInfo, ts: number, yesPrice: number): MarketEvent => ({ _tag: "PriceChanged", ts, ref: market.ref, yesPrice })

export const settled = (market: MarketInfo, ts: number, winner: MarketSide = market.sides[0]): MarketEvent =>
  ({ _tag: "MarketSettled", ts, ref: market.ref, winner })

export const voided = (market: MarketInfo, ts: number): MarketEvent => ({ _tag: "MarketVoided", ts, ref: market.ref })
