// Live reads over the pipeline: a market's figures (List Markets and Get Market), the winning traders'
// position rows (List Positions) and a market's call. Pure functions of the pipeline's state and an
// `asOf` feed time (default: the pipeline's clock); times stay epoch ms (rows.ts formats them).
//
// Winning positions: one row per contract side held (open or reduced, on a contract still trading) by
// traders whose all-time record in the contract's kind (whole record when unclassified) is winning
// (records.isWinningRecord with config.winning). On venues that do not name traders a row is a side
// with whale buys in the last 24 hours: `usd` is their sum, `lead` null, `others` empty. `split`
// compares with the other sides of the same market (event on a multi-contract market). `price` is
// the side's price when the contract printed a price in the last 24 hours, else null.
import { namesTraders, type Venue } from "../domain/enums.js"
import type { MarketInfo, MarketLifecycle } from "../domain/market-events.js"
import type { MarketCall } from "../domain/market.js"
import type { Holder } from "../domain/position.js"
import { DAY_MS } from "./config.js"
import { roundPrice } from "./figures.js"
import type { IntelPipeline, StoredPosition } from "./pipeline.js"
import { isWinningRecord } from "./records.js"
import { callOf, type PositionRowData } from "./winning.js"
import { round6 } from "../numbers.js"

export interface MarketFigures {
  /** Market ref (event or contract). */
  readonly ref: string
  readonly venue: Venue
  readonly contracts: ReadonlyArray<string>
  /** The most traded contract (its sides are the row's outcomes). */
  readonly lead: MarketInfo
  readonly status: MarketLifecycle
  readonly outcomes: ReadonlyArray<{ readonly name: string; readonly label: string; readonly price: number | null }>
  readonly volume1h: number | null
  readonly move1h: number | null
  readonly whaleMoney: number | null
  readonly lastTradeAt: number | null
  readonly result: string | null
  readonly settledAt: number | null
}

const sidePrice = (yes: number | null, side: 0 | 1): number | null => (yes === null ? null : side === 0 ? yes : roundPrice(1 - yes))

type StateOf = NonNullable<ReturnType<IntelPipeline["contractState"]>>

/**
 * The winning outcome's name of a settled multi-contract market. Where sides are Yes and No (every venue but
 * venue_b) the event's outcomes are its contracts: the one contract whose Yes won names the winner, by its
 * label (the venue's wording, e.g. a nominee), or its title when it has none. Otherwise (venue_b, whose
 * contracts name their own outcomes, or no single Yes won) it is the winning side of the most traded settled
 * contract, the contract whose sides the list row shows. Once every contract has ended, "most traded" counts
 * the dollars of the trades the store keeps (whale or named, `keptUsd`), which a restart gives back exactly,
 * ties to the first in listing order: an ended market's lead and result never change.
 */
const eventWinner = (states: ReadonlyArray<StateOf>, lead: StateOf): string | null => {
  const yesWon = states.filter((s) => s.status === "settled" && s.info.sides[0].name === "Yes" && s.result === "Yes")
  const only = yesWon.length === 1 ? yesWon[0] : undefined
  if (only !== undefined) return only.info.sides[0].label === "Yes" ? only.info.title : only.info.sides[0].label
  if (lead.status === "settled" && lead.result !== null) return lead.result
  const settled = states.filter((s) => s.status === "settled" && s.result !== null)
  return settled.length === 0 ? null : settled.reduce((a, b) => (b.figures.keptUsd > a.figures.keptUsd ? b : a)).result
}

/** A market's live figures; undefined when the ref is unknown. */
export const marketFigures = (p: IntelPipeline, ref: string, asOf = p.now): MarketFigures | undefined => {
  const contracts = p.contractsOf(ref)
  const states = contracts.map((c) => p.contractState(c)).filter((s) => s !== undefined)
  if (states.length === 0) return undefined
  const ended = states.every((s) => s.status === "settled" || s.status === "void")
  const traded = ended ? (s: StateOf) => s.figures.keptUsd : (s: StateOf) => s.figures.tradedUsd
  const lead = states.reduce((a, b) => (traded(b) > traded(a) ? b : a))
  const sum = (read: (s: (typeof states)[number]) => number | null): number | null => {
    const total = states.reduce<number | null>((t, s) => {
      const v = read(s)
      return v === null ? t : (t ?? 0) + v
    }, null)
    return total === null ? null : round6(total)
  }
  const status: MarketLifecycle = ended
    ? (states.some((s) => s.status === "settled") ? "settled" : "void")
    : states.every((s) => s.status !== "open") ? "closed" : "open"
  const winner = states.length === 1 ? (states[0]?.result ?? null) : eventWinner(states, lead)
  const settledAt = ended ? Math.max(...states.map((s) => s.settledAt ?? -Infinity)) : null
  return {
    ref,
    venue: lead.info.venue,
    contracts,
    lead: lead.info,
    status,
    outcomes: ended ? [] : lead.info.sides.map((side, i) => ({ name: side.name, label: side.label, price: sidePrice(lead.figures.lastPrice, i as 0 | 1) })),
    volume1h: sum((s) => s.figures.volume1h(asOf)),
    move1h: lead.figures.move1h(asOf),
    whaleMoney: sum((s) => s.figures.whaleMoney1h(asOf)),
    lastTradeAt: states.reduce<number | null>((t, s) => (s.figures.lastTradeAt === null ? t : Math.max(t ?? -Infinity, s.figures.lastTradeAt)), null),
    result: status === "settled" ? winner : null,
    settledAt: settledAt !== null && Number.isFinite(settledAt) ? settledAt : null,
  }
}

interface SideKey {
  readonly contract: string
  readonly outcome: string
}

/** Winning traders' position rows, by market then contract (listing order) then side. */
export const winningPositionRows = (p: IntelPipeline, asOf = p.now): Array<PositionRowData> => {
  // Winning holders grouped per contract side, contracts in the order first held.
  const groups = new Map<string, { key: SideKey; holders: Array<StoredPosition> }>()
  for (const position of p.heldPositions()) {
    // A position 95 % sold is no longer counted open (spec), though it may still hold the rest.
    if (position.status === "exited") continue
    const state = p.contractState(position.contract)
    if (state === undefined || state.status !== "open") continue
    const info = state.info
    const row = p.recordRow(position.trader, info.kind === null ? null : info.category, info.kind) ??
      p.recordRow(position.trader, null, null)
    if (row === undefined || !isWinningRecord(row, p.config)) continue
    const id = `${position.contract}\u0000${position.outcome}`
    const group = groups.get(id) ?? { key: { contract: position.contract, outcome: position.outcome }, holders: [] }
    group.holders.push(position)
    groups.set(id, group)
  }
  const rows: Array<PositionRowData> = []
  for (const { key, holders } of groups.values()) {
    const state = p.contractState(key.contract)
    if (state === undefined) continue
    const info = state.info
    const side = info.sides[1].name === key.outcome ? 1 : 0
    const held = holders.map((h): Holder => {
      const s = p.summary(h.trader, info.category, info.kind)
      const entryPrice = h.boughtContracts > 0 ? round6(h.usd / h.boughtContracts) : null
      return { ref: h.trader, name: p.traderName(h.trader), ...s, usd: cents((entryPrice ?? 0) * h.heldContracts), entryPrice }
    }).sort((a, b) => b.usd - a.usd || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
    const bought = holders.reduce((t, h) => t + h.usd, 0)
    const contracts = holders.reduce((t, h) => t + h.boughtContracts, 0)
    rows.push(rowOf(p, state, side, key.outcome, {
      usd: cents(held.reduce((t, h) => t + h.usd, 0)),
      entryPrice: contracts > 0 ? round6(bought / contracts) : null,
      openedAt: Math.min(...holders.map((h) => h.openedAt)),
      lastBoughtAt: Math.max(...holders.map((h) => h.lastBoughtAt)),
      lead: held[0] ?? null,
      others: held.slice(1),
    }, asOf))
  }
  // Venues that do not name traders: whale buys of the last 24 hours per side.
  for (const ref of p.marketRefs()) {
    for (const contract of p.contractsOf(ref)) {
      const state = p.contractState(contract)
      if (state === undefined || state.status !== "open" || namesTraders(state.info.venue)) continue
      for (const side of [0, 1] as const) {
        const buys = state.figures.largeBuys(side, asOf)
        if (buys.length === 0) continue
        const usd = buys.reduce((t, b) => t + b.usd, 0)
        const contracts = buys.reduce((t, b) => t + b.contracts, 0)
        rows.push(rowOf(p, state, side, state.info.sides[side].name, {
          usd: cents(usd), entryPrice: contracts > 0 ? round6(usd / contracts) : null,
          openedAt: Math.min(...buys.map((b) => b.time)), lastBoughtAt: Math.max(...buys.map((b) => b.time)),
          lead: null, others: [],
        }, asOf))
      }
    }
  }
  return withSplits(rows)
}

type RowCore = Pick<PositionRowData, "usd" | "entryPrice" | "openedAt" | "lastBoughtAt" | "lead" | "others">

const rowOf = (
  p: IntelPipeline,
  state: NonNullable<ReturnType<IntelPipeline["contractState"]>>,
  side: 0 | 1,
  outcome: string,
  core: RowCore,
  asOf: number,
): PositionRowData => {
  const info = state.info
  const fresh = state.figures.lastPriceAt !== null && state.figures.lastPriceAt > asOf - DAY_MS
  const price = fresh ? sidePrice(state.figures.lastPrice, side) : null
  const move1h = state.figures.move1h(asOf)
  const volume1h = state.figures.volume1h(asOf)
  const label = info.sides[side].label
  const measureAt = price ?? core.entryPrice
  return {
    contract: info.ref,
    market: state.marketKey,
    outcome,
    outcomeLabel: label !== outcome ? label : null,
    ...core,
    entryPrice: core.entryPrice === null ? null : roundPrice(core.entryPrice),
    price,
    priceAt: fresh ? state.figures.lastPriceAt : null,
    split: { sameSideUsd: core.usd, otherSideUsd: 0, otherSideTraders: 0 },
    activity: move1h === null && volume1h === null ? null : { move1h: move1h === null ? null : (side === 0 ? move1h : -move1h), volume1h },
    record: measureAt === null ? null : p.bands.recordAt(info.kind, measureAt),
  }
}

/** Fills `split`: this side against every other side of the same market. */
const withSplits = (rows: ReadonlyArray<PositionRowData>): Array<PositionRowData> => {
  const byMarket = new Map<string, { usd: number; traders: Set<string> }>()
  for (const r of rows) {
    const m = byMarket.get(r.market) ?? { usd: 0, traders: new Set<string>() }
    m.usd += r.usd
    for (const h of [...(r.lead === null ? [] : [r.lead]), ...r.others]) m.traders.add(h.ref)
    byMarket.set(r.market, m)
  }
  return rows.map((r) => {
    const m = byMarket.get(r.market) as { usd: number; traders: Set<string> }
    const mine = new Set([...(r.lead === null ? [] : [r.lead]), ...r.others].map((h) => h.ref))
    const others = [...m.traders].filter((t) => !mine.has(t)).length
    return { ...r, split: { sameSideUsd: r.usd, otherSideUsd: cents(m.usd - r.usd), otherSideTraders: others } }
  })
}

/** The call of a market (event or contract ref); null without winning positions on it. */
export const marketCall = (p: IntelPipeline, ref: string, rows = winningPositionRows(p)): MarketCall | null =>
  callOf(rows.filter((r) => r.market === ref || r.contract === ref), p.config)

const cents = (n: number): number => Math.round(n * 100) / 100
