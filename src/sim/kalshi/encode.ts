// Kalshi-family encoder (venue_a, venue_d; mirror of feeds/kalshi/decode.ts): model events →
// WebSocket v2 messages in the current fixed-point generation. The server wraps each in the
// `{type, sid, seq, msg}` envelope of the subscription it travels on. Pure.
//
// Wire choices: books are bids only per side (a Yes ask at p is a No bid at 1 − p); a level change is
// an `orderbook_delta` with the signed `delta_fp`; prices have 4 decimals, counts 2. whalewatch
// conventions (documented in feeds/kalshi/frames.ts): venue_a trades name the taker in
// `taker_handle`; `created` carries category, kind, series and event title in
// `additional_metadata` (`event_ticker` / `event_title` only for multi-contract events); a close
// is `event_type: "closed"`; a settlement is `determined` then `settled`; a void is `settled` with
// `result: "void"` and `is_void: true`.
import type {
  KalshiDeltaFp, KalshiLifecycleMsg, KalshiSnapshotFp, KalshiTickerFp, KalshiTradeFp,
} from "../../feeds/kalshi/frames.js"
import type { Level } from "../book.js"
import type { Encoded } from "../encoded.js"
import { tradeIdOf } from "../ids.js"
import type { ModelEvent, SimContract } from "../types.js"

export type KalshiChannel = "orderbook_delta" | "trade" | "ticker" | "market_lifecycle_v2"

export interface KalshiMessage {
  readonly type: "orderbook_snapshot" | "orderbook_delta" | "trade" | "ticker" | "market_lifecycle_v2"
  readonly msg: KalshiSnapshotFp | KalshiDeltaFp | KalshiTradeFp | KalshiTickerFp | KalshiLifecycleMsg
}

export interface KalshiEncoderConfig {
  /** Name the taker on trades (venue_a). */
  readonly namesTraders: boolean
}

const dollars = (thousandths: number): string => (thousandths / 1000).toFixed(4)
const dollars4 = (tenThousandths: number): string => (tenThousandths / 10_000).toFixed(4)
const count = (hundredths: number): string => (hundredths / 100).toFixed(2)
const seconds = (ms: number): number => Math.floor(ms / 1000)

const out = (channel: KalshiChannel, c: SimContract, message: KalshiMessage): Encoded<KalshiMessage> =>
  ({ channel, contract: c.id, frame: message })

/** Bids-only snapshot: Yes bids as they are, No bids from the Yes asks. Ascending, as Kalshi lists them. */
export const snapshot = (c: SimContract, bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>): Encoded<KalshiMessage> => {
  const yes = [...bids].sort((a, b) => a.price - b.price).map((l): [string, string] => [dollars(l.price), count(l.size)])
  const no = asks.map((l) => ({ price: 1000 - l.price, size: l.size })).sort((a, b) => a.price - b.price)
    .map((l): [string, string] => [dollars(l.price), count(l.size)])
  const msg: KalshiSnapshotFp = {
    market_ticker: c.id, market_id: c.marketId,
    ...(yes.length === 0 ? {} : { yes_dollars_fp: yes }),
    ...(no.length === 0 ? {} : { no_dollars_fp: no }),
  }
  return out("orderbook_delta", c, { type: "orderbook_snapshot", msg })
}

const lifecycle = (c: SimContract, msg: Omit<KalshiLifecycleMsg, "market_ticker">): Encoded<KalshiMessage> =>
  out("market_lifecycle_v2", c, { type: "market_lifecycle_v2", msg: { market_ticker: c.id, ...msg } })

export const created = (c: SimContract): Encoded<KalshiMessage> =>
  lifecycle(c, {
    event_type: "created",
    open_ts: seconds(c.listedAt),
    close_ts: seconds(c.closesAt),
    additional_metadata: {
      name: c.title,
      title: c.title,
      yes_sub_title: c.outcomes[0].label,
      no_sub_title: c.outcomes[1].label,
      rules_primary: `If ${c.title.replace(/\?$/, "")}, then the market resolves to Yes.`,
      expected_expiration_ts: seconds(c.settlesAt),
      category: c.category,
      kind: c.kind,
      ...(c.group === null ? {} : { event_ticker: c.group.id, event_title: c.group.title }),
      ...(c.series === null ? {} : { series_ticker: c.series }),
    },
  })

/** Frames for one model event of a Kalshi-family contract, in the order the venue sends them. */
export const makeKalshiEncoder = (config: KalshiEncoderConfig) => (event: ModelEvent): Array<Encoded<KalshiMessage>> => {
  const c = event.contract
  switch (event.type) {
    case "listed": return [created(c)]
    case "book": return [snapshot(c, event.bids, event.asks)]
    case "book_change":
      return event.changes.map((ch) => {
        const msg: KalshiDeltaFp = {
          market_ticker: c.id, market_id: c.marketId,
          price_dollars: dollars(ch.side === "bid" ? ch.price : 1000 - ch.price),
          delta_fp: count(ch.size - ch.prev), side: ch.side === "bid" ? "yes" : "no", ts_ms: event.ts,
        }
        return out("orderbook_delta", c, { type: "orderbook_delta", msg })
      })
    case "trade": {
      const t = event.trade
      const yesPrice = t.outcome === 0 ? t.price : 10_000 - t.price
      // The outcome the taker profits from: buying yes or selling no is "yes".
      const side = (t.outcome === 0) === (t.action === "buy") ? "yes" : "no"
      const trade: KalshiTradeFp = {
        trade_id: tradeIdOf(t.seq, t.salt), market_ticker: c.id,
        yes_price_dollars: dollars4(yesPrice), no_price_dollars: dollars4(10_000 - yesPrice), count_fp: count(t.contracts),
        taker_outcome_side: side, taker_book_side: side === "yes" ? "bid" : "ask", taker_side: side,
        is_block_trade: false, ts: seconds(t.ts), ts_ms: t.ts,
        ...(config.namesTraders ? { taker_handle: t.trader.id } : {}),
      }
      const top = event.top
      const ticker: KalshiTickerFp = {
        market_ticker: c.id, market_id: c.marketId, price_dollars: dollars4(yesPrice),
        yes_bid_dollars: dollars(top.bid ?? 0), yes_ask_dollars: dollars(top.ask ?? 1000),
        volume_fp: count(event.volume), yes_bid_size_fp: count(top.bidSize), yes_ask_size_fp: count(top.askSize),
        last_trade_size_fp: count(t.contracts), ts: seconds(t.ts), ts_ms: t.ts,
      }
      return [out("trade", c, { type: "trade", msg: trade }), out("ticker", c, { type: "ticker", msg: ticker })]
    }
    case "tick_size": return []
    case "closed": return [lifecycle(c, { event_type: "closed", close_ts: seconds(event.ts) })]
    case "settled": {
      const result = event.winner === 0 ? "yes" : "no"
      return [
        lifecycle(c, { event_type: "determined", result, determination_ts: seconds(event.ts) }),
        lifecycle(c, { event_type: "settled", result, settlement_value: event.winner === 0 ? "1.0000" : "0.0000", settled_ts: seconds(event.ts) }),
      ]
    }
    case "voided":
      return [lifecycle(c, { event_type: "settled", result: "void", is_void: true, settlement_value: "0.5000", settled_ts: seconds(event.ts) })]
  }
}
