// The market model: deterministic per seed, covers every kind and category, lists multi-contract
// events and repeating series, and its informed traders really do win more often.
import { describe, expect, it } from "vitest"
import { CATEGORIES, KINDS, VENUES } from "../../src/domain/enums.js"
import { encode } from "../../src/sim/encode.js"
import { historyRequest } from "../../src/sim/history.js"
import { tradeIdOf } from "../../src/sim/ids.js"
import { SimModel } from "../../src/sim/model.js"

const START = Date.UTC(2026, 2, 1, 12)

const run = (seed: number, steps: number) => {
  const model = new SimModel({ seed, start: START, historyDays: 1 })
  const frames: Array<string> = []
  for (let i = 0; i < steps; i++) for (const e of model.step()) for (const f of encode(e)) frames.push(JSON.stringify(f.frame))
  const history: Array<string> = []
  for (const venue of VENUES) {
    for (const what of ["markets", "trades", "settlements"]) {
      history.push(JSON.stringify(historyRequest(model, `/history/${venue}/${what}`, new URLSearchParams({ limit: "1000" }))?.body))
    }
  }
  return { model, frames, history }
}

describe("sim model", () => {
  it("same seed and steps give byte-identical frames and history; another seed differs", () => {
    const a = run(11, 600)
    const b = run(11, 600)
    const c = run(12, 600)
    expect(a.frames.length).toBeGreaterThan(1000)
    expect(a.frames.join("\n")).toBe(b.frames.join("\n"))
    expect(a.history.join("\n")).toBe(b.history.join("\n"))
    expect(c.frames.join("\n")).not.toBe(a.frames.join("\n"))
    expect(c.history.join("\n")).not.toBe(a.history.join("\n"))
  })

  it("a world started at another time (a restart) shares no random id with the first: contracts, sides, events, trades", () => {
    const ids = (start: number) => {
      const m = new SimModel({ seed: 11, start, historyDays: 1 })
      const venueB = [...m.contracts.values()].filter((c) => c.venue === "venue_b")
      const trades = [...m.history.allTrades()].map(({ trade }) => tradeIdOf(trade.seq, trade.salt))
      return {
        contracts: venueB.map((c) => c.id), markets: venueB.map((c) => c.marketId), events: venueB.map((c) => c.eventId),
        tokens: venueB.flatMap((c) => c.outcomes.map((o) => o.id)), trades,
      }
    }
    const first = ids(START)
    const again = ids(START)
    const later = ids(START + 19 * 60_000)
    expect(again).toEqual(first) // the same world
    expect(first.contracts.length).toBeGreaterThan(20)
    expect(first.trades.length).toBeGreaterThan(100)
    for (const key of ["contracts", "tokens", "trades"] as const) {
      const seen = new Set(first[key])
      expect(later[key].filter((id) => seen.has(id)), key).toEqual([])
    }
    for (const id of [...first.contracts, ...first.tokens]) expect(id).toMatch(/^(0x[0-9a-f]{64}|[1-9]\d{75,76})$/)
    for (const id of first.markets) expect(id).toMatch(/^[1-9]\d{5}$/)
  })

  const model = new SimModel({ seed: 42, start: START, historyDays: 10 })
  const contracts = [...model.contracts.values()]

  it("lists every kind and category, open at the start of live time", () => {
    const open = model.openContracts()
    expect(new Set(open.map((c) => c.kind))).toEqual(new Set(KINDS))
    expect(new Set(open.map((c) => c.category))).toEqual(new Set(CATEGORIES))
    for (const venue of VENUES) expect(open.some((c) => c.venue === venue)).toBe(true)
  })

  it("has multi-contract events, venue_b named outcomes and Yes/No with labels elsewhere", () => {
    const groups = [...model.groups.values()]
    for (const venue of VENUES.filter((v) => v !== "venue_b_us")) expect(groups.some((g) => g.venue === venue && g.contracts.length >= 2)).toBe(true)
    expect(groups.some((g) => g.exclusive && g.contracts.length >= 3)).toBe(true)
    expect(contracts.some((c) => c.venue === "venue_b" && !["Yes", "Up"].includes(c.outcomes[0].name))).toBe(true)
    for (const c of contracts.filter((k) => k.venue !== "venue_b")) expect(c.outcomes.map((o) => o.name)).toEqual(["Yes", "No"])
    expect(contracts.some((c) => c.venue === "venue_a" && c.outcomes[0].label !== "Yes")).toBe(true)
    for (const g of groups.filter((k) => k.exclusive && k.contracts.every((c) => c.status === "settled"))) {
      expect(g.contracts.filter((c) => c.winner === 0)).toHaveLength(1)
    }
  })

  it("reopens repeating series on their clock and settles each window yes or no", () => {
    const windows = contracts.filter((c) => c.series === "btc-updown-15m")
    expect(windows.length).toBeGreaterThanOrEqual(10 * 96 - 1)
    const starts = windows.map((c) => c.listedAt).sort((x, y) => x - y)
    for (let i = 1; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBe(15 * 60_000)
    const ended = windows.filter((c) => c.status === "settled")
    expect(ended.length).toBeGreaterThan(900)
    const ups = ended.filter((c) => c.winner === 0).length / ended.length
    expect(ups).toBeGreaterThan(0.4)
    expect(ups).toBeLessThan(0.6)
    for (const venue of VENUES) expect(contracts.some((c) => c.venue === venue && c.series !== null)).toBe(true)
  })

  it("settles most listings and voids about 2%", () => {
    const ended = contracts.filter((c) => c.status === "settled" || c.status === "void")
    const voids = ended.filter((c) => c.status === "void").length / ended.length
    expect(ended.length).toBeGreaterThan(3000)
    expect(voids).toBeGreaterThan(0.01)
    expect(voids).toBeLessThan(0.035)
  })

  it("prints whale trades regularly and sizes from small to whale", () => {
    const usd = [...model.history.allTrades()].map(({ trade }) => (trade.contracts * trade.price) / 1e6)
    const whales = usd.filter((u) => u >= 10_000).length
    expect(whales / 10).toBeGreaterThan(50) // per simulated day, in coarse history
    expect(usd.filter((u) => u < 100).length).toBeGreaterThan(usd.length / 5)
    // Live: a few whales a minute across the venues.
    const live = new SimModel({ seed: 5, start: START, historyDays: 0 })
    let liveWhales = 0
    for (let i = 0; i < 4 * 60 * 5; i++) for (const e of live.step()) if (e.type === "trade" && (e.trade.contracts * e.trade.price) / 1e6 >= 10_000) liveWhales++
    expect(liveWhales).toBeGreaterThanOrEqual(5)
  })

  it("informed traders win more often than the rest over generated history (two-proportion z > 5)", () => {
    const tally = { informed: { win: 0, n: 0 }, rest: { win: 0, n: 0 } }
    const perTrader = new Map<string, { informed: boolean; profit: number; n: number }>()
    for (const { contract, trade } of model.history.allTrades()) {
      if (contract.status !== "settled" || trade.action !== "buy" || (contract.venue !== "venue_a" && contract.venue !== "venue_b")) continue
      const won = contract.winner === trade.outcome
      const side = trade.trader.informed ? tally.informed : tally.rest
      side.n++
      if (won) side.win++
      // The spec's backtest arithmetic: stake S at price p wins S(1−p)/p, loses S.
      const p = trade.price / 10_000
      const row = perTrader.get(trade.trader.id) ?? { informed: trade.trader.informed, profit: 0, n: 0 }
      row.profit += won ? (1 - p) / p : -1
      row.n++
      perTrader.set(trade.trader.id, row)
    }
    const p1 = tally.informed.win / tally.informed.n
    const p2 = tally.rest.win / tally.rest.n
    const pooled = (tally.informed.win + tally.rest.win) / (tally.informed.n + tally.rest.n)
    const z = (p1 - p2) / Math.sqrt(pooled * (1 - pooled) * (1 / tally.informed.n + 1 / tally.rest.n))
    expect(tally.informed.n).toBeGreaterThan(1000)
    expect(z).toBeGreaterThan(5)
    const informed = [...perTrader.values()].filter((t) => t.informed && t.n >= 10)
    const rest = [...perTrader.values()].filter((t) => !t.informed && t.n >= 10)
    const profitable = (list: typeof informed) => list.filter((t) => t.profit > 0).length / list.length
    expect(profitable(informed)).toBeGreaterThan(0.65)
    expect(profitable(informed)).toBeGreaterThan(profitable(rest) + 0.3)
  })

  it("names traders on venue_a and venue_b only: handles, wallets with a name or pseudonym, some with neither", () => {
    const b = model.traders.get("venue_b") ?? []
    expect(b.every((t) => /^0x[0-9a-f]{40}$/.test(t.id))).toBe(true)
    expect(b.some((t) => t.name !== null)).toBe(true)
    expect(b.some((t) => t.name === null && t.pseudonym !== null)).toBe(true)
    expect(b.some((t) => t.name === null && t.pseudonym === null)).toBe(true)
    expect((model.traders.get("venue_a") ?? []).every((t) => t.name === t.id)).toBe(true)
    expect((model.traders.get("venue_d") ?? []).every((t) => t.name === null)).toBe(true)
  })

  // How long history takes is measured by bench/sim.ts, not asserted here.
  it("generates days of history with thousands of trades per venue", () => {
    const big = new SimModel({ seed: 3, start: START, historyDays: 10 })
    expect(big.history.trades("venue_b").length).toBeGreaterThan(3_000)
  })
})
