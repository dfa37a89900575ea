// Builders of feed events for the market actor tests: each names only what a test cares about; `t` is
// both venue time and receive time unless `receivedAt` says otherwise.
import type { Venue } from "../../src/domain/enums.js"
import type {
  BookDelta, BookSnapshot, FeedTrader, MarketClosed, MarketListed, MarketRescheduled, MarketSettled, MarketVoided, PriceReported,
  TradeAttributed, TradePrinted,
} from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"

interface At {
  readonly venue?: Venue
  readonly contract?: string
  readonly t?: number
  readonly receivedAt?: number
}

const at = (o: At) => ({
  venue: o.venue ?? "venue_a",
  ts: o.t ?? 0,
  receivedAt: o.receivedAt ?? o.t ?? 0,
  contract: o.contract ?? "C1",
})

export const aListing = (o: At & {
  readonly event?: string | null
  readonly title?: string
  readonly outcomes?: readonly [string, string]
  readonly names?: readonly [string, string]
  readonly labels?: readonly [string, string]
} = {}): MarketListed => {
  const ids = o.outcomes ?? ["yes", "no"]
  const names = o.names ?? ["Yes", "No"]
  const labels = o.labels ?? names
  return {
    _tag: "MarketListed", ...at(o), event: o.event ?? null, eventTitle: o.event == null ? null : `Event ${o.event}`,
    title: o.title ?? `Will ${o.contract ?? "C1"} happen?`, category: "politics", kind: "us_politics",
    outcomes: [{ id: ids[0], name: names[0], label: labels[0] }, { id: ids[1], name: names[1], label: labels[1] }],
    rule: "Resolves Yes if it happens.", series: null, opensAt: 0, closesAt: 86_400_000, feeRate: null,
  }
}

export const aSnapshot = (o: At & {
  readonly outcome?: string
  readonly bids?: ReadonlyArray<readonly [number, number]>
  readonly asks?: ReadonlyArray<readonly [number, number]>
} = {}): BookSnapshot => ({
  _tag: "BookSnapshot", ...at(o), outcome: o.outcome ?? "yes",
  bids: (o.bids ?? []).map(([price, size]) => ({ price, size })),
  asks: (o.asks ?? []).map(([price, size]) => ({ price, size })),
})

export const aDelta = (o: At & {
  readonly changes: ReadonlyArray<readonly [outcome: string, side: "bid" | "ask", price: number, size: number]>
  readonly mode?: "set" | "add"
}): BookDelta => ({
  _tag: "BookDelta", ...at(o), mode: o.mode ?? "set",
  changes: o.changes.map(([outcome, side, price, size]) => ({ outcome, side, price, size })),
})

export const aPrint = (o: At & {
  readonly outcome?: string
  readonly price?: number
  readonly contracts?: number
  readonly trader?: FeedTrader | null
  readonly txId?: string | null
  readonly tradeId?: string
  readonly action?: "buy" | "sell"
} = {}): TradePrinted => ({
  _tag: "TradePrinted", ...at(o), tradeId: o.tradeId ?? `tr-${o.t ?? 0}`, outcome: o.outcome ?? "yes",
  action: o.action ?? "buy", price: o.price ?? 0.5, contracts: o.contracts ?? 10, trader: o.trader ?? null,
  txId: o.txId ?? null,
})

export const anAttribution = (o: At & {
  readonly outcome?: string
  readonly price?: number
  readonly contracts?: number
  readonly trader?: FeedTrader
  readonly txId: string
}): TradeAttributed => ({
  _tag: "TradeAttributed", ...at(o), outcome: o.outcome ?? "yes", txId: o.txId,
  trader: o.trader ?? { id: "0xwallet", name: "whale" }, action: "buy", price: o.price ?? 0.5,
  contracts: o.contracts ?? 10,
})

export const aTicker = (o: At & { readonly price: number | null }): PriceReported => ({
  _tag: "PriceReported", ...at(o), price: o.price, bid: null, ask: null, volume: null,
})

export const aClose = (o: At = {}): MarketClosed => ({ _tag: "MarketClosed", ...at(o) })
export const aSettlement = (o: At & { readonly winner: string }): MarketSettled => ({ _tag: "MarketSettled", ...at(o), winner: o.winner })
export const aVoid = (o: At = {}): MarketVoided => ({ _tag: "MarketVoided", ...at(o) })
export const aReschedule = (o: At & { readonly closesAt: number }): MarketRescheduled => ({ _tag: "MarketRescheduled", ...at(o), closesAt: o.closesAt })

/** Collects what a registry emits. */
export const collector = () => {
  const events: Array<MarketEvent> = []
  return { events, sink: (e: MarketEvent): void => void events.push(e), tags: () => events.map((e) => e._tag) }
}
