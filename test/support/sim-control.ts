// The simulator's control API as the end-to-end tests drive it: its open single-contract markets, a deep
// book on one, an injected trade, and a settlement.
import { expect } from "vitest"
import { deepenBook, injectTrade } from "./sim-api.js"

export { openContracts, type SimContract } from "./sim-api.js"

/** Deep Yes asks at 0.50 (bids at 0.49), so an injected buy, and any copy of it, fills in full whatever the book held. */
export const deepen = async (sim: string, market: string): Promise<void> => {
  const response = await deepenBook(sim, market)
  expect(response.status, await response.clone().text()).toBe(200)
}

/** A Yes buy of `usd` by `trader` (limit 0.99), printed by the simulator on its feeds. */
export const inject = async (sim: string, market: string, usd: number, trader: string): Promise<void> => {
  const response = await injectTrade(sim, market, usd, trader)
  expect(response.status, await response.clone().text()).toBe(200)
}

/** Settles a contract: `outcome` wins. */
export const settle = async (sim: string, market: string, outcome: string): Promise<void> => {
  const response = await fetch(`${sim}/control/markets/${encodeURIComponent(market)}/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ outcome }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
}
