// Stored trades and moves as the pipeline publishes them, for stream tests and the bench.
import type { StoredMove, StoredTrade } from "../../src/intel/pipeline.js"

let n = 0
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)

export const aStoredTrade = (over: Partial<StoredTrade> = {}): StoredTrade => {
  n++
  return {
    id: `wt_test_${n}`, seq: n, tradeId: `t${n}`, txId: null, time: T0 + n * 1000, venue: "venue_a",
    market: "venue_a:m1", contract: "venue_a:m1", event: null, title: "Market m1", category: "sports", kind: "nba",
    outcome: "Yes", outcomeLabel: "Yes", action: "buy", entry: "open", price: 0.42, usd: 25_000, contracts: 25_000 / 0.42,
    trader: "venue_a:alice", traderName: "Alice", whale: true, summary: { winRate: 0.6, profit: 1200, settled: 12 },
    agreement: { sameSide: { trades: 1, usd: 12_000 }, otherSide: { trades: 0, usd: 0 } },
    result: "open", profit: null, settledAt: null,
    ...over,
  }
}

export const aStoredMove = (over: Partial<StoredMove> = {}): StoredMove => {
  n++
  return {
    id: `mv_test_${n}`, market: "venue_a:m1", type: "move", time: T0 + n * 1000, outcome: "Yes", priceBefore: 0.4,
    priceAfter: 0.55, minutes: 6, traders: null, usd: null, startedAt: T0, reachedAt: T0 + 60_000,
    venue: "venue_a", ref: "venue_a:m1", event: null, title: "Market m1", category: "sports", kind: "nba",
    ...over,
  }
}
