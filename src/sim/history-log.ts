// The model's append-only record of what each venue listed, traded and ended (closed, settled,
// voided), from the start of generated history through every live step. The REST history pages
// over it; the tests measure trader skill on it. Holds model events, not frames.
import { VENUES, type Venue } from "../domain/enums.js"
import type { ModelEvent, SimContract, SimTrade } from "./types.js"

export type Listed = Extract<ModelEvent, { type: "listed" }>
export type Traded = Extract<ModelEvent, { type: "trade" }>
export type Ended = Extract<ModelEvent, { type: "closed" | "settled" | "voided" }>

interface VenueLog {
  readonly listings: Array<Listed>
  readonly trades: Array<Traded>
  readonly endings: Array<Ended>
}

export class History {
  private readonly logs = new Map<Venue, VenueLog>(VENUES.map((v) => [v, { listings: [], trades: [], endings: [] }]))

  add(event: ModelEvent): void {
    const log = this.logs.get(event.contract.venue)
    if (log === undefined) return
    switch (event.type) {
      case "listed":
        log.listings.push(event)
        return
      case "trade":
        log.trades.push(event)
        return
      case "closed":
      case "settled":
      case "voided":
        log.endings.push(event)
        return
      default:
        return
    }
  }

  listings(venue: Venue): ReadonlyArray<Listed> {
    return this.logs.get(venue)?.listings ?? []
  }

  trades(venue: Venue): ReadonlyArray<Traded> {
    return this.logs.get(venue)?.trades ?? []
  }

  endings(venue: Venue): ReadonlyArray<Ended> {
    return this.logs.get(venue)?.endings ?? []
  }

  /** Every trade with the contract it printed on, across venues (for skill measurements). */
  *allTrades(): Iterable<{ readonly contract: SimContract; readonly trade: SimTrade }> {
    for (const venue of VENUES) for (const t of this.trades(venue)) yield t
  }
}
