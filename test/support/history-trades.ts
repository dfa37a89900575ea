// A builder of backtest-history trades for the backtest door tests: by default a whale buy of Yes at 0.5
// for $20,000 on venue_a, three days before `now`, that won and settled two days before `now`; each call
// takes the next id (`<prefix><n>`), seq and contract. `defaults` and each call's fields override.
import { DAY_MS } from "../../src/intel/config.js"
import type { HistoryTrade } from "../../src/intel/backtest-store.js"

export const historyTrades = (now: number, defaults: Partial<HistoryTrade> = {}, prefix = "t") => {
  let seq = 0
  return (over: Partial<HistoryTrade> = {}): HistoryTrade => {
    seq++
    return {
      id: `${prefix}${seq}`, seq, time: now - 3 * DAY_MS, venue: "venue_a", contract: `venue_a:c${seq}`, outcome: "Yes",
      title: "Will the Lakers win?", category: "sports", kind: "nba", action: "buy", entry: "open", price: 0.5, usd: 20_000,
      trader: null, whale: true, result: "win", settledAt: now - 2 * DAY_MS, ...defaults, ...over,
    }
  }
}
