// Moves of one market from its Yes price series and its whale buys: `move` (the Yes price moved
// sharply within minutes and held), `flip` (the favourite changed and held), `whales` (several
// distinct whales bought one side within minutes). Pure: time comes only from the events fed in.
//
// The price is a step function: the Yes price at time T is the last point with time ≤ T (of several
// points at one millisecond, the last fed, so a point is applied only once time moves past its
// millisecond). Events must come in non-decreasing time; an event older than the clock is ignored.
import { defaultIntelConfig, MINUTE_MS, type IntelConfig } from "./config.js"
import { moveId } from "./ids.js"

/** Comparisons of prices tolerate float noise of this size. */
export const PRICE_EPSILON = 1e-9

export interface PricePoint {
  readonly time: number
  /** Yes price, 0..1. */
  readonly price: number
}

export interface WhaleBuy {
  readonly id: string
  readonly time: number
  /** Side bought, by name. */
  readonly outcome: string
  readonly usd: number
  /** Who bought: the trader ref, or the trade id on venues that do not name traders (each its own whale). */
  readonly whale: string
}

/** Names of the two sides (`Yes`/`No`, or venue_b's outcome names). */
export interface MoveSides {
  readonly yes: string
  readonly no: string
}

export type MoveType = "move" | "flip" | "whales"

export interface DetectedMove {
  readonly id: string
  readonly market: string
  readonly type: MoveType
  /** When the move was recorded, epoch ms: end of the hold for move and flip, the last buy for whales. */
  readonly time: number
  readonly outcome: string
  readonly priceBefore: number | null
  readonly priceAfter: number | null
  readonly minutes: number | null
  readonly traders: number | null
  readonly usd: number | null
  /** Move: time of `priceBefore`. Flip: when Yes crossed. Whales: first buy counted. */
  readonly startedAt: number
  /** Move: when the change reached the threshold. Flip: when Yes crossed. Whales: the last buy. */
  readonly reachedAt: number
}

interface MoveCandidate {
  readonly direction: 1 | -1
  readonly startedAt: number
  readonly priceBefore: number
  readonly reachedAt: number
}

interface FlipCandidate {
  readonly side: "yes" | "no"
  readonly reachedAt: number
}

interface Counted {
  readonly id: string
  readonly time: number
  readonly whale: string
  readonly usd: number
}

const sideOf = (price: number): "yes" | "no" | null => (price > 0.5 ? "yes" : price < 0.5 ? "no" : null)

const TYPE_ORDER: Record<MoveType, number> = { move: 0, flip: 1, whales: 2 }

/** Moves in recording order; ties by type, then outcome. */
export const byRecordingOrder = (a: DetectedMove, b: DetectedMove): number =>
  a.time - b.time || TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0)

/**
 * One market's detector. Feed prices with `price`, whale buys with `buy`, and let time pass with
 * `advance`; each returns the moves recorded by then. A move and a flip are recorded once their hold
 * has fully passed (the clock is past reachedAt + hold), stamped at reachedAt + hold.
 */
export class MoveDetector {
  readonly #market: string
  readonly #sides: MoveSides
  readonly #points: Array<PricePoint> = []
  readonly #minPoints: number
  readonly #withinMs: number
  readonly #holdMs: number
  readonly #flipHoldMs: number
  readonly #minWhales: number
  readonly #whalesWithinMs: number
  readonly #buys = new Map<string, Array<Counted>>()
  #now = -Infinity
  /** Price in effect, from points whose millisecond is over. */
  #current: number | null = null
  /** The latest point, applied once time moves past its millisecond. */
  #pending: PricePoint | null = null
  /** Moves measure from here on: the recording time of the last move. */
  #anchor = -Infinity
  #move: MoveCandidate | null = null
  #favourite: "yes" | "no" | null = null
  #flip: FlipCandidate | null = null

  constructor(market: string, sides: MoveSides = { yes: "Yes", no: "No" }, config: IntelConfig = defaultIntelConfig) {
    this.#market = market
    this.#sides = sides
    this.#minPoints = config.move.minPoints / 100
    this.#withinMs = config.move.withinMinutes * MINUTE_MS
    this.#holdMs = config.move.holdMinutes * MINUTE_MS
    this.#flipHoldMs = config.flip.holdMinutes * MINUTE_MS
    this.#minWhales = config.whales.minTraders
    this.#whalesWithinMs = config.whales.withinMinutes * MINUTE_MS
  }

  get now(): number {
    return this.#now
  }

  advance(now: number): Array<DetectedMove> {
    if (!(now >= this.#now)) return []
    const out = this.#through(now)
    this.#now = now
    return out
  }

  price(point: PricePoint): Array<DetectedMove> {
    if (!(point.time >= this.#now) || !Number.isFinite(point.price)) return []
    // A point waits until its millisecond is over: a later point of the same millisecond replaces it.
    if (this.#pending !== null && this.#pending.time === point.time) {
      this.#pending = point
      return []
    }
    const out = this.#through(point.time)
    this.#now = point.time
    this.#pending = point
    return out
  }

  buy(buy: WhaleBuy): Array<DetectedMove> {
    if (!(buy.time >= this.#now)) return []
    const out = this.#through(buy.time)
    this.#now = buy.time
    const from = buy.time - this.#whalesWithinMs
    const window = (this.#buys.get(buy.outcome) ?? []).filter((counted) => counted.time >= from)
    if (window.some((counted) => counted.id === buy.id)) return out
    window.push({ id: buy.id, time: buy.time, whale: buy.whale, usd: Number.isFinite(buy.usd) && buy.usd > 0 ? buy.usd : 0 })
    const whales = new Set(window.map((counted) => counted.whale)).size
    if (whales >= this.#minWhales) {
      // Each buy counts toward one whales move at most: the window starts afresh.
      this.#buys.set(buy.outcome, [])
      out.push(this.#row("whales", buy.time, buy.outcome, {
        priceBefore: null, priceAfter: this.#pending?.price ?? this.#current, minutes: null, traders: whales,
        usd: window.reduce((sum, counted) => sum + counted.usd, 0),
        startedAt: window[0]?.time ?? buy.time, reachedAt: buy.time,
      }))
    } else {
      this.#buys.set(buy.outcome, window)
    }
    return out
  }

  // Moves the clock to `time`: applies a pending point of an earlier millisecond, then records what is due.
  #through(time: number): Array<DetectedMove> {
    const pending = this.#pending
    if (pending === null || pending.time >= time) return this.#tick(time)
    this.#pending = null
    this.#checkMove(pending)
    this.#checkFlip(pending)
    this.#points.push(pending)
    this.#current = pending.price
    this.#trimPoints()
    return this.#tick(time)
  }

  // Records the move and flip whose hold ended strictly before `time`; the price then is the current one.
  #tick(time: number): Array<DetectedMove> {
    const out: Array<DetectedMove> = []
    const move = this.#move
    if (move !== null && time > move.reachedAt + this.#holdMs) {
      const recordedAt = move.reachedAt + this.#holdMs
      // Spec (Move row): "On `move`, `Yes`" on every venue, venue_b's first outcome included; the id keeps
      // being made from the side's own name, so ids stay what they were.
      out.push(this.#row("move", recordedAt, this.#sides.yes, {
        priceBefore: move.priceBefore, priceAfter: this.#current,
        minutes: Math.round((move.reachedAt - move.startedAt) / MINUTE_MS), traders: null, usd: null,
        startedAt: move.startedAt, reachedAt: move.reachedAt,
      }, "Yes"))
      this.#move = null
      this.#anchor = recordedAt
    }
    const flip = this.#flip
    if (flip !== null && time > flip.reachedAt + this.#flipHoldMs) {
      out.push(this.#row("flip", flip.reachedAt + this.#flipHoldMs, flip.side === "yes" ? this.#sides.yes : this.#sides.no, {
        priceBefore: null, priceAfter: this.#current, minutes: null, traders: null, usd: null,
        startedAt: flip.reachedAt, reachedAt: flip.reachedAt,
      }))
      this.#favourite = flip.side
      this.#flip = null
    }
    return out.sort(byRecordingOrder)
  }

  #checkMove(point: PricePoint): void {
    const move = this.#move
    if (move !== null) {
      if (move.direction * (point.price - move.priceBefore) >= this.#minPoints - PRICE_EPSILON) return
      this.#move = null // the hold broke; this point may start a move of its own
    }
    const from = Math.max(point.time - this.#withinMs, this.#anchor)
    let low: { price: number; time: number } | null = null
    let high: { price: number; time: number } | null = null
    const consider = (price: number, time: number): void => {
      // Of equal extremes the latest wins: the shortest duration.
      if (low === null || price <= low.price) low = { price, time }
      if (high === null || price >= high.price) high = { price, time }
    }
    const points = this.#points
    for (let i = 0; i < points.length; i++) {
      const p = points[i] as PricePoint
      if (p.time >= point.time) break
      const next = points[i + 1]
      if (p.time <= from) {
        // The price in effect at `from` (measured from `from`, so the duration stays within the window).
        if (next === undefined || next.time > from) consider(p.price, from)
        continue
      }
      consider(p.price, p.time)
    }
    const lo = low as { price: number; time: number } | null
    const hi = high as { price: number; time: number } | null
    const up = lo === null ? -Infinity : point.price - lo.price
    const down = hi === null ? -Infinity : hi.price - point.price
    const threshold = this.#minPoints - PRICE_EPSILON
    if (up >= threshold && up >= down && lo !== null) {
      this.#move = { direction: 1, startedAt: lo.time, priceBefore: lo.price, reachedAt: point.time }
    } else if (down >= threshold && hi !== null) {
      this.#move = { direction: -1, startedAt: hi.time, priceBefore: hi.price, reachedAt: point.time }
    }
  }

  #checkFlip(point: PricePoint): void {
    const side = sideOf(point.price)
    if (this.#flip !== null) {
      if (side === this.#flip.side) return
      this.#flip = null // the new favourite did not hold; `side` is the old favourite or no favourite
      return
    }
    if (side === null) return
    if (this.#favourite === null) this.#favourite = side // the first favourite is no flip
    else if (side !== this.#favourite) this.#flip = { side, reachedAt: point.time }
  }

  // Keeps the points a look-back can need: those after now − window, plus the one in effect then.
  #trimPoints(): void {
    const from = this.#now - this.#withinMs
    let drop = 0
    while (drop + 1 < this.#points.length && (this.#points[drop + 1]?.time ?? Infinity) <= from) drop++
    if (drop > 0) this.#points.splice(0, drop)
  }

  #row(
    type: MoveType,
    time: number,
    outcome: string,
    fields: Omit<DetectedMove, "id" | "market" | "type" | "time" | "outcome">,
    /** The row's `outcome` when it is not the side's name the id is made from. */
    shown: string = outcome,
  ): DetectedMove {
    return { id: moveId({ market: this.#market, type, outcome, time }), market: this.#market, type, time, outcome: shown, ...fields }
  }
}

export interface DetectOptions {
  readonly sides?: MoveSides
  readonly config?: IntelConfig
  /** The clock after the last event (confirms holds that ended before it); default: the last event's time. */
  readonly asOf?: number
}

/**
 * Batch form: every move recorded from a series and buys (any order; sorted by time, prices before
 * buys of the same millisecond, ties in input order), with the clock finally at `asOf`.
 */
export const detectMoves = (
  market: string,
  points: ReadonlyArray<PricePoint>,
  buys: ReadonlyArray<WhaleBuy>,
  options: DetectOptions = {},
): Array<DetectedMove> => {
  const detector = new MoveDetector(market, options.sides, options.config)
  const events = [
    ...points.map((point, index) => ({ time: point.time, order: 0, index, point, buy: null })),
    ...buys.map((buy, index) => ({ time: buy.time, order: 1, index, point: null, buy })),
  ].sort((a, b) => a.time - b.time || a.order - b.order || a.index - b.index)
  const out: Array<DetectedMove> = []
  for (const event of events) {
    if (event.point !== null) out.push(...detector.price(event.point))
    else if (event.buy !== null) out.push(...detector.buy(event.buy))
  }
  if (options.asOf !== undefined) out.push(...detector.advance(options.asOf))
  return out
}
