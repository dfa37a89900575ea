// GET /v2/positions through the HTTP door: winning traders' rows from Intel, the filters, sorts and a
// cursor walk, and the positions allowance (each holder one trade of the account's day).
import { Layer, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { WhalePositionRow } from "../../src/domain/position.js"
import { listPositions, PositionsAllowanceLimit } from "../../src/operations/positions.js"
import { call } from "../support/http-client.js"
import { aMarket, MIN, NO, opened, priced, settled, T0, traded, YES } from "../support/intel-events.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { startIntelServer, type IntelServer } from "./intel-server.js"

const DAY = 86_400_000
const NOW = T0 + 3 * DAY

const p1 = aMarket({ contract: "p1", title: "Lakers at Celtics", listedAt: NOW - 3 * 60 * MIN })
const p2 = aMarket({ contract: "p2", title: "Knicks at Heat", listedAt: NOW - 3 * 60 * MIN })
const p3 = aMarket({ contract: "p3", venue: "venue_d", title: "Fed cut", category: "finance", kind: "fed_rates", listedAt: NOW - 3 * 60 * MIN })

/** alice (9 of 12) and bob (8 of 10) have winning nba records; then they hold p1 and p2; a whale buys p3. */
const scenario = (): Array<MarketEvent> => {
  const events: Array<MarketEvent> = []
  let n = 0
  const history = (trader: string, bets: number, wins: number) => {
    for (let i = 0; i < bets; i++) {
      const m = aMarket({ contract: `h${++n}`, listedAt: T0 })
      events.push(opened(m), traded(m, { ts: T0 + n * MIN, price: 0.5, usd: 1_000, trader }), settled(m, T0 + n * MIN + 30 * MIN, i < wins ? YES : NO))
    }
  }
  history("alice", 12, 9)
  history("bob", 10, 8)
  events.push(opened(p1), opened(p2), opened(p3))
  events.push(traded(p1, { ts: NOW - 120 * MIN, price: 0.5, usd: 5_000, trader: "alice" }))
  events.push(traded(p1, { ts: NOW - 90 * MIN, price: 0.4, usd: 2_000, trader: "bob" }))
  events.push(traded(p2, { ts: NOW - 30 * MIN, price: 0.3, usd: 3_000, trader: "alice", side: NO }))
  events.push(traded(p3, { ts: NOW - 60 * MIN, price: 0.7, usd: 20_000 }))
  events.push(priced(p1, NOW - 10 * MIN, 0.62))
  return events.sort((a, b) => a.ts - b.ts)
}

const principal = aPrincipal()
const spender = aPrincipal()
let server: IntelServer

beforeAll(async () => {
  server = await startIntelServer({
    operations: [listPositions],
    events: scenario(),
    keys: memoryKeys({ tok: principal, spender }),
    clock: manualClock(NOW).layer,
    extra: Layer.succeed(PositionsAllowanceLimit, 1_000),
  })
}, 60_000)
afterAll(async () => server?.close())

const get = (path: string, token = "tok") => call(server.url, path, { token })
const sides = (body: { data: Array<WhalePositionRow> }) => body.data.map((r) => `${r.market.ref}:${r.outcome}`)

describe("GET /v2/positions", () => {
  it("lists winning traders' sides by dollars held, with holders, price and split", async () => {
    const answer = await get("/v2/positions")
    expect(answer.status).toBe(200)
    const rows = answer.body.data.map((r: unknown) => Schema.decodeUnknownSync(WhalePositionRow)(r))
    expect(sides(answer.body)).toEqual(["venue_d:p3:Yes", "venue_a:p1:Yes", "venue_a:p2:No"])
    const [whale, held] = rows as [WhalePositionRow, WhalePositionRow]
    expect(whale).toMatchObject({ lead: null, others: [], usd: 20_000, market: { venue: "venue_d", kind: "fed_rates", title: "Fed cut" } })
    expect(held.lead?.ref).toBe("venue_a:alice")
    expect(held.others.map((h) => h.ref)).toEqual(["venue_a:bob"])
    expect(held.price).toBe(0.62)
    expect(held.usd).toBe(7_000)
    expect(held.market).toEqual({ ref: "venue_a:p1", contract: "venue_a:p1", title: "Lakers at Celtics", venue: "venue_a", category: "sports", kind: "nba" })
  })

  it("filters by price, size, holders, trader, venue, market and outcome; backed needs a record", async () => {
    const q = async (query: string) => sides((await get(`/v2/positions${query}`)).body)
    expect(await q("?priceMin=0.5")).toEqual(["venue_a:p1:Yes"])
    expect(await q("?priceMax=0.5")).toEqual([])
    expect(await q("?minUsd=5000")).toEqual(["venue_d:p3:Yes", "venue_a:p1:Yes"])
    expect(await q("?minTraders=2")).toEqual(["venue_a:p1:Yes"])
    expect(await q("?trader=venue_a:bob")).toEqual(["venue_a:p1:Yes"])
    expect(await q("?venue=venue_d")).toEqual(["venue_d:p3:Yes"])
    expect(await q("?market=venue_a:p2&outcome=no")).toEqual(["venue_a:p2:No"])
    expect(await q("?backed=true")).toEqual([])
    expect(await q("?sort=newest")).toEqual(["venue_a:p2:No", "venue_d:p3:Yes", "venue_a:p1:Yes"])
    const outcome = await get("/v2/positions?outcome=Yes")
    expect(outcome.status).toBe(400)
    expect(outcome.body.code).toBe("VALIDATION")
    for (const query of ["?minTraders=0", "?minTraders=101", "?priceMin=0.6&priceMax=0.5", "?sort=price", "?colour=red"]) {
      expect((await get(`/v2/positions${query}`)).status, query).toBe(400)
    }
  })

  it("walks the rows one page at a time", async () => {
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const answer: { body: { data: Array<WhalePositionRow>; nextCursor: string | null } } =
        await get(`/v2/positions?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      seen.push(...sides(answer.body))
      cursor = answer.body.nextCursor
    } while (cursor !== null && seen.length < 10)
    expect(seen).toEqual(["venue_d:p3:Yes", "venue_a:p1:Yes", "venue_a:p2:No"])
  })
})

describe("the positions allowance", () => {
  let small: IntelServer
  beforeAll(async () => {
    small = await startIntelServer({
      operations: [listPositions],
      events: scenario(),
      keys: memoryKeys({ spender }),
      clock: manualClock(NOW).layer,
      extra: Layer.succeed(PositionsAllowanceLimit, 4),
    })
  }, 60_000)
  afterAll(async () => small?.close())

  it("counts each holder as one trade of the account's day and refuses a page that would pass it", async () => {
    const get4 = (query: string) => call(small.url, `/v2/positions${query}`, { token: "spender" })
    expect((await get4("")).status).toBe(200) // 3 holders: 1 left
    const over = await get4("?market=venue_a:p1") // 2 holders
    expect(over.status).toBe(429)
    expect(over.body).toMatchObject({ code: "QUOTA_EXCEEDED", error: expect.stringContaining("1 of the daily positions allowance remain") })
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await get4("?venue=venue_d")).status).toBe(200) // no holders: free
    expect((await get4("?market=venue_a:p2")).status).toBe(200) // 1 holder: spent
    const spent = await get4("?venue=venue_d")
    expect(spent.status).toBe(429)
    expect(spent.body.error).toContain("used up; it resets at midnight UTC")
  })
})
