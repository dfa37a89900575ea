// Stable ids for whale trades and moves, derived from what they name, so a re-ingested feed upserts
// the same rows. A hash over length-prefixed parts (no separator can collide); no randomness, no clock.
import { hash } from "node:crypto"

/**
 * Hex digest (first `length` characters of SHA-256) over the parts; each part is length-prefixed. One
 * one-shot hash of the joined parts: the same digest as updating a hash part by part, cheaper.
 */
export const stableHash = (parts: ReadonlyArray<string | number>, length = 20): string => {
  let joined = ""
  for (const part of parts) {
    const text = typeof part === "number" ? numberText(part) : part
    joined += `${text.length}:${text};`
  }
  return hash("sha256", joined, "hex").slice(0, length)
}

// Integers print without exponent or fraction; -0 and 0 are one time.
const numberText = (n: number): string => (Object.is(n, -0) ? "0" : String(n))

export interface WhaleTradeKey {
  readonly venue: string
  readonly contract: string
  /** The venue's trade id (every print has one). Preferred: one transaction can hold several prints. */
  readonly tradeId: string | null
  /** The transaction id, used only when there is no trade id. */
  readonly txId: string | null
}

/**
 * `wt_` + hash(venue, contract, "trade", tradeId) or hash(venue, contract, "tx", txId). Without either,
 * there is nothing stable to name: the caller must not store the trade (returns null).
 */
export const whaleTradeId = (key: WhaleTradeKey): string | null => {
  if (key.tradeId !== null && key.tradeId !== "") return `wt_${stableHash([key.venue, key.contract, "trade", key.tradeId])}`
  if (key.txId !== null && key.txId !== "") return `wt_${stableHash([key.venue, key.contract, "tx", key.txId])}`
  return null
}

export interface MoveKey {
  /** Market key the move was detected on (contract ref). */
  readonly market: string
  readonly type: "move" | "flip" | "whales"
  /** The side named by the move (`Yes` on a move, the new favourite on a flip, the side bought on whales). */
  readonly outcome: string
  /** Recording time, epoch ms (itself derived from the price series and buys, never from a clock). */
  readonly time: number
}

/** `mv_` + hash(market, type, outcome, time). */
export const moveId = (key: MoveKey): string =>
  `mv_${stableHash([key.market, key.type, key.outcome, key.time])}`
