import { describe, expect, it } from "vitest"
import { agreementNaive, AgreementIndex, type AgreementTrade } from "./agreement.js"
import { DAY_MS, HOUR_MS } from "./config.js"

let seq = 0
const buy = (time: number, outcome = "Yes", usd = 10_000, market = "m1", action: "buy" | "sell" = "buy"): AgreementTrade =>
  ({ id: `a${++seq}`, market, time, outcome, action, usd })

describe("AgreementIndex", () => {
  it("counts earlier buys on the same side and the other side", () => {
    const index = new AgreementIndex()
    index.record(buy(1, "Yes", 20_000))
    index.record(buy(2, "No", 15_000))
    index.record(buy(3, "Yes", 12_000.5))
    expect(index.query("m1", "Yes", 10)).toEqual({ sameSide: { trades: 2, usd: 32_000.5 }, otherSide: { trades: 1, usd: 15_000 } })
  })

  it("excludes a buy exactly 24 h earlier and includes one a millisecond later", () => {
    const index = new AgreementIndex()
    const t = 5 * DAY_MS
    index.record(buy(t - DAY_MS))
    index.record(buy(t - DAY_MS + 1, "No"))
    expect(index.query("m1", "Yes", t)).toEqual({ sameSide: { trades: 0, usd: 0 }, otherSide: { trades: 1, usd: 10_000 } })
  })

  it("excludes buys at the same millisecond: they are not before the trade", () => {
    const index = new AgreementIndex()
    const first = buy(100)
    const second = buy(100)
    expect(index.observe(first).sameSide.trades).toBe(0)
    expect(index.observe(second).sameSide.trades).toBe(0)
    expect(index.query("m1", "Yes", 101).sameSide.trades).toBe(2)
  })

  it("ignores sells, other markets and a second record of the same trade", () => {
    const index = new AgreementIndex()
    const once = buy(1)
    index.record(once)
    index.record(once)
    index.record(buy(2, "Yes", 10_000, "m1", "sell"))
    index.record(buy(3, "Yes", 10_000, "m2"))
    expect(index.query("m1", "Yes", 10).sameSide.trades).toBe(1)
    expect(index.query("m3", "Yes", 10)).toEqual({ sameSide: { trades: 0, usd: 0 }, otherSide: { trades: 0, usd: 0 } })
  })

  it("a buy arriving out of order is inserted in time order", () => {
    const index = new AgreementIndex()
    index.record(buy(10, "Yes", 1))
    index.record(buy(30, "Yes", 4))
    index.record(buy(20, "No", 2))
    expect(index.query("m1", "Yes", 25)).toEqual({ sameSide: { trades: 1, usd: 1 }, otherSide: { trades: 1, usd: 2 } })
    expect(index.query("m1", "No", 31)).toEqual({ sameSide: { trades: 1, usd: 2 }, otherSide: { trades: 2, usd: 5 } })
  })

  // Shrunk counterexample: querying after the whole feed is recorded reads pruned buys; the index
  // answers each trade when it arrives (`observe`), within the lateness allowance.
  it("prunes buys older than window + lateness behind the newest buy", () => {
    const a0 = buy(0)
    const a2 = buy(HOUR_MS)
    const a1 = buy(26 * HOUR_MS)
    const index = new AgreementIndex()
    expect(index.observe(a0).sameSide.trades).toBe(0)
    expect(index.observe(a2).sameSide.trades).toBe(1)
    expect(index.observe(a1)).toEqual(agreementNaive([a0, a2], a1))
    expect(index.observe(a1).sameSide.trades).toBe(0)
  })

  it("matches the naive reference on a long busy market", () => {
    const trades: Array<AgreementTrade> = []
    for (let i = 0; i < 600; i++) trades.push(buy(i * 7 * 60_000, i % 3 === 0 ? "No" : "Yes", 10_000 + i))
    const index = new AgreementIndex()
    for (const trade of trades) {
      const got = index.observe(trade)
      const want = agreementNaive(trades, trade)
      expect(got.sameSide.trades).toBe(want.sameSide.trades)
      expect(got.otherSide.trades).toBe(want.otherSide.trades)
      expect(got.sameSide.usd).toBeCloseTo(want.sameSide.usd, 1)
    }
  })
})
