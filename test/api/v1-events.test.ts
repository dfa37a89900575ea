// POST /v1/events over the seeded whale trades: the rows are GET /v2/trades's trades (action=all) as v1
// whale event rows, most recent first; each criterion holds on every row; limit and offset page; the
// VALIDATION cases and the bounds at their edges; the v1 envelope; no charge to the trade allowance.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { kindsOfLeagues } from "../../src/domain/v1.js"
import { DAY, NOW, startApiFixture, type Fixture } from "../support/api-fixture.js"
import { call } from "../support/http-client.js"

let f: Fixture
beforeAll(async () => {
  f = await startApiFixture()
})
afterAll(async () => {
  await f?.close()
})

const post = (body: unknown) => call(f.url, "/v1/events", { method: "POST", body, token: f.token() })
const events = async (body: unknown): Promise<Array<any>> => {
  const a = await post(body)
  expect(a.status, JSON.stringify(a.body)).toBe(200)
  expect(a.body.success).toBe(true)
  return a.body.data.events as Array<any>
}
/** Every seeded trade of the window, as GET /v2/trades lists them (newest first). */
const v2Trades = async (): Promise<Array<any>> => {
  const out: Array<any> = []
  const token = f.token() // a cursor is bound to the account that got it
  let cursor: string | null = null
  do {
    const a = await call(f.url, `/v2/trades?action=all&limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { token })
    expect(a.status).toBe(200)
    out.push(...a.body.data)
    cursor = a.body.nextCursor
  } while (cursor !== null)
  return out
}

const KEYS = [
  "amount", "detectedAt", "direction", "id", "marketCategory", "marketTitle", "outcomeName", "platform", "platformMarketId",
  "pnlUsd", "positionDelta", "price", "resolution",
]

describe("POST /v1/events", () => {
  let all: Array<any>
  beforeAll(async () => {
    all = await v2Trades()
    expect(all.length).toBeGreaterThan(60)
  })

  it("answers an empty body with the 50 most recent whale trades as v1 rows, in the v1 envelope", async () => {
    const a = await post({})
    expect(a.status).toBe(200)
    expect(Object.keys(a.body).sort()).toEqual(["data", "success"])
    expect(a.body.data.limit).toBe(50)
    expect(a.body.data.offset).toBe(0)
    const rows = a.body.data.events as Array<any>
    expect(rows.map((r) => r.id)).toEqual(all.slice(0, 50).map((t) => t.id))
    expect(a.headers.get("x-trades-remaining")).toBeNull()
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(KEYS)
      const t = all.find((x) => x.id === r.id)
      expect(r).toMatchObject({
        platform: t.market.venue, marketTitle: t.market.title, marketCategory: t.market.category, outcomeName: t.outcome,
        amount: t.usd, price: t.price, positionDelta: t.entry ?? "unknown", detectedAt: t.time,
        resolution: t.result === "open" ? null : t.result, pnlUsd: t.profit,
      })
      expect(`${r.platform}:${r.platformMarketId}`).toBe(t.market.contract)
      expect(r.direction.startsWith(`${t.action}_`)).toBe(true)
    }
  })

  it("takes a request with no body at all as the empty body", async () => {
    const none = await call(f.url, "/v1/events", { method: "POST", token: f.token() })
    expect(none.status).toBe(200)
    expect(none.body.data).toEqual((await post({})).body.data)
  })

  it("pages by limit and offset", async () => {
    const ten = await events({ limit: 10 })
    const first = await events({ limit: 5 })
    const second = await events({ limit: 5, offset: 5 })
    expect([...first, ...second].map((r) => r.id)).toEqual(ten.map((r) => r.id))
    expect(await events({ offset: all.length })).toEqual([])
  })

  it("holds each criterion on every row", async () => {
    const cases: Array<[object, (r: any) => boolean]> = [
      [{ platforms: ["venue_d"] }, (r) => r.platform === "venue_d"],
      [{ platforms: ["venue_a", "venue_b_us"] }, (r) => r.platform === "venue_a" || r.platform === "venue_b_us"],
      [{ categories: ["crypto"] }, (r) => r.marketCategory === "crypto"],
      [{ minAmountUsd: 50_000 }, (r) => r.amount >= 50_000],
      [{ maxAmountUsd: 40_000 }, (r) => r.amount <= 40_000],
      [{ priceMin: 0.3, priceMax: 0.6 }, (r) => r.price >= 0.3 && r.price <= 0.6],
      [{ eventTypes: ["open"] }, (r) => r.positionDelta === "open"],
      [{ eventTypes: ["unknown"] }, (r) => r.positionDelta === "unknown"],
      [{ directions: ["sell_yes", "sell_no"] }, (r) => r.direction.startsWith("sell_")],
      [{ directions: ["buy_no"] }, (r) => r.direction === "buy_no"],
      [{ keywords: ["BITCOIN", "senate"] }, (r) => /bitcoin|senate/i.test(r.marketTitle)],
      [{ sportsLeagues: ["NBA"] }, (r) => all.find((t) => t.id === r.id)?.market.kind === "nba"],
      [{ sinceDays: 2 }, (r) => Date.parse(r.detectedAt) >= NOW - 2 * DAY],
    ]
    // Every row of the window unfiltered (checked against GET /v2/trades above), page by page.
    const unfiltered: Array<any> = []
    for (let offset = 0; offset < all.length; offset += 200) unfiltered.push(...(await events({ limit: 200, offset })))
    expect(unfiltered.map((r) => r.id)).toEqual(all.map((t) => t.id))
    for (const [criteria, holds] of cases) {
      const rows = await events({ criteria, limit: 200 })
      expect(rows.length, JSON.stringify(criteria)).toBeGreaterThan(0)
      for (const r of rows) expect(holds(r), `${JSON.stringify(criteria)}: ${JSON.stringify(r)}`).toBe(true)
      // And nothing matching was left out: exactly the matching rows, in order (the first 200).
      expect(rows.map((r) => r.id), JSON.stringify(criteria)).toEqual(unfiltered.filter(holds).slice(0, 200).map((r) => r.id))
    }
    // A side is yes or no consistently with the market's sides: both appear across the seeded trades.
    const sides = new Set((await events({ limit: 200 })).map((r) => r.direction.split("_")[1]))
    expect(sides).toEqual(new Set(["yes", "no"]))
  })

  it("reads an empty criteria list as every value, keywords included (up to 10: none is all)", async () => {
    const every = await events({ limit: 200 })
    for (const k of ["platforms", "categories", "sportsLeagues", "eventTypes", "directions", "keywords"]) {
      expect((await events({ criteria: { [k]: [] }, limit: 200 })).map((r) => r.id), k).toEqual(every.map((r) => r.id))
    }
  })

  it("matches nothing for a platform or a league it does not follow", async () => {
    expect(await events({ criteria: { platforms: ["venue_e", "venue_g"] } })).toEqual([])
    expect(await events({ criteria: { sportsLeagues: ["curling"] } })).toEqual([])
    expect(kindsOfLeagues(["NCAAF", "college-football", "Formula 1", "nba", "x"])).toEqual(["college_football", "motorsport", "nba"])
  })

  it("refuses bad criteria with VALIDATION naming the field, and takes every bound at its edge", async () => {
    const refused = async (body: unknown, mentions: string) => {
      const a = await post(body)
      expect(a.status, JSON.stringify(body)).toBe(400)
      expect(a.body).toEqual({ success: false, error: expect.stringContaining(mentions), code: "VALIDATION" })
    }
    await refused({ bogus: 1 }, "bogus")
    await refused({ criteria: { bogus: 1 } }, "bogus")
    await refused({ criteria: { minAmountUsd: 10, maxAmountUsd: 5 } }, "maxAmountUsd")
    await refused({ criteria: { priceMin: 0.6, priceMax: 0.5 } }, "priceMax")
    await refused({ criteria: { priceMax: 1.01 } }, "priceMax")
    await refused({ criteria: { sinceDays: 0 } }, "sinceDays")
    await refused({ criteria: { sinceDays: 366 } }, "sinceDays")
    await refused({ criteria: { platforms: ["venue_x"] } }, "platforms")
    await refused({ criteria: { directions: ["hold"] } }, "directions")
    await refused({ criteria: { sportsLeagues: Array.from({ length: 21 }, (_, i) => `l${i}`) } }, "sportsLeagues")
    await refused({ criteria: { keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) } }, "criteria.keywords may hold at most 10")
    await refused({ criteria: { keywords: ["x".repeat(41)] } }, "keyword")
    await refused({ limit: 201 }, "limit")
    await refused({ limit: 0 }, "limit")
    await refused({ offset: -1 }, "offset")
    for (const body of [
      { criteria: { sinceDays: 1 } }, { criteria: { sinceDays: 365 } }, { limit: 200 }, { limit: 1 },
      { criteria: { sportsLeagues: Array.from({ length: 20 }, (_, i) => `l${i}`) } },
      { criteria: { keywords: Array.from({ length: 10 }, (_, i) => `k${i}`) } },
    ]) expect((await post(body)).status, JSON.stringify(body)).toBe(200)
  })
})
