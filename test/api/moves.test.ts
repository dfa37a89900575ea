// GET /v2/moves over seeded moves (30 hours of them; the listing shows the last 24): each filter holds
// on every row, the VALIDATION cases, a cursor walk, and no charge to the trade allowance.
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DAY, HOUR, NOW, seedMoves, startApiFixture, type Fixture } from "../support/api-fixture.js"
import { call } from "../support/http-client.js"

let f: Fixture
beforeAll(async () => {
  f = await startApiFixture()
})
afterAll(async () => {
  await f?.close()
})

const get = (path: string, token = f.token()) => call(f.url, path, { token })
const rows = async (query: string) => {
  const a = await get(`/v2/moves?limit=200&${query}`)
  expect(a.status, JSON.stringify(a.body)).toBe(200)
  return a.body.data as Array<any>
}
const iso = (ms: number) => new Date(ms).toISOString()

describe("listing", () => {
  it("shows the seeded moves of the last 24 hours, newest first, with every move-row field", async () => {
    const data = await rows("")
    // The seeded rows plus what the pipeline detected from the seeded trades: the table's last day.
    const expected = await f.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: string }>`SELECT id FROM moves WHERE time_ms >= ${NOW - DAY} ORDER BY time_ms DESC, id`))
    expect(data.map((r) => r.id)).toEqual(expected.map((m) => m.id))
    const seeded = new Set(seedMoves().filter((m) => m.time >= NOW - DAY).map((m) => m.id))
    expect(data.filter((r) => seeded.has(r.id))).toHaveLength(seeded.size)
    const times = data.map((r) => Date.parse(r.time))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    for (const r of data) {
      expect(Object.keys(r).sort()).toEqual(
        ["id", "market", "minutes", "outcome", "priceAfter", "priceBefore", "time", "traders", "type", "usd"],
      )
      if (r.type !== "move") expect(r.priceBefore).toBeNull()
    }
  })

  it("is free of the daily trade allowance", async () => {
    const a = await get("/v2/moves?limit=5")
    expect(a.headers.get("x-trades-remaining")).toBeNull()
    expect(a.headers.get("x-ratelimit-remaining")).not.toBeNull()
  })

  it("walks by cursor with no gap and no duplicate", async () => {
    const token = f.token()
    const ids: Array<string> = []
    let cursor: string | null = null
    do {
      const a = await get(`/v2/moves?limit=9${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, token)
      expect(a.status).toBe(200)
      ids.push(...a.body.data.map((r: any) => r.id))
      cursor = a.body.nextCursor
    } while (cursor !== null)
    expect(ids).toEqual((await rows("")).map((r) => r.id))
  })
})

describe("filters hold on every returned row", () => {
  const cases: ReadonlyArray<readonly [string, (r: any) => boolean]> = [
    ["venue=venue_a", (r) => r.market.venue === "venue_a"],
    ["category=crypto&category=finance", (r) => ["crypto", "finance"].includes(r.market.category)],
    ["kind=nba", (r) => r.market.kind === "nba"],
    ["market=venue_a:event:E1", (r) => r.market.ref === "venue_a:event:E1"],
    ["market=venue_a:E1C", (r) => r.market.contract === "venue_a:E1C"],
    ["type=flip", (r) => r.type === "flip"],
    ["type=move&type=whales", (r) => r.type !== "flip"],
    ["minPoints=30", (r) => r.type !== "move" || Math.round(Math.abs(r.priceAfter - r.priceBefore) * 100) >= 30],
    ["type=move&minPoints=50", (r) => r.type === "move" && Math.abs(r.priceAfter - r.priceBefore) >= 0.495],
    ["priceMin=0.3&priceMax=0.6", (r) => r.priceAfter !== null && r.priceAfter >= 0.3 && r.priceAfter <= 0.6],
    ["q=bitcoin%20FRIDAY", (r) => /bitcoin/i.test(r.market.title) && /friday/i.test(r.market.title)],
    [`since=${iso(NOW - 3 * HOUR)}`, (r) => Date.parse(r.time) >= NOW - 3 * HOUR],
    [`since=${iso(NOW - 10 * DAY)}`, (r) => Date.parse(r.time) >= NOW - DAY],
  ]
  for (const [query, holds] of cases) {
    it(query, async () => {
      const data = await rows(query)
      expect(data.length, "the seed has rows for this filter").toBeGreaterThan(0)
      for (const r of data) expect(holds(r), JSON.stringify(r)).toBe(true)
    })
  }

  it("minPoints keeps flips and whales", async () => {
    const data = await rows("minPoints=100")
    expect(data.some((r) => r.type === "flip")).toBe(true)
    expect(data.some((r) => r.type === "whales")).toBe(true)
  })
})

describe("VALIDATION", () => {
  const cases: ReadonlyArray<string> = [
    "minPoints=101", "minPoints=-1", "priceMin=2", "priceMax=x", "priceMin=0.7&priceMax=0.2", "type=jump",
    "outcome=Yes", "trader=venue_a:alice", "until=2026-01-01T00:00:00Z", "since=2026-01-19", "bogus=1", "limit=500",
    `q=${"y".repeat(201)}`, "cursor=abc.def",
    Array.from({ length: 51 }, () => "type=move").join("&"),
  ]
  for (const query of cases) {
    it(query.slice(0, 60), async () => {
      const a = await get(`/v2/moves?${query}`)
      expect(a.status, JSON.stringify(a.body)).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
    })
  }

  it("a trades cursor is foreign here", async () => {
    const token = f.token()
    const trades = await get("/v2/trades?limit=1", token)
    const a = await get(`/v2/moves?cursor=${encodeURIComponent(trades.body.nextCursor)}`, token)
    expect(a.status).toBe(400)
    expect(a.body.error).toContain("cursor")
  })
})
