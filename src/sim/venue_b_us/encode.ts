// venue_b_us encoder (mirror of feeds/venue_b_us/decode.ts): model events → Polymarket US markets
// socket frames. The server adds the subscription's `requestId` and `subscriptionType`. Pure.
//
// Wire choices: every book change is a full `marketData` frame of the long (Yes) side, best-first,
// prices as `{value, currency}`; trades carry the Yes price and the taker's side and intent
// (BUY_LONG, SELL_LONG, BUY_SHORT, SELL_SHORT) plus a `tradeId`. The real socket has no listing or
// result message; whalewatch conventions, carried on `marketData` (unknown fields a real client
// ignores): `market` (title, category, kind, series, outcome labels, event, open/close times) on the
// frame sent at listing and on every subscription's first frame; `state` MARKET_STATE_CLOSED at
// close; MARKET_STATE_SETTLED with `settlement: {result: "yes" | "no" | "void"}` at the end.
import type {
  VenueBUsLevel, VenueBUsMarketData, VenueBUsMoney, VenueBUsTrade,
} from "../../feeds/venue_b_us/frames.js"
import type { Level } from "../book.js"
import type { Encoded } from "../encoded.js"
import { tradeIdOf } from "../ids.js"
import type { ModelEvent, SimContract } from "../types.js"

const usd = (value: string): VenueBUsMoney => ({ value, currency: "USD" })
const px = (thousandths: number): VenueBUsMoney => usd((thousandths / 1000).toFixed(3))
const qty = (hundredths: number): string => (hundredths / 100).toFixed(2)
const iso = (ms: number): string => new Date(ms).toISOString()

export interface VenueBUsListing {
  readonly slug: string
  readonly title: string
  readonly category: string
  readonly kind: string
  readonly series: string | null
  readonly outcomes: ReadonlyArray<{ readonly id: string; readonly name: string; readonly label: string }>
  readonly event: { readonly slug: string; readonly title: string } | null
  readonly startTime: string
  readonly endTime: string
}

export type VenueBUsMarketDataExt = VenueBUsMarketData & {
  readonly market?: VenueBUsListing
  readonly settlement?: { readonly result: "yes" | "no" | "void" }
}

export type VenueBUsFrameOut = { readonly marketData: VenueBUsMarketDataExt } | { readonly trade: VenueBUsTrade }

export const listing = (c: SimContract): VenueBUsListing => ({
  slug: c.id, title: c.title, category: c.category, kind: c.kind, series: c.series,
  outcomes: c.outcomes.map((o) => ({ id: o.id, name: o.name, label: o.label })),
  event: c.group === null ? null : { slug: c.group.id, title: c.group.title },
  startTime: iso(c.listedAt), endTime: iso(c.closesAt),
})

const levels = (list: ReadonlyArray<Level>): Array<VenueBUsLevel> => list.map((l) => ({ px: px(l.price), qty: qty(l.size) }))

const STATE = { open: "MARKET_STATE_OPEN", closed: "MARKET_STATE_CLOSED", settled: "MARKET_STATE_SETTLED", void: "MARKET_STATE_SETTLED" } as const

/** A full `marketData` frame; `withListing` adds the listing (first frame of a subscription, listing). */
export const marketData = (
  c: SimContract, ts: number, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>, withListing: boolean,
  state: keyof typeof STATE = "open", result?: "yes" | "no" | "void",
): Encoded<VenueBUsFrameOut> => ({
  channel: "market", contract: c.id,
  frame: {
    marketData: {
      marketSlug: c.id, bids: levels(bids), offers: levels(asks), state: STATE[state],
      stats: {
        ...(c.lastPrice === null ? {} : { lastTradePx: usd((c.lastPrice / 10_000).toFixed(4)) }),
        sharesTraded: qty(c.volume),
      },
      transactTime: iso(ts),
      ...(withListing ? { market: listing(c) } : {}),
      ...(result === undefined ? {} : { settlement: { result } }),
    },
  },
})

/** Frames for one model event of a venue_b_us contract. */
export const encodeVenueBUs = (event: ModelEvent): Array<Encoded<VenueBUsFrameOut>> => {
  const c = event.contract
  switch (event.type) {
    case "listed": return [marketData(c, event.ts, [], [], true)]
    case "book":
    case "book_change": return [marketData(c, event.ts, event.bids, event.asks, false)]
    case "trade": {
      const t = event.trade
      const yesPrice = t.outcome === 0 ? t.price : 10_000 - t.price
      const long = t.outcome === 0
      const buy = t.action === "buy"
      const intent = buy ? (long ? "ORDER_INTENT_BUY_LONG" : "ORDER_INTENT_BUY_SHORT") : long ? "ORDER_INTENT_SELL_LONG" : "ORDER_INTENT_SELL_SHORT"
      // The maker is the other side of the same contract: a long buyer meets a long seller.
      const makerIntent = buy ? (long ? "ORDER_INTENT_SELL_LONG" : "ORDER_INTENT_SELL_SHORT") : long ? "ORDER_INTENT_BUY_LONG" : "ORDER_INTENT_BUY_SHORT"
      return [{
        channel: "market", contract: c.id,
        frame: {
          trade: {
            marketSlug: c.id, tradeId: tradeIdOf(t.seq, t.salt), price: usd((yesPrice / 10_000).toFixed(4)),
            quantity: usd(qty(t.contracts)), tradeTime: iso(t.ts),
            maker: { side: buy ? "ORDER_SIDE_SELL" : "ORDER_SIDE_BUY", intent: makerIntent },
            taker: { side: buy ? "ORDER_SIDE_BUY" : "ORDER_SIDE_SELL", intent },
          },
        },
      }]
    }
    case "tick_size": return []
    case "closed": return [marketData(c, event.ts, [], [], false, "closed")]
    case "settled": return [marketData(c, event.ts, [], [], false, "settled", event.winner === 0 ? "yes" : "no")]
    case "voided": return [marketData(c, event.ts, [], [], false, "void", "void")]
  }
}
