// venue_b encoder (mirror of feeds/venue_b/decode.ts): model events → Polymarket CLOB market
// channel objects (`new_market`, `book`, `price_change`, `last_trade_price`, `tick_size_change`,
// `market_resolved`) and Data-API `Trade` rows for the trades feed, joined by transaction hash.
// Pure; reads only the event and the contract's fixed fields (and, for the initial dump, its book).
//
// Wire choices: prices and sizes are decimal text, socket timestamps epoch ms as text, trade-row
// timestamps epoch seconds; `book` lists bids ascending and asks descending (best last), as the real
// venue does; every level change is a mirrored pair (Yes bid at p = No ask at 1 − p) and each
// entry's `hash` is that token's book hash after the change. A close has no market-channel frame on
// the real venue: the makers pull their orders, so both tokens get an empty `book`. A void (a 50-50
// resolution on the real venue) is `market_resolved` with an empty `winning_asset_id`,
// `winning_outcome` "50-50" and `outcome_prices` ["0.5","0.5"] (whalewatch convention).
import type {
  VenueBBook, VenueBLastTradePrice, VenueBLevel, VenueBMarketResolved, VenueBNewMarket, VenueBPriceChange,
  VenueBPriceChangeEntry, VenueBTickSizeChange, VenueBTradeRow,
} from "../../feeds/venue_b/frames.js"
import type { Level } from "../book.js"
import { digest40, type Encoded } from "../encoded.js"
import type { ModelEvent, SimContract, SimTrade } from "../types.js"
import { txHashOf } from "../ids.js"

const px = (thousandths: number): string => String(thousandths / 1000)
const px4 = (tenThousandths: number): string => String(tenThousandths / 10_000)
const qty = (hundredths: number): string => String(hundredths / 100)
const ms = (ts: number): string => String(ts)

/** The book of outcome 0 or 1 from the canonical (outcome 0) book, best-first. */
const tokenBook = (index: 0 | 1, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>) =>
  index === 0
    ? { bids, asks }
    : { bids: asks.map((l) => ({ price: 1000 - l.price, size: l.size })), asks: bids.map((l) => ({ price: 1000 - l.price, size: l.size })) }

const wireLevels = (levels: ReadonlyArray<Level>): Array<VenueBLevel> =>
  // Best-first in, worst-first out: the real venue lists the best level last.
  [...levels].reverse().map((l) => ({ price: px(l.price), size: qty(l.size) }))

const bookHash = (asset: string, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>): string =>
  digest40(`${asset}|${bids.map((l) => `${l.price}:${l.size}`).join(",")}|${asks.map((l) => `${l.price}:${l.size}`).join(",")}`)

export const bookFrames = (
  c: SimContract, ts: number, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>,
): Array<Encoded<VenueBBook>> =>
  ([0, 1] as const).map((i) => {
    const asset = c.outcomes[i].id
    const side = tokenBook(i, bids, asks)
    const frame: VenueBBook = {
      event_type: "book", asset_id: asset, market: c.id, bids: wireLevels(side.bids), asks: wireLevels(side.asks),
      timestamp: ms(ts), hash: bookHash(asset, side.bids, side.asks), tick_size: px(c.tick),
      ...(c.lastPrice === null ? {} : { last_trade_price: px4(i === 0 ? c.lastPrice : 10_000 - c.lastPrice) }),
    }
    return { channel: "market", contract: c.id, asset, frame }
  })

const marketFields = (c: SimContract) => ({
  id: c.marketId,
  question: c.title,
  market: c.id,
  slug: c.slug,
  description: `This market resolves to "${c.outcomes[0].name}" if ${c.title.replace(/\?$/, "")}; otherwise "${c.outcomes[1].name}".`,
  assets_ids: [c.outcomes[0].id, c.outcomes[1].id] as const,
  outcomes: [c.outcomes[0].name, c.outcomes[1].name] as const,
  ...(c.group === null ? {} : { event_message: { id: c.group.id, ticker: c.group.slug, slug: c.group.slug, title: c.group.title } }),
  tags: [c.category, c.kind],
  condition_id: c.id,
  active: c.status === "open",
  order_price_min_tick_size: px(c.tick),
  fees_enabled: (c.feeRate ?? 0) > 0,
  fee_schedule: { exponent: 1, rate: c.feeRate ?? 0, taker_only: true, rebate_rate: c.category === "crypto" ? 0.2 : 0.25 },
  category: c.category,
  kind: c.kind,
  ...(c.series === null ? {} : { series: c.series }),
  start_date: ms(c.listedAt),
  end_date: ms(c.closesAt),
})

export const newMarket = (c: SimContract, ts: number): Encoded<VenueBNewMarket> => ({
  channel: "market", contract: c.id,
  frame: { event_type: "new_market", ...marketFields(c), timestamp: ms(ts) },
})

const resolvedFrame = (c: SimContract, ts: number, winner: 0 | 1 | null): Encoded<VenueBMarketResolved & { outcome_prices?: ReadonlyArray<string> }> => ({
  channel: "market", contract: c.id,
  frame: {
    event_type: "market_resolved", ...marketFields(c), timestamp: ms(ts),
    winning_asset_id: winner === null ? "" : c.outcomes[winner].id,
    winning_outcome: winner === null ? "50-50" : c.outcomes[winner].name,
    ...(winner === null ? { outcome_prices: ["0.5", "0.5"] } : {}),
  },
})

const priceChange = (
  c: SimContract, ts: number, event: Extract<ModelEvent, { type: "book_change" }>,
): Encoded<VenueBPriceChange> => {
  const yes = tokenBook(0, event.bids, event.asks)
  const no = tokenBook(1, event.bids, event.asks)
  const yesHash = bookHash(c.outcomes[0].id, yes.bids, yes.asks)
  const noHash = bookHash(c.outcomes[1].id, no.bids, no.asks)
  const best = (levels: ReadonlyArray<Level>, empty: string): string => (levels[0] === undefined ? empty : px(levels[0].price))
  const entries: Array<VenueBPriceChangeEntry> = []
  for (const ch of event.changes) {
    const common = { size: qty(ch.size) }
    entries.push({
      asset_id: c.outcomes[0].id, price: px(ch.price), ...common, side: ch.side === "bid" ? "BUY" : "SELL",
      hash: yesHash, best_bid: best(yes.bids, "0"), best_ask: best(yes.asks, "1"),
    })
    entries.push({
      asset_id: c.outcomes[1].id, price: px(1000 - ch.price), ...common, side: ch.side === "bid" ? "SELL" : "BUY",
      hash: noHash, best_bid: best(no.bids, "0"), best_ask: best(no.asks, "1"),
    })
  }
  return { channel: "market", contract: c.id, frame: { event_type: "price_change", market: c.id, timestamp: ms(ts), price_changes: entries } }
}

const lastTrade = (c: SimContract, t: SimTrade): Encoded<VenueBLastTradePrice> => ({
  channel: "market", contract: c.id, asset: c.outcomes[t.outcome].id,
  frame: {
    event_type: "last_trade_price", asset_id: c.outcomes[t.outcome].id, market: c.id, price: px4(t.price),
    size: qty(t.contracts), side: t.action === "buy" ? "BUY" : "SELL",
    fee_rate_bps: String(Math.round((c.feeRate ?? 0) * 10_000)), timestamp: ms(t.ts), transaction_hash: txHashOf(t.seq, t.salt),
  },
})

/** The Data-API row naming who traded; users without a username carry the API's `<wallet>-<ms>` name. */
export const tradeRow = (c: SimContract, t: SimTrade): Encoded<VenueBTradeRow> => {
  const trader = t.trader
  const autoName = trader.name === null && trader.pseudonym !== null
    ? `${trader.id}-${1_700_000_000_000 + (parseInt(trader.id.slice(2, 10), 16) % 60_000_000_000)}`
    : ""
  return {
    channel: "trades", contract: c.id, asset: c.outcomes[t.outcome].id,
    frame: {
      proxyWallet: trader.id, side: t.action === "buy" ? "BUY" : "SELL", asset: c.outcomes[t.outcome].id,
      conditionId: c.id, size: t.contracts / 100, price: t.price / 10_000, timestamp: Math.floor(t.ts / 1000),
      title: c.title, slug: c.slug, eventSlug: c.eventSlug, outcome: c.outcomes[t.outcome].name, outcomeIndex: t.outcome,
      name: trader.name ?? autoName, pseudonym: trader.pseudonym ?? "", transactionHash: txHashOf(t.seq, t.salt),
    },
  }
}

const tickSize = (c: SimContract, ts: number, old: number, tick: number): Array<Encoded<VenueBTickSizeChange>> =>
  ([0, 1] as const).map((i) => ({
    channel: "market", contract: c.id, asset: c.outcomes[i].id,
    frame: {
      event_type: "tick_size_change", asset_id: c.outcomes[i].id, market: c.id, old_tick_size: px(old),
      new_tick_size: px(tick), timestamp: ms(ts),
    },
  }))

/** Frames for one model event of a venue_b contract, in the order the venue sends them. */
export const encodeVenueB = (event: ModelEvent): Array<Encoded> => {
  const c = event.contract
  switch (event.type) {
    case "listed": return [newMarket(c, event.ts)]
    case "book": return bookFrames(c, event.ts, event.bids, event.asks)
    // A trade's levels: the price_change entries, then a fresh book of both tokens at the same time (venues.md §1.2).
    case "book_change": return event.trade === true ? [priceChange(c, event.ts, event), ...bookFrames(c, event.ts, event.bids, event.asks)] : [priceChange(c, event.ts, event)]
    case "trade": return [lastTrade(c, event.trade), tradeRow(c, event.trade)]
    case "tick_size": return tickSize(c, event.ts, event.old, event.tick)
    case "closed": return bookFrames(c, event.ts, [], [])
    case "settled": return [resolvedFrame(c, event.ts, event.winner)]
    case "voided": return [resolvedFrame(c, event.ts, null)]
  }
}
