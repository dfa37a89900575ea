// How long the simulator takes to generate its history: `node --import tsx bench/sim.ts [days]`.
// Prints wall time and the trades and listings generated per venue.
import { VENUES } from "../src/domain/enums.js"
import { SimModel } from "../src/sim/index.js"

const days = Number(process.argv[2] ?? 30)
const start = Date.UTC(2026, 2, 1, 12)
const t0 = performance.now()
const model = new SimModel({ seed: 42, start, historyDays: days })
const ms = performance.now() - t0
console.log(`${days} days of history (seed 42) in ${(ms / 1000).toFixed(2)} s`)
for (const venue of VENUES) console.log(`  ${venue}: ${model.history.trades(venue).length} trades`)
