// Similar traders (Get Trader `include=similar`): traders in the same kinds of market, by the
// Jaccard index over kinds traded. Pure; a fixed order (similarity, then ref).
import { KINDS, type Kind } from "../domain/enums.js"
import { defaultIntelConfig, type IntelConfig } from "./config.js"
import type { RecordTrade } from "./records.js"

export interface SimilarCandidate {
  readonly ref: string
  readonly name: string | null
  readonly profit: number
  readonly kinds: ReadonlyArray<Kind>
}

export interface SimilarTrader {
  readonly ref: string
  readonly name: string | null
  readonly profit: number
  /** Jaccard index of the kinds traded, 0..1. */
  readonly similarity: number
}

/**
 * Traders in the same kinds of market: Jaccard index over kinds traded, highest first, ties by ref;
 * the trader itself and traders sharing no kind are left out; at most `similarTop`.
 */
export const similarTraders = (
  target: { readonly ref: string; readonly kinds: ReadonlyArray<Kind> },
  candidates: ReadonlyArray<SimilarCandidate>,
  config: IntelConfig = defaultIntelConfig,
): Array<SimilarTrader> => {
  const mine = new Set(target.kinds)
  const scored: Array<SimilarTrader> = []
  for (const candidate of candidates) {
    if (candidate.ref === target.ref) continue
    const theirs = new Set(candidate.kinds)
    let shared = 0
    for (const kind of theirs) if (mine.has(kind)) shared++
    const union = mine.size + theirs.size - shared
    if (shared === 0 || union === 0) continue
    scored.push({ ref: candidate.ref, name: candidate.name, profit: candidate.profit, similarity: shared / union })
  }
  return scored
    .sort((a, b) => b.similarity - a.similarity || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
    .slice(0, config.records.similarTop)
}

/** Kinds a trader traded (spec order). */
export const kindsTraded = (trades: ReadonlyArray<RecordTrade>): Array<Kind> => {
  const kinds = new Set<Kind>()
  for (const trade of trades) if (trade.kind !== null) kinds.add(trade.kind)
  return KINDS.filter((kind) => kinds.has(kind))
}
