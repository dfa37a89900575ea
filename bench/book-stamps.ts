// What stamping events with their book costs the market registry (src/actors/markets/registry.ts,
// watchBooks): 200,000 single-print feed batches over 800 markets with five levels a side, delivered with
// no follower watching (nothing held or copied) and with one that wants every trade and price change (each
// print's TradePrinted and PriceChanged carry one copy of the book). Three rounds of each, interleaved.
// Run: node --import tsx bench/book-stamps.ts [prints=200000]
import { MarketRegistry } from "../src/actors/markets/registry.js"
import { aListing, aPrint, aSnapshot } from "../test/actors/market-builders.js"

const PRINTS = Number(process.argv[2] ?? 200_000)
const MARKETS = 800
const T0 = Date.UTC(2026, 0, 1)
const r2 = (x: number) => Math.round(x * 100) / 100
const levels = (best: number, dir: 1 | -1) => Array.from({ length: 5 }, (_, k) => [r2(best + dir * k * 0.01), 1_000] as const)
const prints = Array.from({ length: PRINTS }, (_, k) =>
  aPrint({ contract: `C${k % MARKETS}`, t: T0 + 1_000 + k, price: 0.51, contracts: 100, tradeId: `x${k}` }))

const round = (watch: boolean): number => {
  let stamped = 0
  const registry = new MarketRegistry((e) => {
    if ("book" in e) stamped++
  })
  if (watch) registry.watchBooks(() => true)
  for (let i = 0; i < MARKETS; i++) {
    registry.deliver([
      aListing({ contract: `C${i}`, t: T0 }),
      aSnapshot({ contract: `C${i}`, t: T0, outcome: "yes", bids: levels(0.49, -1), asks: levels(0.51, 1) }),
      aSnapshot({ contract: `C${i}`, t: T0, outcome: "no", bids: levels(0.49, -1), asks: levels(0.51, 1) }),
    ])
  }
  const started = performance.now()
  for (const print of prints) registry.deliver([print])
  const us = ((performance.now() - started) * 1_000) / PRINTS
  console.log(`${watch ? "watched  " : "unwatched"} ${us.toFixed(2)} µs per print (${stamped.toLocaleString("en-US")} events stamped)`)
  registry.stop()
  return us
}

const figures = { unwatched: [] as Array<number>, watched: [] as Array<number> }
for (let i = 0; i < 3; i++) {
  figures.unwatched.push(round(false))
  figures.watched.push(round(true))
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[1] ?? Number.NaN
console.log(`median: unwatched ${median(figures.unwatched).toFixed(2)} µs, watched ${median(figures.watched).toFixed(2)} µs per print`)
