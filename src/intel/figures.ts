// Live figures of one contract over the last hour (dollars traded, Yes price change, whale money) and
// its large buys of the last 24 hours per side, for List Markets, positions rows and calls. Pure: the
// pipeline feeds trades and prices in feed time and passes `now` (its feed clock) to every read.
import { round6 } from "../numbers.js"
import { DAY_MS, HOUR_MS } from "./config.js"

interface Timed {
  readonly time: number
  readonly usd: number
}

/** A time-ordered window of dollar amounts with a running sum; old entries leave from the front. */
class Window {
  readonly #items: Array<Timed> = []
  #head = 0
  #sum = 0

  constructor(readonly span: number) {}

  push(time: number, usd: number): void {
    this.#items.push({ time, usd })
    this.#sum += usd
  }

  /**
   * Entries with time > now − span (the window is open at its old end). The running sum carries float
   * noise from its adds and subtracts (47473.898637999926): it is read to 6 decimals, as trades' dollars are.
   */
  sum(now: number): { readonly count: number; readonly usd: number } {
    this.#prune(now)
    return { count: this.#items.length - this.#head, usd: round6(this.#sum) }
  }

  #prune(now: number): void {
    const from = now - this.span
    while (this.#head < this.#items.length && (this.#items[this.#head] as Timed).time <= from) {
      this.#sum -= (this.#items[this.#head] as Timed).usd
      this.#head++
    }
    // Compact once the dead prefix dominates, so the array does not grow for ever.
    if (this.#head > 64 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head)
      this.#head = 0
    }
    if (this.#head === this.#items.length) this.#sum = 0 // no float residue on an empty window
  }
}

/** One large buy kept for a side (positions rows on venues that do not name traders). */
export interface LargeBuy {
  readonly time: number
  readonly usd: number
  readonly contracts: number
}

/** The figures of one contract; the pipeline owns one per contract ref. */
export class ContractFigures {
  readonly #volume = new Window(HOUR_MS)
  readonly #whaleMoney = new Window(HOUR_MS)
  /** Yes price points of the last hour, plus the one in effect an hour ago. */
  readonly #prices: Array<{ readonly time: number; readonly price: number }> = []
  /** Large buys of the last 24 hours, by side index (0 = Yes side). */
  readonly #large: [Array<LargeBuy>, Array<LargeBuy>] = [[], []]
  /** Dollars traded since listing (picks the most traded contract of an open event). */
  tradedUsd = 0
  /**
   * Dollars of the trades the store keeps (whale or named): what a restart gives back exactly, so an ended
   * event's lead contract and result read the same before and after one.
   */
  keptUsd = 0
  lastTradeAt: number | null = null
  lastPrice: number | null = null
  lastPriceAt: number | null = null

  trade(time: number, usd: number): void {
    const dollars = Number.isFinite(usd) && usd > 0 ? usd : 0
    this.#volume.push(time, dollars)
    this.tradedUsd += dollars
    this.lastTradeAt = this.lastTradeAt === null ? time : Math.max(this.lastTradeAt, time)
  }

  whaleBuy(time: number, side: 0 | 1, usd: number, contracts: number): void {
    const dollars = Number.isFinite(usd) && usd > 0 ? usd : 0
    this.#whaleMoney.push(time, dollars)
    const list = this.#large[side]
    list.push({ time, usd: dollars, contracts })
    if (list.length > 256 && (list[0] as LargeBuy).time <= time - DAY_MS) this.#large[side] = list.filter((b) => b.time > time - DAY_MS)
  }

  price(time: number, yesPrice: number): void {
    if (!Number.isFinite(yesPrice)) return
    this.#prices.push({ time, price: yesPrice })
    this.lastPrice = yesPrice
    this.lastPriceAt = time
    // Keep the newest point at or before time − 1 h and everything after it.
    let drop = 0
    while (drop + 1 < this.#prices.length && (this.#prices[drop + 1] as { time: number }).time <= time - HOUR_MS) drop++
    if (drop > 32) this.#prices.splice(0, drop)
  }

  /** Dollars traded in (now − 1 h, now]; null when never seen trading. */
  volume1h(now: number): number | null {
    return this.lastTradeAt === null ? null : this.#volume.sum(now).usd
  }

  /** Dollars whales spent buying in the last hour; null when none. */
  whaleMoney1h(now: number): number | null {
    const { count, usd } = this.#whaleMoney.sum(now)
    return count === 0 ? null : usd
  }

  /** Yes price now minus the Yes price an hour ago (or the first price of the hour); null without prices. */
  move1h(now: number): number | null {
    if (this.lastPrice === null) return null
    const from = now - HOUR_MS
    let before: number | null = null
    for (const point of this.#prices) {
      if (point.time > now) break
      if (point.time <= from || before === null) before = point.price
      else break
    }
    return before === null ? null : roundPrice(this.lastPrice - before)
  }

  /** Large buys of one side in (now − 24 h, now]. */
  largeBuys(side: 0 | 1, now: number): ReadonlyArray<LargeBuy> {
    return this.#large[side].filter((b) => b.time > now - DAY_MS && b.time <= now)
  }
}

/** Price arithmetic rounded to 1e-9 so 0.7 − 0.6 reads 0.1, not 0.09999999999999998. */
export const roundPrice = (n: number): number => Math.round(n * 1e9) / 1e9
