// GET /v2/markets and GET /v2/markets/{ref} over seeded markets: list order, statuses, filters and
// VALIDATION cases; the detail with each include (book, whales, call, history, trades), include
// charging in x-ratelimit-remaining, trades charged to the allowance, NOT_FOUND.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DAY, NOW, startApiFixture, type Fixture } from "../support/api-fixture.js"
import { call } from "../support/http-client.js"
import { PriceBarStore } from "../../src/store/price-bars.js"

let f: Fixture
beforeAll(async () => {
  f = await startApiFixture()
})
afterAll(async () => {
  await f?.close()
})

const get = (path: string, token = f.token()) => call(f.url, path, { token })
const list = async (query: string) => {
  const a = await get(`/v2/markets?limit=200&${query}`)
  expect(a.status, JSON.stringify(a.body)).toBe(200)
  return a.body.data as Array<any>
}
const enc = encodeURIComponent

describe("list", () => {
  it("lists open markets once each (an event as one row), with every list-row field", async () => {
    const data = await list("")
    const refs = data.map((r) => r.ref)
    expect(new Set(refs).size).toBe(refs.length)
    expect(refs).toContain("venue_a:event:E1")
    expect(refs).not.toContain("venue_a:E1A")
    for (const r of data) {
      expect(Object.keys(r).sort()).toEqual([
        "category", "contract", "kind", "move1h", "outcomeCount", "outcomes", "ref", "result", "settledAt", "status",
        "title", "venue", "volume1h", "whaleMoney",
      ])
      expect(r.status).toBe("open")
      expect(r.outcomes).toHaveLength(2)
    }
    const event = data.find((r) => r.ref === "venue_a:event:E1")
    expect(event.outcomeCount).toBe(3)
    expect(event.title).toBe("Who wins the election?")
  })

  it("orders by whale money of the last hour, markets with none after", async () => {
    const data = await list("")
    const money = data.map((r) => r.whaleMoney)
    const firstNull = money.indexOf(null)
    const withMoney = money.slice(0, firstNull < 0 ? money.length : firstNull)
    expect([...withMoney].sort((a, b) => b - a)).toEqual(withMoney)
    if (firstNull >= 0) expect(money.slice(firstNull).every((m) => m === null)).toBe(true)
    expect(data.at(-1).ref).toBe("venue_d:C7") // never traded: last
  })

  it("sort=volume and sort=move order by their reading; newest by listing", async () => {
    const volume = (await list("sort=volume")).map((r) => r.volume1h).filter((v) => v !== null && v > 0)
    expect([...volume].sort((a, b) => b - a)).toEqual(volume)
    const move = (await list("sort=move")).map((r) => r.move1h).filter((m) => m !== null).map(Math.abs)
    expect([...move].sort((a, b) => b - a)).toEqual(move)
    expect((await list("sort=newest"))[0].ref).toBe("venue_a:C5")
  })

  it("status=settled: settled in 30 days with whale trades, newest settled first, no outcomes", async () => {
    const data = await list("status=settled")
    expect(data.length).toBeGreaterThan(5)
    for (const r of data) {
      expect(["settled", "void"]).toContain(r.status)
      expect(r.outcomes).toEqual([])
      expect(Date.parse(r.settledAt)).toBeGreaterThanOrEqual(NOW - 30 * DAY)
    }
    const at = data.map((r) => Date.parse(r.settledAt))
    expect([...at].sort((a, b) => b - a)).toEqual(at)
    expect(data.find((r) => r.ref === "venue_a:S1").result).toBe("No")
  })

  it("status=all: open first, then settled", async () => {
    const data = await list("status=all")
    const firstSettled = data.findIndex((r) => r.status !== "open")
    expect(firstSettled).toBeGreaterThan(0)
    expect(data.slice(firstSettled).every((r) => r.status !== "open")).toBe(true)
  })

  const cases: ReadonlyArray<readonly [string, (r: any) => boolean]> = [
    ["venue=venue_d", (r) => r.venue === "venue_d"],
    ["category=politics", (r) => r.category === "politics"],
    ["kind=bitcoin&kind=nba", (r) => ["bitcoin", "nba"].includes(r.kind)],
    ["series=true", (r) => r.ref === "venue_a:C5"],
    ["priceMin=0.7", (r) => Math.max(...r.outcomes.map((o: any) => o.price)) >= 0.7],
    ["priceMax=0.6", (r) => Math.max(...r.outcomes.map((o: any) => o.price)) <= 0.6],
    ["q=LAKERS", (r) => r.ref === "venue_a:C1"],
    ["q=celtics", (r) => r.ref === "venue_a:C1"], // outcome label
    ["q=carol", (r) => r.ref === "venue_a:event:E1"], // a contract of the event
    ["status=settled&q=nfl%20game", (r) => /nfl game/i.test(r.title) && r.status === "settled"],
    ["status=settled&sort=newest&kind=nfl", (r) => r.kind === "nfl"],
  ]
  for (const [query, holds] of cases) {
    it(query, async () => {
      const data = await list(query)
      expect(data.length, "the seed has rows for this filter").toBeGreaterThan(0)
      for (const r of data) expect(holds(r), JSON.stringify(r)).toBe(true)
    })
  }

  it("walks by cursor with no gap and no duplicate", async () => {
    const token = f.token()
    const refs: Array<string> = []
    let cursor: string | null = null
    do {
      const a = await get(`/v2/markets?status=all&limit=2${cursor === null ? "" : `&cursor=${enc(cursor)}`}`, token)
      expect(a.status).toBe(200)
      refs.push(...a.body.data.map((r: any) => r.ref))
      cursor = a.body.nextCursor
    } while (cursor !== null)
    expect(refs).toEqual((await list("status=all")).map((r) => r.ref))
  })

  const invalid = [
    "status=closed", "status=settled&priceMin=0.2", "status=all&priceMax=0.9", "status=settled&sort=volume",
    "status=settled&sort=whale_money", "sort=price", "priceMin=1.2", "priceMin=0.8&priceMax=0.2", "series=maybe",
    `q=${"z".repeat(201)}`, "trader=venue_a:alice", "outcome=Yes", "bogus=1", "limit=0", "cursor=x",
  ]
  for (const query of invalid) {
    it(`VALIDATION: ${query.slice(0, 50)}`, async () => {
      const a = await get(`/v2/markets?${query}`)
      expect(a.status, JSON.stringify(a.body)).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
    })
  }
})

describe("detail", () => {
  it("a contract: status, rule, both sides with price, bid and ask; no include parts", async () => {
    const a = await get(`/v2/markets/${enc("venue_a:C1")}`)
    expect(a.status).toBe(200)
    const d = a.body.data
    expect(d).toMatchObject({ ref: "venue_a:C1", contract: "venue_a:C1", status: "open", result: null, otherVenues: [] })
    expect(d.outcomes.map((o: any) => [o.name, o.label])).toEqual([["Yes", "Lakers"], ["No", "Celtics"]])
    expect(d.outcomes[0]).toMatchObject({ ref: "venue_a:C1", bid: 0.5, ask: 0.51 })
    for (const part of ["book", "whales", "call", "history", "trades"]) expect(d).not.toHaveProperty(part)
  })

  it("an event: every contract's sides; book and history null", async () => {
    const a = await get(`/v2/markets/${enc("venue_a:event:E1")}?include=book&include=history`)
    expect(a.status).toBe(200)
    expect(a.body.data.outcomes).toHaveLength(6)
    expect(a.body.data.contract).toBeNull()
    expect(a.body.data.book).toBeNull()
    expect(a.body.data.history).toBeNull()
  })

  it("a settled contract reads settled with its result", async () => {
    const d = (await get(`/v2/markets/${enc("venue_a:N0")}`)).body.data
    expect(d).toMatchObject({ status: "settled", result: "Yes", outcomes: expect.any(Array) })
    expect(d.settledAt).not.toBeNull()
  })

  it("each include is charged as one more request", async () => {
    const token = "r0"
    const plain = await get(`/v2/markets/${enc("venue_a:C1")}`, token)
    const before = Number(plain.headers.get("x-ratelimit-remaining"))
    const a = await get(`/v2/markets/${enc("venue_a:C1")}?include=book,whales&include=call`, token)
    expect(a.status).toBe(200)
    expect(Number(a.headers.get("x-ratelimit-remaining"))).toBe(before - 1 - 3)
  })

  it("includes that would pass the per-minute limit are QUOTA_EXCEEDED", async () => {
    const token = "r1"
    for (let i = 0; i < 117; i++) await get("/v2/markets?limit=1", token)
    const a = await get(`/v2/markets/${enc("venue_a:C1")}?include=book,whales,call`, token)
    expect(a.status).toBe(429)
    expect(a.body.code).toBe("QUOTA_EXCEEDED")
  })

  it("book: per side, best first, at most 20 levels", async () => {
    const book = (await get(`/v2/markets/${enc("venue_a:C1")}?include=book`)).body.data.book
    expect(book.map((s: any) => s.outcome)).toEqual(["Yes", "No"])
    const yes = book[0]
    expect(yes.bids).toHaveLength(20)
    expect(yes.asks).toHaveLength(20)
    expect(yes.bids.map((l: any) => l.price)).toEqual([...yes.bids.map((l: any) => l.price)].sort((a: number, b: number) => b - a))
    expect(yes.asks.map((l: any) => l.price)).toEqual([...yes.asks.map((l: any) => l.price)].sort((a: number, b: number) => a - b))
  })

  it("whales: sides and named traders, biggest buyers first", async () => {
    const w = (await get(`/v2/markets/${enc("venue_a:C1")}?include=whales`)).body.data.whales
    expect(w.sides.length).toBeGreaterThan(0)
    expect(w.traders.length).toBeGreaterThan(0)
    const bought = w.traders.map((t: any) => t.boughtUsd)
    expect([...bought].sort((a: number, b: number) => b - a)).toEqual(bought)
    for (const t of w.traders) {
      expect(["holding", "reduced", "exited"]).toContain(t.status)
      expect(t.ref).toMatch(/^venue_a:/)
    }
  })

  it("call: an object or null", async () => {
    const a = await get(`/v2/markets/${enc("venue_a:C1")}?include=call`)
    expect(a.status).toBe(200)
    expect(a.body.data).toHaveProperty("call")
  })

  it("history: prices oldest first within the range; series windows newest first", async () => {
    const h = (await get(`/v2/markets/${enc("venue_a:C5")}?include=history&range=1d`)).body.data.history
    expect(h.range).toBe("1d")
    const times = h.prices.map((p: any) => Date.parse(p.time))
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    for (const t of times) expect(t).toBeGreaterThanOrEqual(NOW - DAY)
    expect(h.series.windows.map((w: any) => w.result)).toEqual(["yes", "no", "yes"])
    expect(h.series).toMatchObject({ yesWon: 2, noWon: 1 })
    const closes = h.series.windows.map((w: any) => Date.parse(w.closesAt))
    expect([...closes].sort((a, b) => b - a)).toEqual(closes)
    const hour = (await get(`/v2/markets/${enc("venue_a:C5")}?include=history&range=1h`)).body.data.history
    for (const p of hour.prices) expect(Date.parse(p.time)).toBeGreaterThanOrEqual(NOW - 3_600_000 - 60_000)
    expect((await get(`/v2/markets/${enc("venue_a:C1")}?include=history`)).body.data.history.series).toBeNull()
  })

  it("history: stored bars (a restart's, a week's) under the live actor's; 7d in 10-minute points", async () => {
    const ref = "venue_a:C2"
    const day = (await get(`/v2/markets/${enc(ref)}?include=history&range=1d`)).body.data.history.prices as Array<any>
    expect(day.length).toBeGreaterThan(0)
    const liveMinute = Date.parse(day[day.length - 1].time)
    const livePrice = day[day.length - 1].price
    const bar = (start: number, close: number, usd: number) => ({ start, open: close, high: close, low: close, close, usd, contracts: usd / close, trades: 1 })
    const old = NOW - 3 * DAY - ((NOW - 3 * DAY) % 600_000) // a 10-minute boundary three days back
    await f.run(PriceBarStore.upsert([
      { ref, bar: bar(old, 0.31, 5) }, { ref, bar: bar(old + 240_000, 0.33, 7) }, { ref, bar: bar(old + 600_000, 0.35, 1) },
      { ref, bar: bar(liveMinute, 0.999, 1) }, // the live actor's minute: its bar wins
    ]))
    const week = (await get(`/v2/markets/${enc(ref)}?include=history&range=7d`)).body.data.history.prices as Array<any>
    const times = week.map((p) => Date.parse(p.time))
    expect(times.every((t) => t % 600_000 === 0)).toBe(true)
    expect([...new Set(times)].sort((a, b) => a - b)).toEqual(times)
    expect(week.filter((p) => Date.parse(p.time) >= old && Date.parse(p.time) <= old + 600_000)).toEqual([
      { time: new Date(old).toISOString(), price: 0.33, volume: 12 },
      { time: new Date(old + 600_000).toISOString(), price: 0.35, volume: 1 },
    ])
    const again = (await get(`/v2/markets/${enc(ref)}?include=history&range=1d`)).body.data.history.prices as Array<any>
    expect(again).toEqual(day) // nothing older than the range, and the live bar over the stored one
    expect(again.at(-1).price).toBe(livePrice)
  })

  it("trades: the newest 40 whale buys, charged to the trade allowance", async () => {
    const token = "r2"
    const a = await get(`/v2/markets/${enc("venue_a:event:E1")}?include=trades`, token)
    const trades = a.body.data.trades
    expect(trades.length).toBeGreaterThan(0)
    expect(trades.length).toBeLessThanOrEqual(40)
    for (const t of trades) {
      expect(t.action).toBe("buy")
      expect(t.market.ref).toBe("venue_a:event:E1")
    }
    expect(Number(a.headers.get("x-trades-remaining"))).toBe(50_000 - trades.length)
  })

  it("unknown ref is NOT_FOUND; bad include or range is VALIDATION", async () => {
    const missing = await get(`/v2/markets/${enc("venue_a:nope")}`)
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("NOT_FOUND")
    expect(missing.body.error).toBe("No market has the ref venue_a:nope")
    // A long ref is quoted cut to 80 characters, with its length.
    const long = `venue_a:${"x".repeat(292)}`
    const cut = await get(`/v2/markets/${enc(long)}`)
    expect(cut.status).toBe(404)
    expect(cut.body.error).toBe(`No market has the ref ${long.slice(0, 80)}… (300 characters)`)
    for (const query of ["include=orders", "include=book,,nope", "range=2d", "bogus=1"]) {
      const a = await get(`/v2/markets/${enc("venue_a:C1")}?${query}`)
      expect(a.status, query).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
    }
  })
})

describe("GET /v1/markets/{marketRef} (tool get_market's v1 path)", () => {
  it("answers the v2 detail in the v1 envelope, with the same includes and errors; /v1/markets/search is still the search", async () => {
    const token = f.token()
    const v2 = await get(`/v2/markets/${enc("venue_a:event:E1")}?include=book,whales`, token)
    const v1 = await get(`/v1/markets/${enc("venue_a:event:E1")}?include=book,whales`, token)
    expect(v2.status).toBe(200)
    expect(v1.status).toBe(200)
    expect(v1.body).toEqual({ success: true, data: v2.body.data })
    const missing = await get(`/v1/markets/${enc("venue_a:NOPE")}`)
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ success: false, code: "NOT_FOUND" })
    expect((await get(`/v1/markets/${enc("venue_a:event:E1")}?bogus=1`)).body.code).toBe("VALIDATION")
    const search = await get("/v1/markets/search?q=a")
    expect(search.status).toBe(200)
    expect(search.body.success).toBe(true)
  })
})
