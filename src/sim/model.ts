// The seeded market model: listings across every kind, repeating series, hidden probability paths
// that decide results, market makers quoting books, traders of differing size and skill taking
// liquidity, closes, settlements and voids. Pure and stepped: it advances only when `step` is
// called, draws chance only from its one generator, and returns the model events of each step.
// `new SimModel` first runs `historyDays` of coarse history (recorded in `history`), then stands at
// `start`, ready for live steps.
import { KINDS, VENUES, namesTraders, type Kind, type Venue } from "../domain/enums.js"
import { applyTarget, bestAsk, bestBid, levelsOf, makerQuote, walk, type Book, type LevelChange } from "./book.js"
import { kindWeight, planMarket, SERIES, venuesOf, type MarketPlan, type SeriesSpec } from "./catalog.js"
import { conditionId, IdBook, isoDay, kalshiDate, numericId, slugify, tickerPart, tokenId, uuidId, worldKey, worldSalt } from "./ids.js"
import { Rng } from "./random.js"
import { drawTraders, type SimTrader } from "./traders.js"
import type { ModelEvent, SimContract, SimGroup, SimOutcome, SimTrade, Top } from "./types.js"
import { History } from "./history-log.js"

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

export interface ModelOptions {
  readonly seed: number
  /** Simulated "now" when live stepping begins, epoch ms. */
  readonly start: number
  /** Days of history generated before `start`. */
  readonly historyDays: number
  /** Live step in simulated ms (default 250). */
  readonly stepMs?: number
}

interface Phase {
  readonly stepMs: number
  /** Taker orders per simulated minute across all venues. */
  readonly tradesPerMinute: number
  readonly live: boolean
}

/** Open one-off listings (events or single contracts) each venue keeps. */
const TARGET_OPEN: Record<Venue, number> = { venue_b: 20, venue_a: 16, venue_d: 10, venue_b_us: 10 }
const VENUE_FLOW: ReadonlyArray<number> = VENUES.map((v) => ({ venue_a: 0.3, venue_b: 0.4, venue_b_us: 0.15, venue_d: 0.15 })[v])
const VOID_SHARE = 0.02
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x))
const logit = (p: number): number => Math.log(p / (1 - p))

const FEE_RATE: Record<string, number> = { crypto: 0.07, sports: 0.03, finance: 0.04, politics: 0.04, culture: 0.05 }
const feeRateOf = (venue: Venue, plan: MarketPlan): number | null => {
  if (venue !== "venue_b") return null
  if (plan.kind === "world_politics") return 0
  if (plan.kind === "mentions" || plan.kind === "tech_ai") return 0.04
  return FEE_RATE[plan.category] ?? 0.05
}

export class SimModel {
  readonly rng: Rng
  readonly start: number
  readonly traders: ReadonlyMap<Venue, ReadonlyArray<SimTrader>>
  readonly contracts = new Map<string, SimContract>()
  readonly groups = new Map<string, SimGroup>()
  readonly history = new History()
  now: number
  private phase: Phase
  private readonly liveStepMs: number
  private readonly ids = new IdBook()
  private readonly open: Array<SimContract> = []
  /** Closed, awaiting settlement. */
  private readonly closed: Array<SimContract> = []
  private readonly units = new Map<Venue, Set<string>>(VENUES.map((v) => [v, new Set<string>()]))
  private readonly seriesNext = new Map<string, number>()
  private readonly traderWeights: Map<Venue, Array<number>>
  /** Open positions per contract and trader (hundredths of each outcome); dropped at the end. */
  private readonly positions = new Map<string, Map<string, [number, number]>>()
  private readonly centers = new Map<string, number>()
  private tradeSeq = 0
  private readonly salt: number
  /** `worldKey`: what the ids drawn at random are keyed by. */
  private readonly world: string

  constructor(options: ModelOptions) {
    this.rng = new Rng(options.seed)
    this.start = options.start
    this.liveStepMs = options.stepMs ?? 250
    this.world = worldKey(options.seed, options.start)
    this.salt = worldSalt(this.rng.uint32(), this.world)
    this.traders = drawTraders(this.rng)
    this.traderWeights = new Map(
      VENUES.map((v) => {
        let sum = 0
        return [v, (this.traders.get(v) ?? []).map((t) => (sum += t.activity))]
      }),
    )
    this.now = options.start - options.historyDays * DAY
    this.phase = { stepMs: MINUTE, tradesPerMinute: 2.5, live: false }
    this.record(this.bootstrap())
    while (this.now < options.start) this.step()
    this.now = options.start
    this.phase = { stepMs: this.liveStepMs, tradesPerMinute: 90, live: true }
  }

  get stepMs(): number {
    return this.phase.stepMs
  }

  /** Advances the simulated clock by one step and returns what happened, in order. */
  step(): Array<ModelEvent> {
    const out: Array<ModelEvent> = []
    this.now += this.phase.stepMs
    this.lifecycle(out)
    this.listings(out)
    if (this.phase.live) this.makers(out)
    this.takers(out)
    this.record(out)
    return out
  }

  /** Live steps until the clock reaches `until`. */
  advanceTo(until: number): Array<ModelEvent> {
    const out: Array<ModelEvent> = []
    while (this.now + this.phase.stepMs <= until) out.push(...this.step())
    return out
  }

  openContracts(): ReadonlyArray<SimContract> {
    return this.open
  }

  /** The hidden probability of the first outcome (for tests and the control API). */
  fair(contract: SimContract): number {
    this.advancePath(contract)
    if (contract.status !== "open") return contract.winner === null ? 0.5 : contract.winner === 0 ? 1 : 0
    // Calibrated: the probability that the hidden driver ends above zero, given where it is now.
    const left = Math.max(0.0025, (contract.closesAt - this.now) / Math.max(MINUTE, contract.closesAt - contract.listedAt))
    return Math.min(0.995, Math.max(0.005, normalCdf(contract.x / Math.sqrt(left))))
  }

  private record(events: ReadonlyArray<ModelEvent>): void {
    for (const e of events) this.history.add(e)
  }

  // ---- listings ----------------------------------------------------------------------------

  private bootstrap(): Array<ModelEvent> {
    const out: Array<ModelEvent> = []
    for (const venue of VENUES) while ((this.units.get(venue)?.size ?? 0) < TARGET_OPEN[venue]) this.listOneOff(venue, out)
    this.cover(out)
    return out
  }

  private listings(out: Array<ModelEvent>): void {
    for (const series of SERIES) {
      const window = Math.floor(this.now / series.periodMs) * series.periodMs
      if ((this.seriesNext.get(series.id) ?? -Infinity) <= window) {
        this.seriesNext.set(series.id, window + series.periodMs)
        this.list(series.plan(this.rng, window), series.venue, series, window, out)
      }
    }
    const p = Math.min(1, this.phase.stepMs / (2 * MINUTE))
    for (const venue of VENUES) {
      if ((this.units.get(venue)?.size ?? 0) < TARGET_OPEN[venue] && this.rng.chance(p)) this.listOneOff(venue, out)
    }
    this.cover(out)
  }

  /** Every kind of the spec always has an open market somewhere. */
  private cover(out: Array<ModelEvent>): void {
    const seen = new Set<Kind>(this.open.map((c) => c.kind))
    for (const kind of KINDS) {
      if (seen.has(kind)) continue
      const venue = this.rng.pick(venuesOf(kind))
      this.list(planMarket(this.rng, kind, venue), venue, null, this.now, out)
      seen.add(kind)
    }
  }

  private listOneOff(venue: Venue, out: Array<ModelEvent>): void {
    const kinds = KINDS.filter((k) => venuesOf(k).includes(venue))
    const kind = kinds[this.rng.weighted(kinds.map(kindWeight))] ?? "other_culture"
    this.list(planMarket(this.rng, kind, venue), venue, null, this.now, out)
  }

  private list(plan: MarketPlan, venue: Venue, series: SeriesSpec | null, opensAt: number, out: Array<ModelEvent>): void {
    const rng = this.rng
    const closesAt = opensAt + plan.lifetimeMs
    const settlesAt = closesAt + (series === null ? rng.int(1, 20) : 1) * MINUTE
    const voids = rng.chance(VOID_SHARE)
    const winner = plan.exclusive ? rng.weighted(plan.contracts.map((c) => c.p0)) : -1
    const multi = plan.contracts.length > 1
    const title = plan.eventTitle ?? plan.contracts[0]?.title ?? plan.kind
    const kalshi = venue === "venue_a" || venue === "venue_d"
    const windowCode = series !== null && series.periodMs < DAY
    const eventId = venue === "venue_b" ? this.ids.unique(venue, `event:${numericId(rng, this.world, 6)}`, "").slice(6)
      : venue === "venue_b_us" ? this.ids.unique(venue, `${series?.id ?? slugify(title)}-${isoDay(closesAt)}`)
      : this.ids.unique(venue, `${series?.id ?? `KX${plan.code}`}-${kalshiDate(closesAt, windowCode)}`, "")
    const eventSlug = venue === "venue_b"
      ? this.ids.unique(venue, series !== null ? `${series.id}-${Math.floor(opensAt / 1000)}` : slugify(title))
      : venue === "venue_b_us" ? eventId : eventId.toLowerCase()
    const group: SimGroup | null = multi
      ? { venue, id: eventId, ref: `${venue}:event:${eventId}`, slug: eventSlug, title, exclusive: plan.exclusive, contracts: [] }
      : null
    if (group !== null) this.groups.set(group.ref, group)
    const heat = rng.lognormal(0, 0.7) * (series !== null ? 1.5 : 1)
    let unit = group?.ref ?? ""
    for (const [i, spec] of plan.contracts.entries()) {
      let id: string
      let marketId: string
      let slug: string
      let outcomes: readonly [SimOutcome, SimOutcome]
      if (venue === "venue_b") {
        id = conditionId(rng, this.world)
        marketId = numericId(rng, this.world, 6)
        slug = multi ? this.ids.unique(venue, slugify(spec.title)) : eventSlug
        outcomes = [
          { id: tokenId(rng, this.world), name: spec.names[0], label: spec.names[0] },
          { id: tokenId(rng, this.world), name: spec.names[1], label: spec.names[1] },
        ]
      } else if (venue === "venue_b_us") {
        id = multi ? this.ids.unique(venue, `${slugify(spec.title)}-${isoDay(closesAt)}`) : eventId
        marketId = id
        slug = id
        outcomes = [{ id: "yes", name: "Yes", label: spec.labels[0] }, { id: "no", name: "No", label: spec.labels[1] }]
      } else {
        id = this.ids.unique(venue, `${eventId}-${series !== null && !multi ? "UP" : tickerPart(spec.item)}`, "")
        marketId = uuidId(rng, this.world)
        slug = id.toLowerCase()
        outcomes = [{ id: "yes", name: "Yes", label: spec.labels[0] }, { id: "no", name: "No", label: spec.labels[1] }]
      }
      const result: 0 | 1 = plan.exclusive ? (i === winner ? 0 : 1) : rng.chance(spec.p0) ? 0 : 1
      // The hidden driver starts at Φ⁻¹(p0) and ends (in units of its whole life) on the result's side of zero.
      const x0 = normalQuantile(spec.p0)
      const end = endPoint(rng, x0, result)
      const contract: SimContract = {
        venue, id, ref: `${venue}:${id}`, marketId, slug, group, eventId, eventSlug, eventTitle: title,
        title: spec.title, item: spec.item, category: plan.category, kind: plan.kind, outcomes,
        series: series?.id ?? null, feeRate: feeRateOf(venue, plan), listedAt: opensAt, closesAt, settlesAt,
        tick: kalshi ? 10 : plan.tick, status: "open", result, voids, x: x0, xAt: opensAt, end,
        book: { bids: new Map(), asks: new Map() }, makers: true, nextQuoteAt: this.now, lastPrice: null,
        volume: 0, heat, winner: null, endedAt: null,
      }
      group?.contracts.push(contract)
      this.contracts.set(contract.ref, contract)
      this.open.push(contract)
      if (unit === "") unit = contract.ref
      out.push({ type: "listed", ts: this.now, contract })
      if (this.phase.live) {
        // A new book starts with a snapshot (Kalshi clients trust deltas only after one).
        this.requote(contract, true, null)
        out.push(this.snapshot(contract))
      }
    }
    if (series === null) this.units.get(venue)?.add(unit)
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  private lifecycle(out: Array<ModelEvent>): void {
    for (const c of [...this.open]) if (c.closesAt <= this.now) this.closeContract(c, out)
    for (const c of [...this.closed]) if (c.settlesAt <= this.now) this.endContract(c, c.voids ? null : c.result, out)
  }

  /** Control API: closes (or settles / voids) now; the events are recorded and returned. */
  command(run: (out: Array<ModelEvent>) => void): Array<ModelEvent> {
    const out: Array<ModelEvent> = []
    run(out)
    this.record(out)
    return out
  }

  closeContract(c: SimContract, out: Array<ModelEvent>): void {
    if (c.status !== "open") return
    this.advancePath(c)
    c.status = "closed"
    c.closesAt = Math.min(c.closesAt, this.now)
    if (c.settlesAt < this.now) c.settlesAt = this.now
    const i = this.open.indexOf(c)
    if (i >= 0) this.open.splice(i, 1)
    this.closed.push(c)
    const unit = c.group?.ref ?? c.ref
    if (c.group === null || c.group.contracts.every((k) => k.status !== "open")) this.units.get(c.venue)?.delete(unit)
    out.push({ type: "closed", ts: this.now, contract: c })
  }

  /** Settles (winner 0 or 1) or voids (null) a contract, closing it first if it is still open. */
  endContract(c: SimContract, winner: 0 | 1 | null, out: Array<ModelEvent>): void {
    if (c.status === "open") this.closeContract(c, out)
    if (c.status !== "closed") return
    const i = this.closed.indexOf(c)
    if (i >= 0) this.closed.splice(i, 1)
    this.positions.delete(c.ref)
    this.centers.delete(c.ref)
    c.book.bids.clear()
    c.book.asks.clear()
    c.endedAt = this.now
    if (winner === null) {
      c.status = "void"
      out.push({ type: "voided", ts: this.now, contract: c })
    } else {
      c.status = "settled"
      c.winner = winner
      out.push({ type: "settled", ts: this.now, contract: c, winner })
    }
  }

  // ---- prices and books --------------------------------------------------------------------

  /**
   * The hidden driver is a Brownian bridge (unit variance over the contract's life) from Φ⁻¹(p0) to
   * an end point already drawn on the result's side of zero, so the result is fixed at listing yet
   * the fair price Φ(x / √(time left)) is calibrated: nobody without the end point can beat it.
   * Advanced lazily, only when someone looks (makers, takers), with the bridge's exact transition.
   */
  private advancePath(c: SimContract): void {
    const dt = Math.min(this.now, c.closesAt) - c.xAt
    if (dt <= 0) return
    const left = c.closesAt - c.xAt
    const life = Math.max(MINUTE, c.closesAt - c.listedAt)
    const variance = (dt * (left - dt)) / left / life
    c.x += ((c.end - c.x) * dt) / left + Math.sqrt(Math.max(0, variance)) * this.rng.normal()
    c.xAt += dt
  }

  private makers(out: Array<ModelEvent>): void {
    for (const c of this.open) {
      if (!c.makers || c.nextQuoteAt > this.now) continue
      this.requote(c, false, out)
    }
  }

  /** Makers requote: re-centre when the fair price moved or after a trade, else adjust one level. */
  requote(c: SimContract, full: boolean, out: Array<ModelEvent> | null): void {
    const rng = this.rng
    this.advancePath(c)
    const fair = sigmoid(logit(this.fair(c)) + 0.1 * rng.normal())
    if (c.venue === "venue_b" && c.tick === 10 && (fair > 0.96 || fair < 0.04)) {
      c.tick = 1
      out?.push({ type: "tick_size", ts: this.now, contract: c, old: 10, tick: 1 })
      full = true
    }
    const center = this.centers.get(c.ref)
    let changes: Array<LevelChange>
    if (out === null) {
      // Generated history needs no book frames: quote in place.
      makerQuote(rng, fair, c.tick, 2500, c.book)
      changes = []
    } else if (full || center === undefined || Math.abs(center - fair * 1000) >= 1.5 * c.tick || c.book.bids.size + c.book.asks.size === 0) {
      this.centers.set(c.ref, fair * 1000)
      changes = applyTarget(c.book, makerQuote(rng, fair, c.tick, 2500))
    } else {
      const side = rng.chance(0.5) ? "bid" : "ask"
      const levels = levelsOf(c.book, side)
      const level = levels.length === 0 ? undefined : rng.pick(levels)
      const target: Book = { bids: new Map(c.book.bids), asks: new Map(c.book.asks) }
      if (level !== undefined) {
        const size = Math.max(100, Math.round((level.size * rng.uniform(0.6, 1.5)) / 100) * 100)
        ;(side === "bid" ? target.bids : target.asks).set(level.price, size)
      }
      changes = applyTarget(c.book, target)
    }
    c.nextQuoteAt = this.now + Math.round(rng.exponential(6000) / 250) * 250 + 250
    if (out !== null && changes.length > 0) {
      out.push({ type: "book_change", ts: this.now, contract: c, changes, bids: levelsOf(c.book, "bid"), asks: levelsOf(c.book, "ask") })
    }
  }

  /** The contract's whole book now, as a model event (subscriptions' initial dumps use it too). */
  snapshot(c: SimContract): ModelEvent {
    return { type: "book", ts: this.now, contract: c, bids: levelsOf(c.book, "bid"), asks: levelsOf(c.book, "ask") }
  }

  top(c: SimContract): Top {
    const bid = bestBid(c.book)
    const ask = bestAsk(c.book)
    return { bid, ask, bidSize: bid === null ? 0 : c.book.bids.get(bid) ?? 0, askSize: ask === null ? 0 : c.book.asks.get(ask) ?? 0 }
  }

  // ---- takers ------------------------------------------------------------------------------

  private takers(out: Array<ModelEvent>): void {
    const rng = this.rng
    const n = poisson(rng, (this.phase.tradesPerMinute * this.phase.stepMs) / MINUTE)
    if (n === 0) return
    const byVenue = new Map<Venue, { list: Array<SimContract>; heat: Array<number> }>(VENUES.map((v) => [v, { list: [], heat: [] }]))
    for (const c of this.open) {
      const slot = byVenue.get(c.venue)
      slot?.list.push(c)
      slot?.heat.push(c.heat)
    }
    for (let k = 0; k < n; k++) {
      const venue = VENUES[rng.weighted(VENUE_FLOW)] ?? "venue_b"
      const slot = byVenue.get(venue)
      if (slot === undefined || slot.list.length === 0) continue
      const c = slot.list[rng.weighted(slot.heat)] as SimContract
      if (c.status !== "open") continue
      const trader = this.pickTrader(venue)
      this.organicTrade(c, trader, out)
    }
  }

  private pickTrader(venue: Venue): SimTrader {
    const cum = this.traderWeights.get(venue) ?? []
    const list = this.traders.get(venue) ?? []
    const x = this.rng.next() * (cum[cum.length - 1] ?? 0)
    let lo = 0
    let hi = cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((cum[mid] ?? 0) > x) hi = mid
      else lo = mid + 1
    }
    return list[lo] as SimTrader
  }

  private organicTrade(c: SimContract, trader: SimTrader, out: Array<ModelEvent>): void {
    const rng = this.rng
    if (!this.phase.live && c.makers) this.requote(c, true, null)
    const fair = this.fair(c)
    const held = this.positions.get(c.ref)?.get(trader.id)
    const side: 0 | 1 = held === undefined || held[0] >= held[1] ? 0 : 1
    if (held !== undefined && held[side] > 0 && rng.chance(0.2)) {
      const sell = Math.round((held[side] * rng.uniform(0.3, 1)) / 100) * 100
      const px = side === 0 ? fair : 1 - fair
      const usd = (sell / 100) * px
      const limit = Math.max(1, Math.floor((px * 0.85 - 0.02) * 1000))
      this.take(c, { outcome: side, action: "sell", usd, limit, trader }, out)
      return
    }
    let outcome: 0 | 1
    // Informed traders sometimes know the result (with their `accuracy`) and then buy the winner
    // while it is still cheap enough to pay; otherwise they trade like everyone else.
    const winnerPrice = c.result === 0 ? fair : 1 - fair
    if (trader.informed && winnerPrice < 0.9 && rng.chance(trader.accuracy)) outcome = c.result
    else outcome = rng.chance(0.3) ? (rng.chance(fair) ? 0 : 1) : rng.chance(0.5) ? 0 : 1
    const px = outcome === 0 ? fair : 1 - fair
    const usd = Math.min(250_000, trader.medianUsd * rng.lognormal(0, 0.9))
    const limit = Math.min(999, Math.ceil((px * 1.15 + 0.03) * 1000))
    this.take(c, { outcome, action: "buy", usd, limit, trader }, out)
  }

  /** A taker order walks the book; one print at its volume-weighted price, then the levels it consumed. */
  take(
    c: SimContract,
    order: { outcome: 0 | 1; action: "buy" | "sell"; usd: number; limit: number; trader: SimTrader },
    out: Array<ModelEvent>,
  ): SimTrade | null {
    const walked = walk(c.book, { ...order, quantum: c.venue === "venue_b_us" ? 100 : 1 })
    if (walked === null) return null
    const trade: SimTrade = {
      seq: ++this.tradeSeq, salt: this.salt, ts: this.now, outcome: order.outcome, action: order.action,
      price: walked.price, contracts: walked.contracts, trader: order.trader,
    }
    c.lastPrice = order.outcome === 0 ? walked.price : 10_000 - walked.price
    c.volume += walked.contracts
    let book = this.positions.get(c.ref)
    if (book === undefined) this.positions.set(c.ref, (book = new Map()))
    const held = book.get(order.trader.id) ?? [0, 0]
    held[order.outcome] = Math.max(0, held[order.outcome] + (order.action === "buy" ? walked.contracts : -walked.contracts))
    book.set(order.trader.id, held)
    out.push({ type: "trade", ts: this.now, contract: c, trade, top: this.top(c), volume: c.volume })
    if (this.phase.live && walked.changes.length > 0) {
      out.push({ type: "book_change", ts: this.now, contract: c, changes: walked.changes, bids: levelsOf(c.book, "bid"), asks: levelsOf(c.book, "ask"), trade: true })
    }
    // Makers refill soon after being hit.
    if (c.makers) c.nextQuoteAt = Math.min(c.nextQuoteAt, this.now + 1000)
    this.centers.delete(c.ref)
    return trade
  }

  /** Control API: replaces a contract's book by hand; makers stop requoting it. */
  replaceBook(c: SimContract, target: Book): Array<ModelEvent> {
    c.makers = false
    applyTarget(c.book, target)
    const out = [this.snapshot(c)]
    this.record(out)
    return out
  }

  /** Control API: a taker order on a contract now, walking its book. */
  injectTrade(
    c: SimContract,
    order: { outcome: 0 | 1; action: "buy" | "sell"; usd: number; limit: number; trader: SimTrader },
  ): { trade: SimTrade | null; events: Array<ModelEvent> } {
    const events: Array<ModelEvent> = []
    const trade = this.take(c, order, events)
    this.record(events)
    return { trade, events }
  }

  /** The trader behind a control-API trade: an existing one by id or name, else a new identity. */
  traderFor(venue: Venue, who: string | null): SimTrader {
    const list = this.traders.get(venue) ?? []
    if (who !== null) {
      const found = list.find((t) => t.id.toLowerCase() === who.toLowerCase() || t.name === who)
      if (found !== undefined) return found
    }
    const id = who ?? (venue === "venue_b" ? "0x00000000000000000000000000000000c0471201" : "control")
    const wallet = /^0x[0-9a-fA-F]{40}$/.test(id)
    const trader: SimTrader = {
      venue, id: venue === "venue_b" && !wallet ? `0x${fnvHex(id)}` : id,
      name: namesTraders(venue) && !wallet ? id : null, pseudonym: null, informed: false, accuracy: 0,
      medianUsd: 100, activity: 0,
    }
    ;(this.traders.get(venue) as Array<SimTrader> | undefined)?.push(trader)
    return trader
  }
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26; error below 1.5e-7). */
export const normalCdf = (x: number): number => {
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * z)
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z)
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2
}

/** Standard normal quantile (Acklam's rational approximation). */
export const normalQuantile = (p: number): number => {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const q = Math.min(1 - 1e-9, Math.max(1e-9, p))
  const poly = (k: ReadonlyArray<number>, x: number) => k.reduce((acc, v) => acc * x + v, 0)
  if (q < 0.02425) {
    const r = Math.sqrt(-2 * Math.log(q))
    return poly(c, r) / (poly(d, r) * r + 1)
  }
  if (q > 1 - 0.02425) {
    const r = Math.sqrt(-2 * Math.log(1 - q))
    return -poly(c, r) / (poly(d, r) * r + 1)
  }
  const r = (q - 0.5) * (q - 0.5)
  return (poly(a, r) * (q - 0.5)) / (poly(b, r) * r + 1)
}

/** The driver's end point: N(x0, 1) conditioned on the result's side of zero (inverse-CDF draw). */
const endPoint = (rng: Rng, x0: number, result: 0 | 1): number => {
  const below = normalCdf(-x0) // P(end < 0)
  const u = result === 0 ? below + (1 - below) * rng.next() : below * rng.next()
  const end = x0 + normalQuantile(u)
  return result === 0 ? Math.max(1e-6, end) : Math.min(-1e-6, end)
}

const poisson = (rng: Rng, lambda: number): number => {
  const l = Math.exp(-lambda)
  let k = 0
  let p = rng.next()
  while (p > l) {
    k++
    p *= rng.next()
  }
  return k
}

/** A 40-hex wallet derived from a name (control-API traders named without a wallet). */
const fnvHex = (text: string): string => {
  let out = ""
  for (let round = 0; round < 5; round++) {
    let h = 0x811c9dc5 ^ round
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
    out += h.toString(16).padStart(8, "0")
  }
  return out
}
