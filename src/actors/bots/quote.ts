// What a bot may ask of one market while it handles an event: a paper buy by dollars or a sale of
// contracts walked against the book as it is now (domain/fill.ts, venue taker fee included), and the
// side's current price. Built by the registry once per delivered event from the market's current
// snapshot, lazily (no book is read unless a bot trades) and memoised (a thousand bots copying the same
// trade at the same stake walk the book once). Paper fills never consume the venue's book, so every bot
// sees the same book. Never carried in a snapshot: it rides on the event.
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

/** A quoter over one contract's book, read on first use. */
export const bookQuoter = (info: MarketInfo, book: () => BookView | null): Quoter => {
  const schedule: FeeSchedule = { venue: info.venue, feeRate: info.feeRate }
  let view: BookView | null | undefined
  const read = (): BookView | null => (view === undefined ? (view = book()) : view)
  const buys = new Map<string, Fill | null>()
  return {
    buy: (side, usd) => {
      const key = `${side}:${usd}`
      const known = buys.get(key)
      if (known !== undefined) return known
      const asks = read()?.sides[side].asks ?? []
      const result = asks.length === 0 ? null : walkBuy(asks, { usd }, schedule)
      const filled = result === null || result._tag !== "Filled" || !(result.contracts > 0) ? null : result
      buys.set(key, filled)
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
