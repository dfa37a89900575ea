// POST/GET/PATCH/DELETE /v2/bots end to end through the HTTP door: every VALIDATION / NOT_FOUND /
// SCOPE_REQUIRED case of the per-operation tables, limits at their edges, includes charged, paging.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aListing, aSettlement, aSnapshot } from "../actors/market-builders.js"
import { aBookedMarket, aMove, MIN, T0 } from "./builders.js"
import { startBotsServer, type BotsServer } from "./server.js"

const WALLET = "0xa0f21e6d351baa9185716b5c00c2925ed9621848"
/** A market title of exactly 60 characters (the bot-name bound), one of them past the BMP. */
const TITLE_60 = `Will 🐋 ${"w".repeat(52)}?`
let s: BotsServer

beforeAll(async () => {
  s = await startBotsServer()
  await s.known("venue_a:alice", "Alice")
  await s.known("venue_b:0xbob", null)
  await s.known(`venue_b:${WALLET}`, null)
  s.feed(...aBookedMarket("C1", T0))
  s.feed(...aBookedMarket("C2", T0, { series: "btc-hourly" }))
  s.feed({ ...aListing({ contract: "E1a", event: "E1", t: T0 }) }, { ...aListing({ contract: "E1b", event: "E1", t: T0 }) })
  s.feed(...aBookedMarket("T60", T0, { title: TITLE_60 }), ...aBookedMarket("T61", T0, { title: `${TITLE_60}?` }))
  await s.known("venue_a:verbose", `${"Ω".repeat(30)} ${"x".repeat(39)}`)
  await new Promise((r) => setTimeout(r, 100))
})
afterAll(() => s.close())

const post = (body: unknown, token: "write" | "read" | "other" | "fresh" = "write") => s.as(token, "/v2/bots", { method: "POST", body })
const expectCode = (answer: { status: number; body: any }, status: number, code: string) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  expect(answer.body).toMatchObject({ success: false, code })
}
const path = (id: string) => `/v2/bots/${encodeURIComponent(id)}`

describe("POST /v2/bots", () => {
  it("creates a trader bot named after its trader: 201 with the full bot", async () => {
    const r = await post({ trigger: { trader: "venue_a:alice" }, mirrorExits: true })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({
      name: "Alice", kind: "trader", mode: "paper", status: "running", venues: ["venue_a"], profit: 0, winRate: null, lastTradeAt: null,
      settings: { trader: { ref: "venue_a:alice", name: "Alice" }, sizing: { usd: 100 }, mirrorExits: true, alerts: true },
      record: { trades: 0, settled: 0, wins: 0, losses: 0, open: 0, winRate: null, realized: 0, unrealized: 0, profit: 0, staked: 0, return: null },
      curve: [],
    })
    expect(r.body.data.id).toMatch(/^trader:/)
    expect(r.body.data.trades).toBeUndefined()
    expect(typeof r.body.data.summary).toBe("string")
    // A trader without a public name takes the handle; a wallet, shortened (never a whole address as a name).
    const b = await post({ trigger: { trader: "venue_b:0xbob" } })
    expect(b.body.data).toMatchObject({ name: "0xbob", settings: { trader: { name: null } } })
    const wallet = await post({ trigger: { trader: `venue_b:${WALLET}` } })
    expect(wallet.body.data).toMatchObject({ name: "0xa0f2…1848", settings: { trader: { ref: `venue_b:${WALLET}`, name: null } } })
  })

  it("refuses a second bot on the same trader, an unknown trader, a venue that names no traders", async () => {
    expectCode(await post({ trigger: { trader: "venue_a:alice" } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { trader: "venue_a:nobody" } }), 404, "NOT_FOUND")
    expectCode(await post({ trigger: { trader: "venue_d:someone" } }), 400, "VALIDATION")
    // Per account: another account may copy the same trader.
    const others = await post({ trigger: { trader: "venue_a:alice" } }, "other")
    expect(others.status).toBe(201)
    // Once that bot has ended, the account may copy the trader again.
    expectCode(await post({ trigger: { trader: "venue_a:alice" } }, "other"), 400, "VALIDATION")
    expect((await s.as("other", `/v2/bots/${encodeURIComponent(others.body.data.id)}`, { method: "DELETE" })).status).toBe(200)
    expect((await post({ trigger: { trader: "venue_a:alice" } }, "other")).status).toBe(201)
  })

  it("refuses fields of the wrong kind, unknown fields, bad sizing and triggers", async () => {
    expectCode(await post({ trigger: { trader: "venue_a:alice" }, name: "x" }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: {} }, name: "x" }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, mirrorExits: true }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: {} }, mirrorExits: true }), 400, "VALIDATION")
    expectCode(await post({ trigger: { trader: "venue_a:alice" }, series: true }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, series: true }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, colour: "red" }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: { colour: 1 } } }), 400, "VALIDATION")
    // A list field given one value: the sentence says a list was expected, not Schema's ReadonlyArray<…>.
    const single = await post({ trigger: { signal: { venue: "venue_a" } } })
    expectCode(single, 400, "VALIDATION")
    expect(single.body.error).toMatch(/^Invalid value for `trigger\.signal\.venue`: Expected a list of "venue_a" \| .*, actual "venue_a"$/)
    // A list of transformed items: the item's decoded-from side, not Schema's "(… <-> …)".
    const traders = await post({ trigger: { signal: { traders: "venue_a:x" } } })
    expectCode(traders, 400, "VALIDATION")
    expect(traders.body.error).toMatch(/^Invalid value for `trigger\.signal\.traders`: Expected a list of a string matching the pattern .*, actual "venue_a:x"$/)
    expect(traders.body.error).not.toContain("<->")
    expectCode(await post({ trigger: { signal: {}, trader: "venue_a:alice" } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, sizing: { usd: 0 } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, sizing: { percent: 5 } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, name: "" }), 400, "VALIDATION")
    expectCode(await post({ trigger: { signal: {} }, name: "x".repeat(61) }), 400, "VALIDATION")
    const blank = await post({ trigger: { signal: {} }, name: " \t " })
    expectCode(blank, 400, "VALIDATION")
    expect(blank.body.error).toBe("name must hold something other than spaces")
  })

  it("market bots: one contract, a side of it, { usd } sizing, a known market", async () => {
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: {} }, sizing: { percent: 5, maxUsd: 10 } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:event:E1", outcome: "yes", rule: {} } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "maybe", rule: {} } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:NOPE", outcome: "yes", rule: {} } }), 404, "NOT_FOUND")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.3, buyAbove: 0.6 } } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { maxHoldHours: 721 } } }), 400, "VALIDATION")
    expectCode(await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: {} }, series: true }), 400, "VALIDATION")
    // A market that has ended is no market to trade.
    s.feed(aListing({ contract: "S9", t: T0 }), aSettlement({ contract: "S9", t: T0 + 1, winner: "yes" }))
    const ended = await post({ trigger: { market: "venue_a:S9", outcome: "yes", rule: {} } })
    expectCode(ended, 400, "VALIDATION")
    expect(ended.body.error).toContain("trigger.market")
    // A contract of an event: the market object names the event, as a paper order's does.
    const ofEvent = await post({ trigger: { market: "venue_a:E1a", outcome: "yes", rule: { buyBelow: 0.01 } } }, "other")
    expect(ofEvent.status).toBe(201)
    expect(ofEvent.body.data.settings.market).toMatchObject({ ref: "venue_a:event:E1", contract: "venue_a:E1a" })
  })

  it("reads trigger.outcome as a paper order reads outcome: trimmed, case-insensitive, the side's name or label, or yes or no", async () => {
    const spaced = await post({ trigger: { market: "venue_a:E1a", outcome: " yes ", rule: { buyBelow: 0.01 } } }, "other")
    expect(spaced.status, JSON.stringify(spaced.body)).toBe(201)
    expect(spaced.body.data.settings.market.outcome).toBe("Yes")
  })

  it("a market bot on venue_b's named outcomes: trigger.outcome by name (any case) or no, settings say Yes or No, and its buy fills that outcome's book", async () => {
    const venue = "venue_b" as const
    s.feed(
      aListing({ venue, contract: "NB1", t: T0, title: "Lakers vs. Celtics", outcomes: ["tokL", "tokC"], names: ["Lakers", "Celtics"] }),
      aSnapshot({ venue, contract: "NB1", t: T0, outcome: "tokL", bids: [[0.58, 10_000]], asks: [[0.6, 10_000]] }),
      aSnapshot({ venue, contract: "NB1", t: T0, outcome: "tokC", bids: [[0.38, 10_000]], asks: [[0.4, 10_000]] }),
    )
    await new Promise((r) => setTimeout(r, 50))
    expectCode(await post({ trigger: { market: "venue_b:NB1", outcome: "Knicks", rule: {} } }, "fresh"), 400, "VALIDATION")
    const celtics = await post({ trigger: { market: "venue_b:NB1", outcome: "CELTICS", rule: {} }, sizing: { usd: 40 } }, "fresh")
    expect(celtics.status, JSON.stringify(celtics.body)).toBe(201)
    expect(celtics.body.data).toMatchObject({
      kind: "market", name: "Lakers vs. Celtics", venues: ["venue_b"], record: { trades: 1, open: 1 },
      settings: { market: { ref: "venue_b:NB1", outcome: "No" } },
    })
    const trade = (await s.as("fresh", `${path(celtics.body.data.id)}?include=trades`)).body.data.trades.data[0]
    // Walked on Celtics' asks (0.40), not Lakers' (0.60): 40 USD buys about 100 contracts, before the fee.
    expect(trade).toMatchObject({ outcome: "Celtics", status: "open" })
    expect(trade.entryPrice).toBeGreaterThanOrEqual(0.4)
    expect(trade.entryPrice).toBeLessThan(0.45)
    const no = await post({ trigger: { market: "venue_b:NB1", outcome: "no", rule: { buyBelow: 0.01 } } }, "fresh")
    expect(no.body.data.settings.market.outcome).toBe("No")
    const lakers = await post({ trigger: { market: "venue_b:NB1", outcome: " lakers ", rule: { buyBelow: 0.01 } } }, "fresh")
    expect(lakers.body.data.settings.market.outcome).toBe("Yes")
  })

  it("a market bot with no buy trigger buys at once; its trade shows with include=trades", async () => {
    const r = await post({ trigger: { market: "venue_a:C1", outcome: "No", rule: { takeProfit: 0.9 } }, sizing: { usd: 50 } }, "fresh")
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ kind: "market", name: "Will C1 happen?", record: { trades: 1, open: 1 }, settings: {
      market: { ref: "venue_a:C1", contract: "venue_a:C1", outcome: "No", series: false }, rule: { takeProfit: 0.9, repeat: false }, sizing: { usd: 50 },
    } })
    expect(r.body.data.record.staked).toBeGreaterThan(49)
    const got = await s.as("fresh", `${path(r.body.data.id)}?include=trades,activity`)
    expect(got.body.data.activity).toBeNull()
    expect(got.body.data.trades.data).toHaveLength(1)
    expect(got.body.data.trades.data[0]).toMatchObject({
      market: { ref: "venue_a:C1", contract: "venue_a:C1", category: null, kind: null }, outcome: "No", status: "open", result: null, closedAt: null,
    })
    const series = await post({ trigger: { market: "venue_a:C2", outcome: "yes", rule: { buyBelow: 0.1 } }, series: true }, "fresh")
    expect(series.body.data).toMatchObject({ name: "btc-hourly", settings: { market: { series: true } }, record: { trades: 0 } })
  })

  it("holds a name taken from a market or a trader to the bot-name bound (1 to 60 characters): 60 kept, 61 cut to 59 and …", async () => {
    expect([...TITLE_60]).toHaveLength(60)
    const at = await post({ trigger: { market: "venue_a:T60", outcome: "yes", rule: { buyBelow: 0.01 } } }, "fresh")
    expect(at.status, JSON.stringify(at.body)).toBe(201)
    expect(at.body.data.name).toBe(TITLE_60)
    const past = await post({ trigger: { market: "venue_a:T61", outcome: "yes", rule: { buyBelow: 0.01 } } }, "fresh")
    expect(past.body.data.name).toBe(`${[...TITLE_60].slice(0, 59).join("")}…`)
    expect(past.body.data.settings.market.title).toBe(`${TITLE_60}?`) // the market's own title stays whole
    const trader = await post({ trigger: { trader: "venue_a:verbose" } }, "fresh")
    expect(trader.status, JSON.stringify(trader.body)).toBe(201)
    expect([...trader.body.data.name]).toHaveLength(60)
    expect(trader.body.data.name).toBe(`${"Ω".repeat(30)} ${"x".repeat(28)}…`)
    expect(trader.body.data.settings.trader.name).toBe(`${"Ω".repeat(30)} ${"x".repeat(39)}`)
    // The list item carries the same name.
    const listed = (await s.as("fresh", "/v2/bots?kind=market")).body.data.map((b: any) => b.name)
    expect(listed).toContain(`${[...TITLE_60].slice(0, 59).join("")}…`)
  })

  it("allows 20 signal bots per account and refuses the 21st; an ended one frees its place", async () => {
    const made: Array<string> = []
    for (let i = 0; i < 20; i++) {
      const r = await post({ trigger: { signal: { category: ["crypto"], minUsd: 25_000 } } }, "other")
      expect(r.status, JSON.stringify(r.body)).toBe(201)
      made.push(r.body.data.id)
    }
    expectCode(await post({ trigger: { signal: {} } }, "other"), 400, "VALIDATION")
    const ended = await s.as("other", path(made[0]!), { method: "DELETE" })
    expect(ended.body.data.status).toBe("ended")
    expect((await post({ trigger: { signal: {} } }, "other")).status).toBe(201)
  })

  it("allows 20 market bots per account and refuses the 21st; an ended one frees its place", async () => {
    const live = async () => ((await s.as("fresh", "/v2/bots?kind=market&status=running&status=paused&limit=100")).body.data as Array<{ id: string }>).length
    const made: Array<string> = []
    for (let n = await live(); n < 20; n++) {
      const r = await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.01 } } }, "fresh")
      expect(r.status, JSON.stringify(r.body)).toBe(201)
      made.push(r.body.data.id)
    }
    expect(await live()).toBe(20)
    const refused = await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.01 } } }, "fresh")
    expectCode(refused, 400, "VALIDATION")
    expect(refused.body.error).toMatch(/20 market bots/)
    expect((await s.as("fresh", path(made[0]!), { method: "DELETE" })).body.data.status).toBe("ended")
    const again = await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.01 } } }, "fresh")
    expect(again.status).toBe(201)
    // End what this test made, so the account's later tests have room.
    for (const id of [...made.slice(1), again.body.data.id as string]) {
      expect((await s.as("fresh", path(id), { method: "DELETE" })).status).toBe(200)
    }
  })

  it("derives a signal bot's name from its signal unless one is given", async () => {
    const r = await post({ trigger: { signal: { category: ["crypto"], minUsd: 25_000 } } })
    expect(r.body.data).toMatchObject({ name: "Whale buys: crypto, ≥ $25k", kind: "signal", venues: ["venue_a", "venue_b", "venue_b_us", "venue_d"] })
    expect(r.body.data.settings).toEqual({ signal: { category: ["crypto"], minUsd: 25_000, entry: "all" }, sizing: { usd: 100 }, alerts: true })
    const named = await post({ trigger: { signal: { venue: ["venue_b"] } }, name: "My bot", alerts: false })
    expect(named.body.data).toMatchObject({ name: "My bot", venues: ["venue_b"], settings: { alerts: false } })
  })

  it("needs write scope", async () => {
    expectCode(await post({ trigger: { signal: {} } }, "read"), 403, "SCOPE_REQUIRED")
  })
})

describe("GET /v2/bots and /v2/bots/{id}", () => {
  it("pages a bot's trades newest first by cursor, filtered by result and since; curve has a point per closed trade", async () => {
    s.feed(...aBookedMarket("R1", T0))
    await new Promise((r) => setTimeout(r, 100))
    const made = await post({ trigger: { market: "venue_a:R1", outcome: "yes", rule: { takeProfit: 0.6, stopLoss: 0.4, repeat: true } }, sizing: { usd: 10 } })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const id = made.body.data.id as string
    // Bought at once (0.5); out at 0.65 (win), in at 0.5, out at 0.35 (loss), in, out at 0.7 (win), in at 0.5 (open).
    let t = T0
    for (const mid of [0.65, 0.5, 0.35, 0.5, 0.7, 0.5]) {
      t += 10 * MIN
      s.feed(...aMove("R1", t, mid))
      await new Promise((r) => setTimeout(r, 30))
    }
    let bot: any
    for (let i = 0; i < 100 && bot?.record.trades !== 4; i++) {
      await new Promise((r) => setTimeout(r, 20))
      bot = (await s.as("write", `${path(id)}?include=trades`)).body.data
    }
    expect(bot.record).toMatchObject({ trades: 4, settled: 3, wins: 2, losses: 1, open: 1 })
    const rows = bot.trades.data as Array<any>
    expect(rows.map((r) => [r.status, r.result])).toEqual([["open", null], ["closed", "win"], ["closed", "loss"], ["closed", "win"]])
    const opened = rows.map((r) => r.openedAt as string)
    expect([...opened].sort().reverse()).toEqual(opened) // newest first
    expect(bot.curve.map((p: any) => p.time)).toEqual(rows.filter((r) => r.status === "closed").map((r) => r.closedAt).reverse())
    expect(bot.curve.at(-1).profit).toBeCloseTo(bot.record.realized, 6)
    // Two pages of two, by the first page's cursor.
    const p1 = (await s.as("write", `${path(id)}?include=trades&limit=2`)).body.data.trades
    expect(p1.data.map((r: any) => r.openedAt)).toEqual(opened.slice(0, 2))
    const p2 = (await s.as("write", `${path(id)}?include=trades&limit=2&cursor=${encodeURIComponent(p1.nextCursor)}`)).body.data.trades
    expect(p2.data.map((r: any) => r.openedAt)).toEqual(opened.slice(2))
    expect(p2.nextCursor).toBeNull()
    // result and since pick rows (since: opened at or after, an offset accepted).
    const losses = (await s.as("write", `${path(id)}?include=trades&result=loss`)).body.data.trades.data
    expect(losses.map((r: any) => r.result)).toEqual(["loss"])
    const open = (await s.as("write", `${path(id)}?include=trades&result=open`)).body.data.trades.data
    expect(open.map((r: any) => r.status)).toEqual(["open"])
    const since = opened[1]!.replace("Z", "+00:00")
    const recent = (await s.as("write", `${path(id)}?include=trades&since=${encodeURIComponent(since)}`)).body.data.trades.data
    expect(recent.map((r: any) => r.openedAt)).toEqual(opened.slice(0, 2))
  })

  it("lists the account's bots newest first, filtered by kind, status and venue, paged with cursors", async () => {
    const all = await s.as("write", "/v2/bots")
    expect(all.status).toBe(200)
    const kinds = all.body.data.map((b: any) => b.kind)
    expect(kinds).toContain("trader")
    expect(all.body.data[0]).toHaveProperty("trades")
    expect(all.body.nextCursor).toBeNull()
    const traders = await s.as("write", "/v2/bots?kind=trader")
    expect(traders.body.data.every((b: any) => b.kind === "trader")).toBe(true)
    const venueB = await s.as("write", "/v2/bots?venue=venue_b&kind=trader&kind=market")
    expect(venueB.body.data.map((b: any) => b.name)).toEqual(["0xa0f2…1848", "0xbob"])
    const ended = await s.as("other", "/v2/bots?status=ended")
    // The trader bot on alice ended by the duplicate test, and one more ended before.
    expect(ended.body.data).toHaveLength(2)
    expect(ended.body.data.map((b: any) => b.kind)).toContain("trader")
    // A repeated status is OR-combined: the ended bots and the running ones, nothing else.
    const running = await s.as("other", "/v2/bots?status=running&limit=200")
    const either = await s.as("other", "/v2/bots?status=ended&status=running&limit=200")
    expect(new Set(either.body.data.map((b: any) => b.status))).toEqual(new Set(["ended", "running"]))
    expect(either.body.data).toHaveLength(ended.body.data.length + running.body.data.length)
    const page1 = await s.as("other", "/v2/bots?limit=5&kind=signal")
    expect(page1.body.data).toHaveLength(5)
    const page2 = await s.as("other", `/v2/bots?limit=5&kind=signal&cursor=${page1.body.nextCursor}`)
    expect(page2.body.data).toHaveLength(5)
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id)
    expectCode(await s.as("other", `/v2/bots?limit=5&kind=trader&cursor=${page1.body.nextCursor}`), 400, "VALIDATION")
    expectCode(await s.as("write", "/v2/bots?kind=robot"), 400, "VALIDATION")
    expectCode(await s.as("write", "/v2/bots?limit=201"), 400, "VALIDATION")
    expectCode(await s.as("write", "/v2/bots?colour=red"), 400, "VALIDATION")
  })

  it("reads one bot by its percent-encoded id; includes cost one request each", async () => {
    const list = await s.as("write", "/v2/bots?kind=trader")
    const id = list.body.data[0].id as string
    const plain = await s.as("write", path(id))
    expect(plain.status).toBe(200)
    expect(plain.body.data.id).toBe(id)
    const before = Number(plain.headers.get("x-ratelimit-remaining"))
    const both = await s.as("write", `${path(id)}?include=trades&include=activity`)
    expect(both.body.data.trades).toEqual({ data: [], nextCursor: null })
    expect(both.body.data.activity).toEqual({ trades: 0, windowDays: 30, medianTradeUsd: null, lastTradeAt: null })
    expect(Number(both.headers.get("x-ratelimit-remaining"))).toBe(before - 3)
    expectCode(await s.as("write", `${path(id)}?include=book`), 400, "VALIDATION")
    expectCode(await s.as("write", `${path(id)}?include=trades&result=void`), 400, "VALIDATION")
    expectCode(await s.as("write", `${path(id)}?include=trades&since=2026-01-01T00:00:00`), 400, "VALIDATION")
    expectCode(await s.as("write", `${path(id)}?include=trades&limit=0`), 400, "VALIDATION")
    // A refused request costs one unit, its includes nothing (they are charged once it is known good).
    const left = Number((await s.as("write", path(id))).headers.get("x-ratelimit-remaining"))
    const badCursor = await s.as("write", `${path(id)}?include=trades&include=activity&cursor=abc`)
    expectCode(badCursor, 400, "VALIDATION")
    expect(Number(badCursor.headers.get("x-ratelimit-remaining"))).toBe(left - 1)
    // Without include=trades a cursor is still checked: a foreign one is VALIDATION, and no trades are read.
    const bots = await s.as("write", "/v2/bots?limit=1")
    expect(bots.body.nextCursor).not.toBeNull()
    for (const cursor of ["abc", bots.body.nextCursor as string]) {
      const foreign = await s.as("write", `${path(id)}?cursor=${encodeURIComponent(cursor)}`)
      expectCode(foreign, 400, "VALIDATION")
      expect(foreign.body.error).toBe("cursor is not valid for this listing")
    }
    const noInclude = await s.as("write", path(id))
    expect(noInclude.status).toBe(200)
    expect(noInclude.body.data).not.toHaveProperty("trades")
  })

  it("another account's bot, a missing one and a malformed id are the same NOT_FOUND", async () => {
    const list = await s.as("write", "/v2/bots?kind=trader")
    const id = list.body.data[0].id as string
    const foreign = await s.as("other", path(id))
    const missing = await s.as("other", path("trader:doesnotexist"))
    expectCode(foreign, 404, "NOT_FOUND")
    expectCode(missing, 404, "NOT_FOUND")
    expectCode(await s.as("other", path("nonsense")), 404, "NOT_FOUND")
    expectCode(await s.as("other", path(id), { method: "PATCH", body: { alerts: false } }), 404, "NOT_FOUND")
    expectCode(await s.as("other", path(id), { method: "DELETE" }), 404, "NOT_FOUND")
  })

  it("an id of 100 characters is looked up (NOT_FOUND); 101 is VALIDATION in the id's own sentence, on every method", async () => {
    expectCode(await s.as("other", path(`trader:${"x".repeat(93)}`)), 404, "NOT_FOUND")
    const long = path(`trader:${"x".repeat(94)}`)
    for (const answer of [await s.as("other", long), await s.as("other", long, { method: "PATCH", body: { alerts: false } }), await s.as("other", long, { method: "DELETE" })]) {
      expectCode(answer, 400, "VALIDATION")
      expect(answer.body.error).toBe("id must be a bot id of at most 100 characters")
    }
  })
})

describe("PATCH /v2/bots/{id}", () => {
  const idOf = async (kind: string, token: "write" | "fresh" = "write") =>
    ((await s.as(token, `/v2/bots?kind=${kind}`)).body.data[0].id) as string

  it("pauses and resumes a trader bot and changes its fields", async () => {
    const id = await idOf("trader")
    const paused = await s.as("write", path(id), { method: "PATCH", body: { status: "paused", sizing: { percent: 10, maxUsd: 500 } } })
    expect(paused.status).toBe(200)
    expect(paused.body.data).toMatchObject({ status: "paused", settings: { sizing: { percent: 10, maxUsd: 500 } } })
    const running = await s.as("write", path(id), { method: "PATCH", body: { status: "running", mirrorExits: false, alerts: false } })
    expect(running.body.data).toMatchObject({ status: "running", settings: { mirrorExits: false, alerts: false } })
  })

  it("refuses an empty body, fields of another kind, status on a signal bot, market percent sizing", async () => {
    const trader = await idOf("trader")
    const signal = await idOf("signal")
    const market = await idOf("market", "fresh")
    expectCode(await s.as("write", path(trader), { method: "PATCH", body: {} }), 400, "VALIDATION")
    expectCode(await s.as("write", path(trader), { method: "PATCH", body: { name: "x" } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(trader), { method: "PATCH", body: { rule: {} } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(signal), { method: "PATCH", body: { status: "paused" } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(signal), { method: "PATCH", body: { mirrorExits: true } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(signal), { method: "PATCH", body: { name: "   " } }), 400, "VALIDATION")
    expectCode(await s.as("fresh", path(market), { method: "PATCH", body: { sizing: { percent: 1, maxUsd: 5 } } }), 400, "VALIDATION")
    expectCode(await s.as("fresh", path(market), { method: "PATCH", body: { signal: {} } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(trader), { method: "PATCH", body: { status: "ended" } }), 400, "VALIDATION")
    expectCode(await s.as("write", path(trader), { method: "PATCH", body: { colour: 1 } }), 400, "VALIDATION")
    expectCode(await s.as("read", path(trader), { method: "PATCH", body: { alerts: true } }), 403, "SCOPE_REQUIRED")
    expectCode(await s.as("read", path(trader), { method: "DELETE" }), 403, "SCOPE_REQUIRED")
  })

  it("a market bot changed or resumed meets the price now: no buy trigger buys at once, a level already passed fires", async () => {
    const created = await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.01 } }, sizing: { usd: 10 } }, "fresh")
    const id = created.body.data.id as string
    expect(created.body.data.record.trades).toBe(0)
    const changed = await s.as("fresh", path(id), { method: "PATCH", body: { rule: { takeProfit: 0.99 } } })
    expect(changed.body.data).toMatchObject({ status: "running", record: { trades: 1, open: 1 } })
    const other = await post({ trigger: { market: "venue_a:C1", outcome: "yes", rule: { buyBelow: 0.01 } }, sizing: { usd: 10 } }, "fresh")
    const second = other.body.data.id as string
    const paused = await s.as("fresh", path(second), { method: "PATCH", body: { status: "paused", rule: { buyBelow: 0.9 } } })
    expect(paused.body.data).toMatchObject({ status: "paused", record: { trades: 0 } }) // paused: no trigger acts
    const resumed = await s.as("fresh", path(second), { method: "PATCH", body: { status: "running" } })
    expect(resumed.body.data).toMatchObject({ status: "running", record: { trades: 1 } }) // 0.49 is below 0.9 now
  })

  it("replaces a signal (the derived name follows) and a market rule", async () => {
    const created = await post({ trigger: { signal: { category: ["politics"] } } })
    const id = created.body.data.id as string
    const r = await s.as("write", path(id), { method: "PATCH", body: { signal: { category: ["crypto"], minUsd: 50_000 } } })
    expect(r.body.data).toMatchObject({ name: "Whale buys: crypto, ≥ $50k", settings: { signal: { category: ["crypto"], minUsd: 50_000 } } })
    const renamed = await s.as("write", path(id), { method: "PATCH", body: { name: "Mine" } })
    expect(renamed.body.data.name).toBe("Mine")
    const market = await idOf("market", "fresh")
    const m = await s.as("fresh", path(market), { method: "PATCH", body: { rule: { buyBelow: 0.2, repeat: true }, sizing: { usd: 20 } } })
    expect(m.body.data.settings).toMatchObject({ rule: { buyBelow: 0.2, repeat: true }, sizing: { usd: 20 } })
    const ended = await s.as("write", path(id), { method: "DELETE" })
    expect(ended.body.data.status).toBe("ended")
    // An ended bot cannot be changed: VALIDATION naming the field, and nothing changes.
    for (const body of [{ name: "After" }, { sizing: { usd: 42 } }, { alerts: false }, { status: "running" }]) {
      const refused = await s.as("write", path(id), { method: "PATCH", body })
      expectCode(refused, 400, "VALIDATION")
      expect(refused.body.error).toContain(`${Object.keys(body)[0]}: the bot has ended`)
    }
    expect((await s.as("write", path(id))).body.data).toMatchObject({ status: "ended", name: "Mine", settings: { alerts: true } })
  })
})

describe("GET /v2/bots/{id}: includes against the per-minute limit", () => {
  it("refuses includes that would pass the limit with QUOTA_EXCEEDED and charges nothing for them (the read key spends its minute)", async () => {
    const id = (await s.as("write", "/v2/bots?kind=trader")).body.data[0].id as string
    let probe = await s.as("read", "/v2/bots?limit=1")
    // Spending the minute takes well under a second; start with room left in the window so it stays one window.
    if (Number(probe.headers.get("x-ratelimit-reset")) < 20) {
      await new Promise((r) => setTimeout(r, (Number(probe.headers.get("x-ratelimit-reset")) + 1) * 1000))
      probe = await s.as("read", "/v2/bots?limit=1")
    }
    for (let left = Number(probe.headers.get("x-ratelimit-remaining")); left > 2; left--) {
      expect((await s.as("read", "/v2/bots?limit=1")).status).toBe(200)
    }
    // Two left: this request counts one, and its two includes do not fit in the one remaining.
    const refused = await s.as("read", `${path(id)}?include=trades,activity`)
    expectCode(refused, 429, "QUOTA_EXCEEDED")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    // The includes were not charged: a plain read still fits, and it is the last of the minute.
    const last = await s.as("read", path(id))
    expect(last.status).toBe(200)
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0")
    expectCode(await s.as("read", path(id)), 429, "QUOTA_EXCEEDED")
  }, 40_000)
})
