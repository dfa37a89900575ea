// The simulator's control API without assertions, for benches as well as tests (sim-control.ts asserts
// with vitest, which a bench cannot load).

export interface SimContract {
  readonly ref: string
  readonly venue: string
  readonly status: string
  readonly event: unknown
}

/** Open single-contract markets of a venue, in the simulator's order. */
export const openContracts = async (sim: string, venue: string): Promise<Array<SimContract>> =>
  ((await (await fetch(`${sim}/control/markets`)).json()) as { data: Array<SimContract> }).data
    .filter((c) => c.venue === venue && c.status === "open" && c.event === null)

/** Sets deep Yes asks at 0.50 (bids at 0.49) on `market`; the simulator's answer. */
export const deepenBook = (sim: string, market: string): Promise<Response> =>
  fetch(`${sim}/control/markets/${encodeURIComponent(market)}/book`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ outcome: "yes", bids: [{ price: 0.49, size: 1_000_000 }], asks: [{ price: 0.5, size: 1_000_000 }] }),
  })

/** A Yes buy of `usd` by `trader` (limit 0.99), printed by the simulator on its feeds; the simulator's answer. */
export const injectTrade = (sim: string, market: string, usd: number, trader: string): Promise<Response> =>
  fetch(`${sim}/control/trades`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ market, outcome: "yes", action: "buy", usd, price: 0.99, trader }),
  })
