// Winning traders' positions (List Positions) and the call of a market (Get Market `include=call`):
// the measured record of similar bets per kind and price band, the position rows built from the sides
// winning traders hold, and the buy-or-watch rule over them. Pure: callers pass holders, prices, now.
//
// Similar bets: settled whale buys (win or loss; voids are no bet) of the same kind of market (kind
// null is its own group), in ten price bands of 0.10 by the price paid. A row's `record` is the band
// of its price (current price, else the holders' entry price) once that band holds at least
// `records.minSettledForRates` settled bets, else null. `maxPrice` is the upper edge of the highest
// band of the run of profitable bands (return > 0, each with enough bets) that starts at the row's
// band and goes up; when the row's own band is not profitable, the upper edge of the nearest
// profitable band below it, or 0 when there is none (the record says: not worth buying at any price).
import type { Kind } from "../domain/enums.js"
import type { MarketCall } from "../domain/market.js"
import type { Holder, PositionRecord } from "../domain/position.js"
import { defaultIntelConfig, type IntelConfig } from "./config.js"
import { settlementProfit } from "./settlement.js"

export const BANDS = 10

interface Band {
  settled: number
  wins: number
  staked: number
  profit: number
}

export const bandOf = (price: number): number => Math.max(0, Math.min(BANDS - 1, Math.floor(price * BANDS + 1e-9)))

/** Settled whale buys per kind × price band. */
export class BandRecords {
  readonly #byKind = new Map<string, Array<Band>>()
  readonly #min: number

  constructor(config: IntelConfig = defaultIntelConfig) {
    this.#min = config.records.minSettledForRates
  }

  add(kind: Kind | null, price: number, usd: number, result: "win" | "loss"): void {
    const key = kind ?? ""
    let bands = this.#byKind.get(key)
    if (bands === undefined) {
      bands = Array.from({ length: BANDS }, () => ({ settled: 0, wins: 0, staked: 0, profit: 0 }))
      this.#byKind.set(key, bands)
    }
    const band = bands[bandOf(price)] as Band
    band.settled++
    if (result === "win") band.wins++
    band.staked += Number.isFinite(usd) && usd > 0 ? usd : 0
    band.profit += settlementProfit(usd, price, result)
  }

  /** The record of similar bets at `price` (see the file's head), or null without enough bets. */
  recordAt(kind: Kind | null, price: number): PositionRecord | null {
    const bands = this.#byKind.get(kind ?? "")
    if (bands === undefined) return null
    const at = bandOf(price)
    const own = bands[at] as Band
    if (own.settled < this.#min) return null
    const profitable = (b: Band | undefined): boolean => b !== undefined && b.settled >= this.#min && b.staked > 0 && b.profit / b.staked > 0
    let maxPrice = 0
    if (profitable(own)) {
      let top = at
      while (top + 1 < BANDS && profitable(bands[top + 1])) top++
      maxPrice = (top + 1) / BANDS
    } else {
      for (let k = at - 1; k >= 0; k--) {
        if (profitable(bands[k])) {
          maxPrice = (k + 1) / BANDS
          break
        }
      }
    }
    return { settled: own.settled, winRate: own.wins / own.settled, maxPrice }
  }
}

/** One winning-trader position row before formatting (times epoch ms, market by contract ref). */
export interface PositionRowData {
  readonly contract: string
  /** Agreement/market key: the event ref on a multi-contract market, else the contract ref. */
  readonly market: string
  readonly outcome: string
  readonly outcomeLabel: string | null
  readonly entryPrice: number | null
  readonly price: number | null
  readonly priceAt: number | null
  readonly usd: number
  readonly openedAt: number
  readonly lastBoughtAt: number
  readonly lead: Holder | null
  readonly others: ReadonlyArray<Holder>
  readonly split: { readonly sameSideUsd: number; readonly otherSideUsd: number; readonly otherSideTraders: number }
  readonly activity: { readonly move1h: number | null; readonly volume1h: number | null } | null
  readonly record: PositionRecord | null
}

const pct = (n: number): string => `${Math.round(n * 100)}%`
const usdText = (n: number): string => `$${Math.round(n).toLocaleString("en-US")}`

/**
 * The call of a market from its winning-trader position rows (every side of every contract):
 * - no rows: no call (null);
 * - the side with the most winning money leads (ties: more holders, then outcome name);
 * - `buy` when all hold: the side has at least twice the winning money of every other side together,
 *   its record is non-null with a win rate of at least `winning.minWinRate`, and the price now (or the
 *   holders' entry price without one) is below the record's `maxPrice` (the upper edge of the last
 *   profitable band: a price on it is in the band after);
 * - on a venue that names no traders the rows are whale buys, and the reasons say so;
 * - otherwise `watch` on that side, with the reason that failed first among the reasons.
 */
export const callOf = (rows: ReadonlyArray<PositionRowData>, config: IntelConfig = defaultIntelConfig): MarketCall | null => {
  if (rows.length === 0) return null
  const holdersOf = (r: PositionRowData): Array<string> => [...(r.lead === null ? [] : [r.lead.ref]), ...r.others.map((h) => h.ref)]
  const holders = (r: PositionRowData): number => holdersOf(r).length
  const best = [...rows].sort((a, b) => b.usd - a.usd || holders(b) - holders(a) || (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0))[0] as PositionRowData
  const other = rows.reduce((sum, r) => (r === best ? sum : sum + r.usd), 0)
  // Traders, not holdings: one who holds several other sides counts once, and one on the leading side not at all (as `split`).
  const mine = new Set(holdersOf(best))
  const otherTraders = new Set(rows.flatMap((r) => (r === best ? [] : holdersOf(r))).filter((t) => !mine.has(t))).size
  // Venues that name no traders: the rows are the last 24 hours' whale buys, with no holders to call winning.
  const named = rows.some((r) => holders(r) > 0)
  const money = named ? "winning money" : "whale money"
  const price = best.price ?? best.entryPrice ?? 0
  const record = best.record
  const dominant = best.usd >= 2 * other
  const backed = record !== null && record.winRate >= config.winning.minWinRate
  // Below maxPrice: it is the upper edge of the last profitable band, and a price on it is in the next band.
  const cheapEnough = record !== null && price < record.maxPrice - 1e-9
  const action = dominant && backed && cheapEnough ? "buy" : "watch"
  const count = holders(best)
  const average = best.entryPrice === null ? "" : ` at an average ${best.entryPrice.toFixed(2)}`
  const reasons: Array<string> = [
    named
      ? `${count} winning trader${count === 1 ? "" : "s"} hold ${usdText(best.usd)} on ${best.outcome}${average}`
      : `Whale buys of ${usdText(best.usd)} on ${best.outcome} in the last 24 hours${average} (the venue names no traders)`,
  ]
  if (best.lead !== null) {
    reasons.push(`Biggest holder ${best.lead.name ?? best.lead.ref}: ${usdText(best.lead.usd)}` +
      (best.lead.winRate === null ? "" : `, ${pct(best.lead.winRate)} won over ${best.lead.settled} settled bets`))
  }
  reasons.push(other > 0
    ? `Other sides: ${usdText(other)}${otherTraders > 0 ? ` from ${otherTraders} winning trader${otherTraders === 1 ? "" : "s"}` : ""}`
    : `No ${money} on the other side`)
  reasons.push(record === null
    ? "Too few settled similar bets at this price to measure"
    : `Similar bets at this price: ${pct(record.winRate)} won over ${record.settled} settled; worth buying up to ${record.maxPrice.toFixed(2)}`)
  const why = !dominant ? `${money} is split` : !backed ? "the record of similar bets is not strong enough" : "the price is above what the record supports"
  const who = named ? "Winning traders" : "Whale buyers"
  return {
    outcome: best.outcome,
    action,
    headline: action === "buy" ? `Buy ${best.outcome} up to ${(record as PositionRecord).maxPrice.toFixed(2)}` : `Watch ${best.outcome}`,
    detail: action === "buy"
      ? `${who} back ${best.outcome} and similar bets at ${price.toFixed(2)} have paid.`
      : `${who} lean ${best.outcome}, but ${why}.`,
    price: Math.round(Math.min(1, Math.max(0, price)) * 1e4) / 1e4,
    maxPrice: record?.maxPrice ?? null,
    reasons: reasons.slice(0, 4),
  }
}
