// GET /v2/trades over seeded whale data: every filter holds on every returned row, every VALIDATION
// case of the spec's table, a cursor walk with no gap and no duplicate, and the daily trade allowance
// (headers moving by rows returned, a page cut to what remains, QUOTA_EXCEEDED when spent).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allowanceCounter } from "../../src/operations/allowance.js"
import { DAY, HOUR, NOW, startApiFixture, type Fixture } from "../support/api-fixture.js"
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
  const a = await get(`/v2/trades?limit=200&${query}`)
  expect(a.status, JSON.stringify(a.body)).toBe(200)
  return a.body.data as Array<any>
}
const walk = async (query: string) => {
  const out: Array<any> = []
  let cursor: string | null = null
  const token = f.token() // a cursor is bound to the account that got it
  do {
    const a = await get(`/v2/trades?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, token)
    expect(a.status, JSON.stringify(a.body)).toBe(200)
    out.push(...a.body.data)
    cursor = a.body.nextCursor
  } while (cursor !== null)
  return out
}
const iso = (ms: number) => new Date(ms).toISOString()
const expectValidation = async (query: string, mentions?: string) => {
  const a = await get(`/v2/trades?${query}`)
  expect(a.status, `${query}: ${JSON.stringify(a.body)}`).toBe(400)
  expect(a.body.code).toBe("VALIDATION")
  expect(a.body.success).toBe(false)
  if (mentions !== undefined) expect(a.body.error).toContain(mentions)
}

describe("default listing", () => {
  it("returns buys of the last 30 days, newest first, with every trade-row field", async () => {
    const data = await rows("")
    expect(data.length).toBeGreaterThan(50)
    for (const r of data) {
      expect(Object.keys(r).sort()).toEqual(
        ["action", "agreement", "contracts", "entry", "id", "market", "outcome", "price", "profit", "result", "time", "trader", "usd"],
      )
      expect(Object.keys(r.market).sort()).toEqual(["category", "contract", "kind", "ref", "title", "venue"])
      expect(r.action).toBe("buy")
      expect(Date.parse(r.time)).toBeGreaterThanOrEqual(NOW - 30 * DAY)
      expect(r.agreement.sameSide).toEqual({ trades: expect.any(Number), usd: expect.any(Number) })
      if (r.trader !== null) expect(Object.keys(r.trader).sort()).toEqual(["name", "profit", "ref", "settled", "winRate"])
      if (r.result === "open") expect(r.profit).toBeNull()
      else expect(r.profit).toEqual(expect.any(Number))
    }
    const times = data.map((r) => Date.parse(r.time))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
  })

  it("names no trader on venues that do not name traders", async () => {
    for (const r of await rows("venue=venue_d&venue=venue_b_us")) expect(r.trader).toBeNull()
  })
})

describe("filters hold on every returned row", () => {
  const cases: ReadonlyArray<readonly [string, (r: any) => boolean]> = [
    ["venue=venue_a", (r) => r.market.venue === "venue_a"],
    ["venue=venue_d&venue=venue_b_us", (r) => ["venue_d", "venue_b_us"].includes(r.market.venue)],
    ["category=politics", (r) => r.market.category === "politics"],
    ["kind=nba&kind=bitcoin", (r) => ["nba", "bitcoin"].includes(r.market.kind)],
    ["trader=venue_a:alice", (r) => r.trader?.ref === "venue_a:alice"],
    ["trader=venue_a:alice&trader=venue_a:bob", (r) => ["venue_a:alice", "venue_a:bob"].includes(r.trader?.ref)],
    ["market=venue_a:C1", (r) => r.market.ref === "venue_a:C1"],
    ["market=venue_a:event:E1", (r) => r.market.ref === "venue_a:event:E1"],
    ["market=venue_a:E1B", (r) => r.market.contract === "venue_a:E1B" && r.market.ref === "venue_a:event:E1"],
    ["market=venue_a:C1&outcome=lakers", (r) => r.market.ref === "venue_a:C1" && r.outcome === "Yes"],
    ["market=venue_a:C1&outcome=NO", (r) => r.outcome === "No"],
    ["action=sell", (r) => r.action === "sell"],
    ["action=all&venue=venue_a", (r) => r.market.venue === "venue_a"],
    ["entry=open&trader=venue_a:alice", (r) => r.entry === "open"],
    ["entry=add", (r) => r.entry === "add"],
    ["minUsd=50000", (r) => r.usd >= 50_000],
    ["maxUsd=20000", (r) => r.usd <= 20_000],
    ["minUsd=20000&maxUsd=30000", (r) => r.usd >= 20_000 && r.usd <= 30_000],
    ["priceMin=0.2&priceMax=0.4", (r) => r.price >= 0.2 && r.price <= 0.4],
    ["named=true", (r) => r.trader !== null],
    ["minWinRate=0.5", (r) => r.trader?.ref === "venue_a:alice" && r.market.kind === "nfl"],
    ["minSettled=12", (r) => ["venue_a:alice", "venue_a:bob"].includes(r.trader?.ref) && r.market.kind === "nfl"],
    ["result=win", (r) => r.result === "win" && r.profit > 0],
    ["result=loss", (r) => r.result === "loss" && r.profit < 0],
    ["result=open", (r) => r.result === "open" && r.profit === null],
    ["q=lakers%20TITLE", (r) => /lakers/i.test(r.market.title) && /title/i.test(r.market.title)],
    ["q=celtics", (r) => r.market.ref === "venue_a:C1"], // a label matches
    [`since=${iso(NOW - 2 * DAY)}`, (r) => Date.parse(r.time) >= NOW - 2 * DAY],
    [`until=${iso(NOW - 10 * DAY)}`, (r) => Date.parse(r.time) <= NOW - 10 * DAY],
    [`since=${encodeURIComponent("2026-01-15T14:00:00+02:00")}`, (r) => Date.parse(r.time) >= Date.UTC(2026, 0, 15, 12)],
    [`since=2026-01-15t12:00:00z`, (r) => Date.parse(r.time) >= Date.UTC(2026, 0, 15, 12)], // RFC 3339 allows lower case
    ["sort=size", (r) => Date.parse(r.time) >= NOW - DAY],
  ]
  for (const [query, holds] of cases) {
    it(query, async () => {
      const data = await rows(query)
      expect(data.length, "the seed has rows for this filter").toBeGreaterThan(0)
      for (const r of data) expect(holds(r), JSON.stringify(r)).toBe(true)
    })
  }

  it("minWinRate leaves out traders under 10 settled bets in the kind, and every unnamed trade", async () => {
    const data = await rows("minWinRate=0")
    expect(new Set(data.map((r) => `${r.trader?.ref} ${r.market.kind}`))).toEqual(new Set(["venue_a:alice nfl", "venue_a:bob nfl"]))
  })

  it("sort=size orders by dollars, biggest first; with a market it reads the full 30 days", async () => {
    const day = await rows("sort=size")
    const usd = day.map((r) => r.usd)
    expect([...usd].sort((a, b) => b - a)).toEqual(usd)
    const market = await rows("sort=size&market=venue_a:C2")
    expect(market.some((r) => Date.parse(r.time) < NOW - DAY)).toBe(true)
    expect(market.map((r) => r.usd)).toEqual([...market.map((r) => r.usd)].sort((a, b) => b - a))
  })

  it("a since older than 30 days reads as 30 days ago", async () => {
    const old = await walk(`limit=200&action=all&since=${iso(NOW - 90 * DAY)}`)
    const all = await walk("limit=200&action=all")
    expect(old.map((r) => r.id)).toEqual(all.map((r) => r.id))
  })
})

describe("cursor walk", () => {
  it("visits every matching row once, in order, as the table holds them", async () => {
    const walked = await walk("limit=7&action=all")
    const expected = await f.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: string }>`SELECT id FROM whale_trades WHERE time_ms >= ${NOW - 30 * DAY} ORDER BY time_ms DESC, id ASC`))
    expect(walked.map((r) => r.id)).toEqual(expected.map((r) => r.id))
    expect(new Set(walked.map((r) => r.id)).size).toBe(walked.length)
  })

  it("walks size order with ties broken by id, no gap and no duplicate", async () => {
    const walked = await walk("limit=3&sort=size&market=venue_a:C1&action=all")
    const whole = await rows("sort=size&market=venue_a:C1&action=all")
    expect(walked.map((r) => r.id)).toEqual(whole.map((r) => r.id))
  })
})

describe("VALIDATION", () => {
  const cases: ReadonlyArray<readonly [string, string?]> = [
    ["outcome=Yes", "outcome"],
    ["outcome=Yes&market=venue_a:C1&market=venue_a:C2", "outcome"],
    ["bogus=1", "bogus"],
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["venue=venue_z", "venue"],
    ["category=sport"],
    ["kind=football"],
    ["trader=venue_d:someone", "trader"],
    ["action=hold"],
    ["entry=flip"],
    ["minUsd=-1", "minUsd"],
    ["maxUsd=abc", "maxUsd"],
    ["minUsd=10&maxUsd=5", "minUsd"],
    ["priceMin=1.5", "priceMin"],
    ["priceMax=-0.1", "priceMax"],
    ["priceMin=0.6&priceMax=0.5", "priceMin"],
    ["named=yes", "named"],
    ["minWinRate=1.2", "minWinRate"],
    ["minSettled=0", "minSettled"],
    ["minSettled=100001", "minSettled"],
    ["minSettled=2.5", "minSettled"],
    ["result=void"],
    ["q=one%20two%20three%20four%20five%20six", "q"],
    [`q=${"x".repeat(201)}`, "q"],
    ["since=2026-01-15T12:00:00", "since"],
    ["since=yesterday", "since"],
    ["until=2026-01-15", "until"],
    // Dates not on the calendar are refused, not rolled over to the next month.
    ["since=2026-11-31T00:00:00Z", "since"],
    ["until=2026-02-29T00:00:00Z", "until"],
    ["since=2026-01-15T24:00:00Z", "since"],
    ["since=2026-01-15T12:00:00%2B24:00", "since"],
    [`since=${iso(NOW - DAY)}&until=${iso(NOW - 2 * DAY)}`, "since"],
    ["sort=biggest"],
    [`sort=size&since=${iso(NOW - 3 * DAY)}`, "sort=size"],
    ["cursor=not-a-cursor", "cursor"],
    [Array.from({ length: 51 }, () => "venue=venue_a").join("&"), "venue"],
  ]
  for (const [query, mentions] of cases) it(query.slice(0, 80), () => expectValidation(query, mentions))

  it("a bad trader ref's sentence is the parameter's own, not Schema's pattern, list and transformation forms", async () => {
    const answer = await get("/v2/trades?trader=venue_d:someone")
    expect(answer.body.error).toBe("trader must be a trader ref `<venue>:<handle>` on venue_a or venue_b")
    expect(answer.body.error).not.toMatch(/ReadonlyArray|<->/)
  })

  it("sort=size with an old since is fine when trader or market is set", async () => {
    expect((await get(`/v2/trades?sort=size&since=${iso(NOW - 3 * DAY)}&trader=venue_a:alice`)).status).toBe(200)
    expect((await get(`/v2/trades?sort=size&since=${iso(NOW - 3 * DAY)}&market=venue_a:C1`)).status).toBe(200)
  })

  it("a cursor from another listing, or with other filters, is VALIDATION", async () => {
    const token = f.token()
    const moves = await get("/v2/moves?limit=1", token)
    await expectValidation(`cursor=${encodeURIComponent(moves.body.nextCursor)}`, "cursor")
    const trades = await get("/v2/trades?limit=1&venue=venue_a", token)
    await expectValidation(`venue=venue_d&cursor=${encodeURIComponent(trades.body.nextCursor)}`, "cursor")
  })

  it("a cursor binds a repeatable filter's values as a set: their order and repeats do not matter", async () => {
    const token = f.token()
    const first = await get("/v2/trades?limit=1&action=all&venue=venue_a&venue=venue_b", token)
    expect(first.body.nextCursor).not.toBeNull()
    const cursor = encodeURIComponent(first.body.nextCursor)
    const next = await get(`/v2/trades?limit=1&action=all&venue=venue_a&venue=venue_b&cursor=${cursor}`, token)
    for (const query of ["venue=venue_b&venue=venue_a", "venue=venue_b&venue=venue_a&venue=venue_b"]) {
      const same = await get(`/v2/trades?limit=1&action=all&${query}&cursor=${cursor}`, token)
      expect(same.status, query).toBe(200)
      expect(same.body.data).toEqual(next.body.data)
    }
    await expectValidation(`limit=1&action=all&venue=venue_b&cursor=${cursor}`, "cursor")
  })
})

describe("daily trade allowance", () => {
  it("moves x-trades-remaining by the rows returned, with limit and reset headers", async () => {
    const token = "r0"
    const first = await get("/v2/trades?limit=5", token)
    expect(first.headers.get("x-trades-limit")).toBe("50000")
    expect(first.headers.get("x-trades-reset")).toBe(String(12 * 3600)) // NOW is noon UTC
    const before = Number(first.headers.get("x-trades-remaining"))
    const second = await get("/v2/trades?limit=7", token)
    expect(second.body.data).toHaveLength(7)
    expect(Number(second.headers.get("x-trades-remaining"))).toBe(before - 7)
    const empty = await get("/v2/trades?market=venue_d:C7", token) // nothing matches: nothing charged
    expect(empty.body.data).toHaveLength(0)
    expect(Number(empty.headers.get("x-trades-remaining"))).toBe(before - 7)
  })

  it("cuts a page to what remains, then refuses with QUOTA_EXCEEDED until midnight UTC", async () => {
    const token = "r1"
    const principal = f.principals[token]!
    await Effect.runPromise(f.counters.incrBy(allowanceCounter(principal.keyId, NOW), 50_000 - 3, 2 * 86_400))
    const cut = await get("/v2/trades?limit=10", token)
    expect(cut.status).toBe(200)
    expect(cut.body.data).toHaveLength(3)
    expect(cut.body.nextCursor).not.toBeNull()
    expect(cut.headers.get("x-trades-remaining")).toBe("0")
    const refused = await get("/v2/trades?limit=10", token)
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe("QUOTA_EXCEEDED")
    expect(refused.body.error).toMatch(/midnight UTC/)
    expect(refused.headers.get("retry-after")).toBe(String(12 * 3600))
    expect(refused.headers.get("x-trades-remaining")).toBe("0")
    // The cursor of the cut page stays valid, but the key has nothing left today.
    const rest = await get(`/v2/trades?limit=2&cursor=${encodeURIComponent(cut.body.nextCursor)}`, token)
    expect(rest.status).toBe(429)
  })

  it("requests at once each get their rows: one's unused page is never another's QUOTA_EXCEEDED", async () => {
    const token = "r3"
    const principal = f.principals[token]!
    await Effect.runPromise(f.counters.incrBy(allowanceCounter(principal.keyId, NOW), 50_000 - 100, 2 * 86_400))
    const few = (await get("/v2/trades?limit=200&minUsd=150000", "r4")).body.data.length // what the narrow page holds (another key)
    expect(few).toBeLessThan(50)
    const [narrow, plain] = await Promise.all([get("/v2/trades?limit=200&minUsd=150000", token), get("/v2/trades?limit=50", token)])
    expect([narrow.status, plain.status]).toEqual([200, 200])
    expect(narrow.body.data).toHaveLength(few)
    expect(plain.body.data).toHaveLength(50)
    const after = await get("/v2/trades?limit=1", token)
    expect(after.headers.get("x-trades-remaining")).toBe(String(100 - few - 50 - 1))
  })

  it("a new UTC day starts a fresh allowance", async () => {
    const token = "r2"
    const principal = f.principals[token]!
    await Effect.runPromise(f.counters.incrBy(allowanceCounter(principal.keyId, NOW), 50_000, 2 * 86_400))
    expect((await get("/v2/trades?limit=1", token)).status).toBe(429)
    f.clock.set(NOW + 12 * HOUR + 1_000)
    try {
      const next = await get("/v2/trades?limit=1", token)
      expect(next.status).toBe(200)
      expect(next.headers.get("x-trades-remaining")).toBe("49999")
    } finally {
      f.clock.set(NOW)
    }
  })
})
