// What a bot may ask of one market while it handles an event: a paper buy by dollars or a sale of
// contracts walked against the book as it is now (domain/fill.ts, venue taker fee included), and the
// side's current price. Built by the registry once per contract per delivery (books do not move while
// one is handled) from the market's current snapshot, lazily (no book is read unless a bot trades) and
// memoised (a thousand bots copying the same trade at the same stake walk the book once). Paper fills never consume the venue's book, so every bot
// sees the same book. Never carried in a snapshot: it rides on the event.
//
// A buy walk is also kept across events in a QuoteCache keyed by the side's asks themselves (every
// level's price and size) and the stake: the walk is a pure function of those and the market's fee
// schedule, so a hit is exactly what a new walk would give. Only the latest asks of each side are kept.
import { type Fill, walkBuy, walkSell, type FeeSchedule } from "../../domain/fill.js"
import type { MarketInfo } from "../../domain/market-events.js"
import type { BookView } from "../markets/registry.js"

export interface Quoter {
  /** A buy of `usd` (fee included) on `side`; null when nothing fills. */
  readonly buy: (side: 0 | 1, usd: number) => Fill | null
  /** A sale of exactly `contracts` on `side`; null unless the bids take all of them. */
  readonly sell: (side: 0 | 1, contracts: number) => Fill | null
}

/** No book: nothing fills. */
export const NO_QUOTES: Quoter = { buy: () => null, sell: () => null }

/** Buy walks per contract side, for the side's latest asks only. */
export class QuoteCache {
  private readonly sides = new Map<string, { key: string; readonly buys: Map<number, Fill | null> }>()

  /** The walks of `ref`'s side for exactly these asks (a new, empty map when they changed). */
  buys(ref: string, side: 0 | 1, asks: ReadonlyArray<{ readonly price: number; readonly size: number }>): Map<number, Fill | null> {
    let key = ""
    for (const level of asks) key += `${level.price}:${level.size};`
    const id = `${ref}\u0000${side}`
    const known = this.sides.get(id)
    if (known !== undefined && known.key === key) return known.buys
    const fresh = { key, buys: new Map<number, Fill | null>() }
    this.sides.set(id, fresh)
    return fresh.buys
  }

  forget(ref: string): void {
    this.sides.delete(`${ref}\u00000`)
    this.sides.delete(`${ref}\u00001`)
  }
}

/** A quoter over one contract's book, read on first use. */
export const bookQuoter = (info: MarketInfo, book: () => BookView | null, cache: QuoteCache = new QuoteCache()): Quoter => {
  const schedule: FeeSchedule = { venue: info.venue, feeRate: info.feeRate }
  let view: BookView | null | undefined
  const read = (): BookView | null => (view === undefined ? (view = book()) : view)
  const walks: [Map<number, Fill | null> | undefined, Map<number, Fill | null> | undefined] = [undefined, undefined]
  return {
    buy: (side, usd) => {
      const asks = read()?.sides[side].asks ?? []
      if (asks.length === 0) return null
      const buys = (walks[side] ??= cache.buys(info.ref, side, asks))
      const known = buys.get(usd)
      if (known !== undefined) return known
      const result = walkBuy(asks, { usd }, schedule)
      const filled = result._tag !== "Filled" || !(result.contracts > 0) ? null : result
      buys.set(usd, filled)
      return filled
    },
    sell: (side, contracts) => {
      const bids = read()?.sides[side].bids ?? []
      if (bids.length === 0) return null
      const result = walkSell(bids, { contracts }, schedule)
      if (result._tag !== "Filled" || result.unfilledContracts > 1e-9 || !(result.contracts > 0)) return null
      return result
    },
  }
}
