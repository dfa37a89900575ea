// Output rows of the spec from what the pipeline keeps: trade rows, move rows and whale position rows
// (ISO times, the market object). Formatting only; times are epoch ms in, UTC ISO text out.
import type { MarketObject } from "../domain/market-object.js"
import type { MoveRow } from "../domain/move.js"
import type { WhalePositionRow } from "../domain/position.js"
import type { TradeRow } from "../domain/trade.js"
import type { TraderSummary } from "../domain/trader-summary.js"
import type { StoredMove, StoredTrade } from "./pipeline.js"
import type { SummaryFigures } from "./records.js"
import type { PositionRowData } from "./winning.js"
import { round6 } from "../numbers.js"

export const isoOf = (ms: number): string => new Date(ms).toISOString()

const marketObject = (r: {
  readonly market: string; readonly contract: string; readonly title: string
  readonly venue: MarketObject["venue"]; readonly category: MarketObject["category"]; readonly kind: MarketObject["kind"]
}): MarketObject => ({ ref: r.market, contract: r.contract, title: r.title, venue: r.venue, category: r.category, kind: r.kind })

const NO_AGREEMENT = { sameSide: { trades: 0, usd: 0 }, otherSide: { trades: 0, usd: 0 } }

/** A trade row; `summary` overrides the figures kept at detection (pass the live ones to refresh). */
export const tradeRowOf = (t: StoredTrade, summary: SummaryFigures | null = t.summary): TradeRow => ({
  id: t.id,
  time: isoOf(t.time),
  market: marketObject(t),
  outcome: t.outcome,
  action: t.action,
  entry: t.entry,
  price: t.price,
  usd: t.usd,
  contracts: t.contracts,
  trader: t.trader === null ? null : traderSummary(t.trader, t.traderName, summary),
  agreement: t.agreement ?? NO_AGREEMENT,
  result: t.result,
  profit: t.profit === null ? null : round6(t.profit),
})

export const traderSummary = (ref: string, name: string | null, s: SummaryFigures | null): TraderSummary => ({
  ref, name, winRate: s?.winRate ?? null, profit: s?.profit ?? null, settled: s?.settled ?? 0,
})

export const moveRowOf = (m: StoredMove): MoveRow => ({
  id: m.id,
  time: isoOf(m.time),
  type: m.type,
  market: { ref: m.ref, contract: m.market, title: m.title, venue: m.venue, category: m.category, kind: m.kind },
  outcome: m.outcome,
  priceBefore: m.priceBefore,
  priceAfter: m.priceAfter,
  minutes: m.minutes,
  traders: m.traders,
  usd: m.usd,
})

export const positionRowOf = (r: PositionRowData, market: MarketObject): WhalePositionRow => ({
  market,
  outcome: r.outcome,
  outcomeLabel: r.outcomeLabel,
  entryPrice: r.entryPrice,
  price: r.price,
  priceAt: r.priceAt === null ? null : isoOf(r.priceAt),
  usd: r.usd,
  openedAt: isoOf(r.openedAt),
  lastBoughtAt: isoOf(r.lastBoughtAt),
  lead: r.lead,
  others: r.others,
  split: r.split,
  activity: r.activity,
  record: r.record,
})
