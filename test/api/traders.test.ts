// GET /v2/traders and GET /v2/traders/{ref} through the HTTP door over a test database: sorts (rated
// traders first), filters, validation, a cursor walk, the detail with its includes and their charge.
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TraderDetail, TraderRow } from "../../src/domain/trader.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { recordStats, type RecordTrade } from "../../src/intel/records.js"
import { getTrader, listTraders } from "../../src/operations/traders.js"
import { getTraderV1, listTradersV1 } from "../../src/operations/v1-aliases.js"
import { call } from "../support/http-client.js"
import { aMarket, MIN, NO, opened, settled, T0, traded, YES } from "../support/intel-events.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { startIntelServer, type IntelServer } from "./intel-server.js"

const DAY = 86_400_000
const NOW = T0 + 3 * DAY

/**
 * alice (venue_a, nba): 12 settled buys at 0.5, 9 won; one open buy today.
 * bob (venue_a, nba 3 + nfl 2): 5 settled buys, all won (unrated: fewer than 10).
 * carol (venue_b, us_elections): 10 settled buys at 0.4, 6 won, two days ago.
 * dave (venue_a): traded 40 days ago only (not active).
 */
const scenario = (): Array<MarketEvent> => {
  const events: Array<MarketEvent> = []
  let n = 0
  const bet = (trader: string, o: { venue?: "venue_a" | "venue_b"; kind?: string; category?: string; win: boolean; at: number; price?: number; usd?: number; settle?: boolean }) => {
    const market = aMarket({
      contract: `c${++n}`, venue: o.venue ?? "venue_a", category: (o.category ?? "sports") as never, kind: (o.kind ?? "nba") as never, listedAt: o.at - MIN,
    })
    events.push(opened(market))
    events.push(traded(market, { ts: o.at, price: o.price ?? 0.5, usd: o.usd ?? 1_000, trader, side: YES }))
    if (o.settle !== false) events.push(settled(market, o.at + 60 * MIN, o.win ? YES : NO))
  }
  for (let i = 0; i < 12; i++) bet("alice", { win: i < 9, at: T0 + i * MIN })
  bet("alice", { win: true, at: NOW - 60 * MIN, settle: false })
  for (let i = 0; i < 5; i++) bet("bob", { win: true, at: T0 + i * MIN, kind: i < 3 ? "nba" : "nfl" })
  for (let i = 0; i < 10; i++) bet("carol", { venue: "venue_b", category: "politics", kind: "us_elections", win: i < 6, at: NOW - 2 * DAY + i * MIN, price: 0.4 })
  bet("dave", { win: true, at: T0 - 40 * DAY })
  return events.sort((a, b) => a.ts - b.ts)
}

const principal = aPrincipal()
let server: IntelServer

beforeAll(async () => {
  const clock = manualClock(NOW)
  server = await startIntelServer({
    operations: [listTraders, getTrader, listTradersV1, getTraderV1],
    events: scenario(),
    keys: memoryKeys({ tok: principal }),
    clock: clock.layer,
  })
}, 60_000)
afterAll(async () => server?.close())

const get = (path: string) => call(server.url, path, { token: "tok" })

const profitOf = (wins: number, losses: number, price: number, usd: number) => wins * usd * (1 - price) / price - losses * usd

describe("GET /v2/traders", () => {
  it("lists active traders with figures over the whole record, rated traders first, by profit", async () => {
    const answer = await get("/v2/traders")
    expect(answer.status).toBe(200)
    const rows = answer.body.data.map((r: unknown) => Schema.decodeUnknownSync(TraderRow)(r))
    expect(rows.map((r: TraderRow) => r.ref)).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
    const alice = rows[0] as TraderRow
    expect(alice).toMatchObject({ name: "ALICE", venue: "venue_a", trades: 13, settled: 12, winRate: 0.75, bestKind: "nba" })
    expect(alice.profit).toBeCloseTo(profitOf(9, 3, 0.5, 1_000))
    expect(alice.return).toBeCloseTo(profitOf(9, 3, 0.5, 1_000) / 13_000) // profit / money traded (volume)
    expect(alice.volume).toBe(13_000)
    const bob = rows[2] as TraderRow
    // Bob's profit (5 wins) equals Carol's, but with 5 settled bets he is unrated and sorts after.
    expect(bob.profit).toBeGreaterThanOrEqual((rows[1] as TraderRow).profit)
    expect(bob).toMatchObject({ winRate: null, return: null, settled: 5 })
    expect(answer.body.nextCursor).toBeNull()
  })

  it("matches recordStats over the same trades (the SQL sums are the records' arithmetic)", async () => {
    const trades: Array<RecordTrade> = Array.from({ length: 10 }, (_, i) => ({
      id: `x${i}`, trader: "venue_b:carol", venue: "venue_b", time: NOW - 2 * DAY + i * MIN, category: "politics", kind: "us_elections",
      action: "buy", price: 0.4, contracts: 2_500, usd: 1_000, entry: "open", result: i < 6 ? "win" : "loss", settledAt: NOW - 2 * DAY + i * MIN + 60 * MIN,
    }))
    const expected = recordStats(trades, NOW)
    const carol = (await get("/v2/traders?venue=venue_b")).body.data[0]
    expect(carol.profit).toBeCloseTo(expected.profit)
    expect(carol.winRate).toBeCloseTo(expected.winRate as number)
    expect(carol.return).toBeCloseTo(expected.return as number)
  })

  it("filters by venue, category and kind, period, minSettled and q", async () => {
    const refs = async (query: string) => (await get(`/v2/traders${query}`)).body.data.map((r: TraderRow) => r.ref)
    expect(await refs("?venue=venue_b")).toEqual(["venue_b:carol"])
    expect(await refs("?venue=venue_a&venue=venue_b&category=politics")).toEqual(["venue_b:carol"])
    expect(await refs("?category=sports&kind=nfl")).toEqual(["venue_a:bob"])
    expect(await refs("?minSettled=10")).toEqual(["venue_a:alice", "venue_b:carol"])
    expect(await refs("?q=ali")).toEqual(["venue_a:alice"])
    expect(await refs("?q=CAROL")).toEqual(["venue_b:carol"])
    // Today: only alice's open buy of the last hour.
    const today = (await get("/v2/traders?period=today")).body.data
    expect(today.map((r: TraderRow) => r.ref)).toEqual(["venue_a:alice"])
    expect(today[0]).toMatchObject({ trades: 1, settled: 0, profit: 0, winRate: null })
    expect(await refs("?period=week")).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
  })

  it("sorts by win_rate, trades and recent, unrated traders last", async () => {
    const refs = async (sort: string) => (await get(`/v2/traders?sort=${sort}`)).body.data.map((r: TraderRow) => r.ref)
    expect(await refs("win_rate")).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
    expect(await refs("trades")).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
    expect(await refs("recent")).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
    // return = profit / money traded: carol 5,000 / 10,000 = 0.5 above alice 6,000 / 13,000 (her open buy counts).
    expect(await refs("return")).toEqual(["venue_b:carol", "venue_a:alice", "venue_a:bob"])
  })

  it("takes every venue id in `venue` (the shared filter): a venue that names no traders lists none", async () => {
    const refs = async (query: string) => {
      const answer = await get(`/v2/traders${query}`)
      expect(answer.status, query).toBe(200)
      return answer.body.data.map((r: TraderRow) => r.ref)
    }
    expect(await refs("?venue=venue_d")).toEqual([])
    expect(await refs("?venue=venue_b_us")).toEqual([])
    expect(await refs("?venue=venue_a&venue=venue_d")).toEqual(["venue_a:alice", "venue_a:bob"])
    const bad = await get("/v2/traders?venue=venue_x")
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("`venue`")
  })

  it("refuses bad parameters with VALIDATION", async () => {
    for (const query of ["?venue=venue_x", "?category=sports&kind=us_elections", "?period=year", "?minSettled=0", "?sort=name", `?q=${"x".repeat(101)}`, "?category=sports&category=politics", "?colour=red"]) {
      const answer = await get(`/v2/traders${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body.code).toBe("VALIDATION")
    }
    expect((await get("/v2/traders?category=sports&kind=us_elections")).body.error).toContain("not in category")
  })

  it("counts q in characters: 100 emoji pass, 101 fail", async () => {
    expect((await get(`/v2/traders?q=${encodeURIComponent("😀".repeat(100))}`)).status).toBe(200)
    const over = await get(`/v2/traders?q=${encodeURIComponent("😀".repeat(101))}`)
    expect(over.status).toBe(400)
    expect(over.body.error).toBe("q must be at most 100 characters")
  })

  it("walks every row with limit=1 and refuses the cursor on other filters", async () => {
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const answer: { body: { data: Array<TraderRow>; nextCursor: string | null } } = await get(`/v2/traders?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      seen.push(...answer.body.data.map((r) => r.ref))
      cursor = answer.body.nextCursor
    } while (cursor !== null && seen.length < 10)
    expect(seen).toEqual(["venue_a:alice", "venue_b:carol", "venue_a:bob"])
    const first = (await get("/v2/traders?limit=1")).body.nextCursor as string
    const foreign = await get(`/v2/traders?limit=1&sort=volume&cursor=${encodeURIComponent(first)}`)
    expect(foreign.status).toBe(400)
    expect(foreign.body.error).toBe("cursor is not valid for this listing")
  })
})

describe("GET /v2/traders/{ref}", () => {
  it("returns the record, by category and kind, rank and last trade", async () => {
    const answer = await get("/v2/traders/venue_a%3Abob")
    expect(answer.status).toBe(200)
    const bob = Schema.decodeUnknownSync(TraderDetail)(answer.body.data)
    expect(bob).toMatchObject({ ref: "venue_a:bob", name: "BOB", venue: "venue_a", avgEntry: 0.5 })
    expect(bob.record).toMatchObject({ trades: 5, settled: 5, winRate: null, return: null, volume: 5_000 })
    expect(bob.byCategory.map((r) => [r.category, r.kind, r.trades])).toEqual([["sports", null, 5]])
    expect(bob.byKind.map((r) => [r.kind, r.settled])).toEqual([["nfl", 2], ["nba", 3]])
    // venue_a's profit ranking: alice 6,000, bob 5,000, dave 500 (inactive traders still rank).
    expect(bob.rank).toEqual({ position: 2, outOf: 3 })
    expect(bob.positions).toBeUndefined()
  })

  it("adds each include and charges one more request for each", async () => {
    const plain = await get("/v2/traders/venue_a%3Aalice")
    const before = Number(plain.headers.get("x-ratelimit-remaining"))
    const answer = await get("/v2/traders/venue_a%3Aalice?include=positions,curve&include=habits&include=similar")
    expect(answer.status).toBe(200)
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBe(before - 5)
    const alice = Schema.decodeUnknownSync(TraderDetail)(answer.body.data)
    expect(alice.positions?.open).toHaveLength(1)
    expect(alice.positions?.recent.length).toBe(12)
    expect(alice.positions?.open[0]?.market?.kind).toBeNull()
    expect(alice.curve?.points.at(-1)?.trades).toBe(12)
    expect(alice.curve?.points.at(-1)?.profit).toBeCloseTo(profitOf(9, 3, 0.5, 1_000))
    // T0 is Thursday 2026-01-15 07:00 US Eastern: ISO weekday 4.
    expect(alice.habits?.hours).toEqual([{ weekday: 4, hour: 7, trades: 12 }, { weekday: 7, hour: 6, trades: 1 }])
    expect(alice.habits?.behaviour.find((b) => b.entry === "open")?.trades).toBe(13)
    expect(alice.similar?.map((s) => s.ref)).toContain("venue_a:bob")
    expect(alice.similar?.map((s) => s.ref)).not.toContain("venue_b:carol")
  })

  it("answers NOT_FOUND for an unknown trader and VALIDATION for a ref on a venue that names no trader", async () => {
    const unknown = await get("/v2/traders/venue_a%3Anobody")
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("NOT_FOUND")
    // A 404 costs its one request: includes are charged once the trader is known.
    const before = Number(unknown.headers.get("x-ratelimit-remaining"))
    const withIncludes = await get("/v2/traders/venue_a%3Anobody?include=curve,habits")
    expect(withIncludes.status).toBe(404)
    expect(Number(withIncludes.headers.get("x-ratelimit-remaining"))).toBe(before - 1)
    const venue = await get("/v2/traders/venue_d%3Asomeone")
    expect(venue.status).toBe(400)
    expect(venue.body.code).toBe("VALIDATION")
    const include = await get("/v2/traders/venue_a%3Aalice?include=trades")
    expect(include.status).toBe(400)
  })
})

describe("the v1 paths of list_traders and get_trader", () => {
  it("GET /v1/traders answers GET /v2/traders in the v1 envelope, and its cursor pages on either path", async () => {
    const v2 = await get("/v2/traders?limit=2")
    const v1 = await get("/v1/traders?limit=2")
    expect(v1.body).toEqual({ success: true, data: v2.body.data, nextCursor: v2.body.nextCursor })
    const next = await get(`/v2/traders?limit=2&cursor=${encodeURIComponent(v1.body.nextCursor)}`)
    expect(next.status).toBe(200)
    expect((await get(`/v1/traders?limit=2&cursor=${encodeURIComponent(v1.body.nextCursor)}`)).body.data).toEqual(next.body.data)
    expect((await get("/v1/traders?limit=201")).body.code).toBe("VALIDATION")
  })

  it("GET /v1/traders/{platform}/{traderId} answers GET /v2/traders/{platform:traderId} in the v1 envelope", async () => {
    const v2 = await get("/v2/traders/venue_a:alice?include=positions")
    const v1 = await get("/v1/traders/venue_a/alice?include=positions")
    expect(v2.status).toBe(200)
    expect(v1.body).toEqual({ success: true, data: v2.body.data })
    expect((await get("/v1/traders/venue_a/nobody")).status).toBe(404)
    const platform = await get("/v1/traders/venue_z/alice")
    expect(platform.body).toMatchObject({ code: "VALIDATION", error: expect.stringContaining("platform") })
    // A platform that names no traders is this request's `platform`, not a `ref` it does not have.
    const unnamed = await get("/v1/traders/venue_d/alice")
    expect(unnamed.body).toEqual({ success: false, code: "VALIDATION", error: "platform: only venue_a and venue_b name traders, not venue_d" })
  })
})
