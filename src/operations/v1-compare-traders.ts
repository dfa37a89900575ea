// POST /v1/traders/compare (tool `compare_traders`; spec: MCP tool to REST mapping, "two to ten traders,
// same stake and window"): each trader's buys, any size, scored like a trader backtest over the same
// last `sinceDays` at the same flat `stake`, side by side (intel/backtest.ts, `compareTradersV1`).
//
// Decisions where the spec is silent (README "v1 trader comparison"):
// - Body `{ traders, stake, sinceDays }`: `traders` 2–10 different trader refs (`venue_a:<handle>`,
//   `venue_b:<handle>`); `stake` above 0 and at most 1,000,000 (default 100); `sinceDays` 1–365 (default 90).
// - Answer `{ traders: [{ trader, matched, settled, wins, losses, open, winRate, stakedUsd, pnlUsd,
//   returnPct }], window: { sinceDays, stake } }` in the request's order. A trader the service has no buy
//   of scores zeros (not NOT_FOUND: "no record" is an answer when comparing). One request like any route.
import { V1CompareTradersRequest, V1TraderComparison } from "../domain/v1.js"
import { compareTradersV1 } from "../intel/backtest.js"
import { operation } from "./operation.js"
import { onHistory } from "./v1-backtest.js"

export const compareTraders = operation({
  name: "compareTraders", tool: "compare_traders", method: "POST", path: "/v1/traders/compare", scope: "read",
  summary: "Two to ten traders side by side: each one's buys scored at the same flat stake over the same window",
  input: V1CompareTradersRequest, output: V1TraderComparison,
  run: onHistory("V1Traders.compare", compareTradersV1),
})
