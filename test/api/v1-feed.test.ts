// GET /v1/feed over the seeded whale trades: the newest whale events as v1 rows (the rows POST /v1/events
// gives), each filter holding on every row, `since` for polling, `limit` at its edges, the v1 envelope.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApiFixture, type Fixture } from "../support/api-fixture.js"
import { call } from "../support/http-client.js"

let f: Fixture
beforeAll(async () => {
  f = await startApiFixture()
})
afterAll(async () => {
  await f?.close()
})

const feed = (query: string) => call(f.url, `/v1/feed${query}`, { token: f.token() })
const rows = async (query: string): Promise<Array<any>> => {
  const a = await feed(query)
  expect(a.status, JSON.stringify(a.body)).toBe(200)
  expect(a.body.success).toBe(true)
  return a.body.data.events as Array<any>
}

describe("GET /v1/feed", () => {
  it("gives the newest whale events, the rows POST /v1/events gives", async () => {
    const a = await feed("")
    expect(a.status).toBe(200)
    expect(a.body.data.limit).toBe(50)
    const events = await call(f.url, "/v1/events", { method: "POST", body: { criteria: { sinceDays: 30 }, limit: 200 }, token: f.token() })
    expect(a.body.data.events).toEqual(events.body.data.events.slice(0, 50))
    expect(a.headers.get("x-trades-remaining")).toBeNull()
  })

  it("holds each filter on every row", async () => {
    const venue = await rows("?platform=venue_d&limit=200")
    expect(venue.length).toBeGreaterThan(0)
    expect(venue.every((r) => r.platform === "venue_d")).toBe(true)
    const either = await rows("?platform=venue_d&platform=venue_b_us&limit=200")
    expect(new Set(either.map((r) => r.platform))).toEqual(new Set(["venue_d", "venue_b_us"]))
    const crypto = await rows("?category=crypto&limit=200")
    expect(crypto.length).toBeGreaterThan(0)
    expect(crypto.every((r) => r.marketCategory === "crypto")).toBe(true)
    const big = await rows("?minAmountUsd=80000&limit=200")
    expect(big.length).toBeGreaterThan(0)
    expect(big.every((r) => r.amount >= 80_000)).toBe(true)
    expect(await rows("?platform=venue_e")).toEqual([])
  })

  it("polls from `since`: only events detected at or after it", async () => {
    const all = await rows("?limit=200")
    const pivot = all[10]
    const newer = await rows(`?since=${encodeURIComponent(pivot.detectedAt)}&limit=200`)
    expect(newer.map((r) => r.id)).toEqual(all.filter((r) => r.detectedAt >= pivot.detectedAt).map((r) => r.id))
    expect(newer.length).toBeGreaterThanOrEqual(11)
  })

  it("holds limit at its edges and refuses bad parameters with VALIDATION naming them", async () => {
    expect((await rows("?limit=1")).length).toBe(1)
    expect((await rows("?limit=200")).length).toBeGreaterThan(50)
    for (const [query, message] of [
      ["?limit=0", "limit must be an integer from 1 to 200"],
      ["?limit=201", "limit must be an integer from 1 to 200"],
      ["?minAmountUsd=-1", "minAmountUsd must be a number from 0 to"],
      ["?since=yesterday", "since must be an ISO 8601 time with an offset"],
      ["?platform=venue_x", "platform"],
      ["?bogus=1", "Unknown query parameter `bogus`"],
    ] as const) {
      const a = await feed(query)
      expect(a.status, query).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
      expect(a.body.error).toContain(message)
    }
  })
})
