// Invariants of whale intelligence (src/intel), checked on generated histories:
// 1. Settlement arithmetic: every settled bet's profit is S(1 − p)/p on a win, −S on a loss, 0 on a void.
// 2. Voids are excluded from win rate and return (adding void buys changes neither).
// 3. wins + losses = settled ≤ buys.
// 4. The 95 % rule: a position is `exited` iff sold ≥ 95 % of bought.
// 5. Agreement counts only the previous 24 h (open window) and equals the naive reference.
// 6. Every emitted move satisfies its thresholds; batch and incremental detection agree.
// 7. Entry classification equals a hand-computed position history (net contracts per side).
// 8. Records by period equal a naive filter-and-sum.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Category, Kind, TradeResult } from "../../src/domain/enums.js"
import { agreementNaive, AgreementIndex, type AgreementTrade } from "../../src/intel/agreement.js"
import { DAY_MS, defaultIntelConfig, MINUTE_MS } from "../../src/intel/config.js"
import { detectMoves, MoveDetector, PRICE_EPSILON, type PricePoint, type WhaleBuy } from "../../src/intel/moves.js"
import { positionHistory, type PositionTrade } from "../../src/intel/positions.js"
import {
  inPeriod, PERIODS, recordRows, recordStats, type RecordTrade,
} from "../../src/intel/records.js"
import { settlementProfit } from "../../src/intel/settlement.js"

const runs = { numRuns: 100 }
const close = (a: number, b: number, tolerance = 1e-6): boolean => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b))

// ---- generators ------------------------------------------------------------------------------

const price = fc.integer({ min: 1, max: 99 }).map((cents) => cents / 100)
const usd = fc.integer({ min: 1, max: 50_000 })
const result = fc.constantFrom<TradeResult>("open", "win", "loss", "void")
const kindOf: ReadonlyArray<readonly [Category, Kind]> = [["sports", "nba"], ["sports", "nfl"], ["politics", "us_elections"], ["crypto", "bitcoin"]]
const scope = fc.constantFrom<readonly [Category | null, Kind | null]>(...kindOf, ["sports", null], [null, null])

const ASOF = 40 * DAY_MS

const recordTrade = fc.record({
  trader: fc.constantFrom("venue_a:ann", "venue_a:bob", "venue_b:cat"),
  time: fc.oneof(fc.integer({ min: 0, max: 45 }).map((d) => d * DAY_MS), fc.integer({ min: 0, max: 45 * DAY_MS })),
  scope,
  action: fc.constantFrom<"buy" | "sell">("buy", "buy", "sell"),
  price,
  usd,
  result,
  settleAfter: fc.integer({ min: 0, max: 10 * DAY_MS }),
})

type RawTrade = typeof recordTrade extends fc.Arbitrary<infer T> ? T : never

const toRecordTrades = (raw: ReadonlyArray<RawTrade>): Array<RecordTrade> =>
  raw.map((r, i) => ({
    id: `t${i}`,
    trader: r.trader,
    venue: r.trader.startsWith("venue_b") ? "venue_b" : "venue_a",
    time: r.time,
    category: r.scope[0],
    kind: r.scope[1],
    action: r.action,
    price: r.price,
    contracts: r.usd / r.price,
    usd: r.usd,
    entry: null,
    result: r.result,
    settledAt: r.result === "open" ? null : r.time + r.settleAfter,
  }))

const recordTrades = fc.array(recordTrade, { maxLength: 60 }).map(toRecordTrades)

// ---- 1–3: settlement and records ------------------------------------------------------------

describe("settlement arithmetic", () => {
  it("every settled bet pays S(1 − p)/p on a win, −S on a loss, 0 on a void", () => {
    fc.assert(fc.property(usd, price, fc.constantFrom("win", "loss", "void" as const), (stake, p, r) => {
      const profit = settlementProfit(stake, p, r)
      const expected = r === "win" ? (stake * (1 - p)) / p : r === "loss" ? -stake : 0
      expect(close(profit, expected)).toBe(true)
      // A winning contract pays 1: profit = contracts − stake.
      if (r === "win") expect(close(profit, stake / p - stake)).toBe(true)
    }), runs)
  })

  it("a record's profit is the sum of the arithmetic over its settled buys", () => {
    fc.assert(fc.property(recordTrades, (trades) => {
      const stats = recordStats(trades, ASOF)
      let expected = 0
      for (const t of trades) {
        if (t.action !== "buy" || (t.result !== "win" && t.result !== "loss") || (t.settledAt ?? 0) > ASOF) continue
        expected += t.result === "win" ? (t.usd * (1 - t.price)) / t.price : -t.usd
      }
      expect(close(stats.profit, expected)).toBe(true)
    }), runs)
  })

  it("voids are excluded from win rate and return", () => {
    fc.assert(fc.property(recordTrades, fc.array(fc.tuple(usd, price), { minLength: 1, maxLength: 10 }), (trades, voids) => {
      const voided = toRecordTrades(voids.map(([u, p]) => ({
        trader: "venue_a:ann", time: 0, scope: [null, null], action: "buy", price: p, usd: u, result: "void", settleAfter: 0,
      }))).map((t, i) => ({ ...t, id: `void${i}` }))
      const before = recordStats(trades, ASOF)
      const after = recordStats([...trades, ...voided], ASOF)
      expect(after.winRate).toBe(before.winRate)
      expect(after.return).toBe(before.return)
      expect(after.settled).toBe(before.settled)
      expect(after.staked).toBe(before.staked)
      expect(after.trades).toBe(before.trades + voided.length)
    }), runs)
  })

  it("wins + losses = settled ≤ buys", () => {
    fc.assert(fc.property(recordTrades, (trades) => {
      for (const row of recordRows(trades, ASOF)) {
        expect(row.wins + row.losses).toBe(row.settled)
        expect(row.settled).toBeLessThanOrEqual(row.trades)
        if (row.winRate !== null) expect(row.settled).toBeGreaterThanOrEqual(10)
      }
    }), runs)
  })
})

// ---- 8: records by period -------------------------------------------------------------------

describe("records by period", () => {
  it("equal a naive filter-and-sum", () => {
    fc.assert(fc.property(recordTrades, (trades) => {
      const rows = recordRows(trades, ASOF)
      for (const row of rows) {
        const mine = trades.filter((t) =>
          t.trader === row.trader &&
          (row.period === "all" ? t.time <= ASOF : t.time <= ASOF && t.time > ASOF - { today: 1, week: 7, month: 30 }[row.period] * DAY_MS) &&
          (row.category === null || t.category === row.category) &&
          (row.kind === null || t.kind === row.kind))
        const settled = mine.filter((t) => t.action === "buy" && (t.result === "win" || t.result === "loss") && (t.settledAt ?? 0) <= ASOF)
        const wins = settled.filter((t) => t.result === "win").length
        const profit = settled.reduce((s, t) => s + settlementProfit(t.usd, t.price, t.result as "win" | "loss"), 0)
        const staked = settled.reduce((s, t) => s + t.usd, 0)
        expect(row.trades).toBe(mine.length)
        expect(row.settled).toBe(settled.length)
        expect(row.wins).toBe(wins)
        expect(close(row.profit, profit)).toBe(true)
        expect(close(row.volume, mine.reduce((s, t) => s + t.usd, 0))).toBe(true)
        expect(close(row.staked, staked)).toBe(true)
        expect(row.winRate === null ? null : close(row.winRate, wins / settled.length)).toBe(settled.length >= 10 ? true : null)
        expect(row.lastTradeAt).toBe(mine.length === 0 ? null : Math.max(...mine.map((t) => t.time)))
      }
      // Every trader has its whole record in every period; every non-empty scope has a row.
      for (const trader of new Set(trades.map((t) => t.trader))) {
        for (const period of PERIODS) {
          expect(rows.some((r) => r.trader === trader && r.period === period && r.category === null && r.kind === null)).toBe(true)
          for (const t of trades.filter((x) => x.trader === trader && x.kind !== null && inPeriod(x.time, period, ASOF))) {
            expect(rows.some((r) => r.trader === trader && r.period === period && r.kind === t.kind)).toBe(true)
          }
        }
      }
    }), runs)
  })
})

// ---- 4, 7: positions ------------------------------------------------------------------------

const positionTrades = fc.array(
  fc.record({
    contract: fc.constantFrom("c1", "c2"),
    outcome: fc.constantFrom("Yes", "No"),
    action: fc.constantFrom<"buy" | "sell">("buy", "buy", "sell"),
    contracts: fc.integer({ min: 1, max: 40 }),
    price,
    gap: fc.integer({ min: 0, max: 3 }),
  }),
  { maxLength: 40 },
).map((raw) => {
  let time = 0
  return raw.map((r, i): PositionTrade => {
    time += r.gap * MINUTE_MS
    return { id: `p${i}`, trader: "venue_a:ann", time, contract: r.contract, outcome: r.outcome, action: r.action, price: r.price, contracts: r.contracts, usd: r.contracts * r.price }
  })
})

describe("positions", () => {
  it("entries match a hand-computed position history", () => {
    fc.assert(fc.property(positionTrades, (trades) => {
      const { entries } = positionHistory(trades)
      const held = new Map<string, number>() // contract|outcome → net contracts (never below 0)
      for (const t of trades) {
        const here = held.get(`${t.contract}|${t.outcome}`) ?? 0
        const other = held.get(`${t.contract}|${t.outcome === "Yes" ? "No" : "Yes"}`) ?? 0
        const expected = t.action === "buy"
          ? here > 0 ? "add" : other > 0 ? "flip" : "open"
          : here === 0 ? null : t.contracts >= here ? "close" : "trim"
        expect(entries.get(t.id)).toBe(expected)
        held.set(`${t.contract}|${t.outcome}`, t.action === "buy" ? here + t.contracts : Math.max(0, here - t.contracts))
      }
    }), runs)
  })

  it("a position is exited iff at least 95 % of its bought contracts are sold", () => {
    fc.assert(fc.property(positionTrades, (trades) => {
      for (const p of positionHistory(trades).positions) {
        expect(p.status === "exited").toBe(100 * p.soldContracts >= 95 * p.boughtContracts)
        expect(p.soldContracts).toBeLessThanOrEqual(p.boughtContracts)
        expect(close(p.heldContracts, p.boughtContracts - p.soldContracts)).toBe(true)
        if (p.status === "open") expect(p.soldContracts).toBe(0)
      }
    }), runs)
  })
})

// ---- 5: agreement ---------------------------------------------------------------------------

const agreementTrades = fc.array(
  fc.record({
    market: fc.constantFrom("m1", "m2"),
    // Whole hours hit the exact 24 h boundary often.
    time: fc.oneof(fc.integer({ min: 0, max: 72 }).map((h) => h * 60 * MINUTE_MS), fc.integer({ min: 0, max: 3 * DAY_MS })),
    outcome: fc.constantFrom("Yes", "No"),
    action: fc.constantFrom<"buy" | "sell">("buy", "buy", "buy", "sell"),
    usd: fc.integer({ min: 10_000, max: 200_000 }).map((u) => u + 0.37),
  }),
  { maxLength: 80 },
).map((raw) => raw.map((r, i): AgreementTrade => ({ id: `a${i}`, ...r })).sort((a, b) => a.time - b.time))

describe("agreement", () => {
  it("the sliding index equals the naive reference", () => {
    fc.assert(fc.property(agreementTrades, (trades) => {
      const index = new AgreementIndex()
      for (const trade of trades) {
        const got = index.observe(trade)
        const want = agreementNaive(trades, trade)
        expect(got.sameSide.trades).toBe(want.sameSide.trades)
        expect(got.otherSide.trades).toBe(want.otherSide.trades)
        expect(Math.abs(got.sameSide.usd - want.sameSide.usd)).toBeLessThanOrEqual(0.011)
        expect(Math.abs(got.otherSide.usd - want.otherSide.usd)).toBeLessThanOrEqual(0.011)
      }
    }), runs)
  })

  it("counts only buys of the previous 24 hours: (t − 24 h, t)", () => {
    fc.assert(fc.property(agreementTrades, (trades) => {
      for (const trade of trades) {
        const inside = trades.filter((o) => o.market === trade.market && o.action === "buy" && o.time > trade.time - DAY_MS && o.time < trade.time)
        const got = agreementNaive(trades, trade)
        expect(got.sameSide.trades + got.otherSide.trades).toBe(inside.length)
      }
    }), runs)
  })

  it("answers trades arriving late (within the lateness allowance) like the reference over what arrived", () => {
    fc.assert(fc.property(agreementTrades, fc.integer({ min: 0, max: 1_000_000 }), (trades, seed) => {
      // Swap neighbours less than the lateness apart: a nearly-ordered feed.
      const shuffled = trades.slice()
      for (let i = 1; i < shuffled.length; i++) {
        const a = shuffled[i - 1] as AgreementTrade
        const b = shuffled[i] as AgreementTrade
        if (((seed >> (i % 20)) & 1) === 1 && b.time - a.time < defaultIntelConfig.agreement.latenessMs) {
          shuffled[i - 1] = b
          shuffled[i] = a
        }
      }
      const index = new AgreementIndex()
      const arrived: Array<AgreementTrade> = []
      for (const trade of shuffled) {
        const got = index.observe(trade)
        const want = agreementNaive(arrived, trade)
        arrived.push(trade)
        expect(got.sameSide.trades).toBe(want.sameSide.trades)
        expect(got.otherSide.trades).toBe(want.otherSide.trades)
      }
    }), runs)
  })
})

// ---- 6: moves -------------------------------------------------------------------------------

const series = fc.array(
  fc.record({ gap: fc.integer({ min: 0, max: 6 }), price: fc.integer({ min: 0, max: 100 }) }),
  { maxLength: 80 },
).map((raw) => {
  let time = 0
  return raw.map((r): PricePoint => {
    time += r.gap * MINUTE_MS
    return { time, price: r.price / 100 }
  })
})

const buys = fc.array(
  fc.record({ time: fc.integer({ min: 0, max: 400 }), outcome: fc.constantFrom("Yes", "No"), whale: fc.constantFrom("w1", "w2", "w3", "w4"), usd: usd }),
  { maxLength: 30 },
).map((raw) => raw.map((r, i): WhaleBuy => ({ id: `b${i}`, time: r.time * MINUTE_MS, outcome: r.outcome, whale: r.whale, usd: r.usd })))

/** Price in effect at `time`: the last point at or before it. */
const priceAt = (points: ReadonlyArray<PricePoint>, time: number): number | null => {
  let found: number | null = null
  for (const p of points) if (p.time <= time) found = p.price
  return found
}

/** The points that were ever in effect: the last of each millisecond. */
const inEffect = (points: ReadonlyArray<PricePoint>): Array<PricePoint> =>
  points.filter((p, i) => points[i + 1]?.time !== p.time)

describe("moves", () => {
  const { move, flip, whales } = defaultIntelConfig
  const N = move.minPoints / 100 - PRICE_EPSILON

  it("every emitted move satisfies its thresholds", () => {
    fc.assert(fc.property(series, buys, (points, whaleBuys) => {
      const asOf = 1_000 * MINUTE_MS
      const moves = detectMoves("m", points, whaleBuys, { asOf })
      for (const m of moves) {
        if (m.type === "move") {
          const direction = Math.sign((m.priceAfter ?? 0) - (m.priceBefore ?? 0))
          expect(m.outcome).toBe("Yes")
          expect(m.priceBefore).toBe(priceAt(points, m.startedAt))
          expect(m.reachedAt - m.startedAt).toBeLessThanOrEqual(move.withinMinutes * MINUTE_MS)
          expect(m.minutes).toBeLessThanOrEqual(move.withinMinutes)
          expect(m.time).toBe(m.reachedAt + move.holdMinutes * MINUTE_MS)
          expect(m.priceAfter).toBe(priceAt(points, m.time))
          expect(direction * ((priceAt(points, m.reachedAt) ?? 0) - (m.priceBefore ?? 0))).toBeGreaterThanOrEqual(N)
          for (const p of inEffect(points).filter((q) => q.time > m.reachedAt && q.time <= m.time)) {
            expect(direction * (p.price - (m.priceBefore ?? 0))).toBeGreaterThanOrEqual(N)
          }
        } else if (m.type === "flip") {
          const side = m.outcome === "Yes" ? 1 : -1
          expect(m.time).toBe(m.reachedAt + flip.holdMinutes * MINUTE_MS)
          expect(side * ((priceAt(points, m.reachedAt) ?? 0.5) - 0.5)).toBeGreaterThan(0)
          for (const p of inEffect(points).filter((q) => q.time > m.reachedAt && q.time <= m.time)) expect(side * (p.price - 0.5)).toBeGreaterThan(0)
          // The favourite changed: the previous flip's side, or the first favourite, was the other side.
          const previous = moves.filter((f) => f.type === "flip" && f.time < m.time).at(-1)?.outcome
          const first = inEffect(points).find((q) => q.price !== 0.5)
          expect(previous ?? (first === undefined ? null : first.price > 0.5 ? "Yes" : "No")).toBe(m.outcome === "Yes" ? "No" : "Yes")
        } else {
          const window = whaleBuys.filter((b) => b.outcome === m.outcome && b.time >= m.time - whales.withinMinutes * MINUTE_MS && b.time <= m.time)
          expect(m.traders).toBeGreaterThanOrEqual(whales.minTraders)
          expect(new Set(window.map((b) => b.whale)).size).toBeGreaterThanOrEqual(m.traders ?? 0)
          expect(m.usd ?? 0).toBeLessThanOrEqual(window.reduce((s, b) => s + b.usd, 0) + 1e-6)
        }
      }
      expect(new Set(moves.map((m) => m.id)).size).toBe(moves.length)
    }), runs)
  })

  it("incremental detection, with time advanced between events, equals batch detection", () => {
    fc.assert(fc.property(series, fc.array(fc.integer({ min: 0, max: 5 * MINUTE_MS }), { maxLength: 80 }), (points, pauses) => {
      const batch = detectMoves("m", points, [], { asOf: 1_000 * MINUTE_MS })
      const detector = new MoveDetector("m")
      const live = []
      points.forEach((p, i) => {
        live.push(...detector.price(p))
        const next = points[i + 1]
        const pause = pauses[i] ?? 0
        // Let time pass, but never past the next point.
        live.push(...detector.advance(next === undefined ? p.time + pause : Math.min(next.time, p.time + pause)))
      })
      live.push(...detector.advance(1_000 * MINUTE_MS))
      expect(live).toEqual(batch)
    }), runs)
  })
})
