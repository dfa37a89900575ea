// The simulator's doors: venue sockets speaking their protocols, the control API (its changes reach
// clients on the venue's own socket), the REST history, and the loopback guard.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { isLoopback } from "../../src/sim/control.js"
import { startSim, type Sim } from "../../src/sim/server.js"

let sim: Sim

beforeAll(async () => {
  sim = await startSim({ port: 0, seed: 9, historyDays: 1, speed: 0, start: Date.UTC(2026, 2, 1, 12) })
})
afterAll(async () => {
  await sim.close()
})

/** A ws client that keeps every text frame it receives. */
const connect = async (path: string) => {
  const ws = new WebSocket(`ws://127.0.0.1:${sim.port}${path}`)
  const frames: Array<string> = []
  ws.on("message", (data) => frames.push(data.toString()))
  await new Promise((resolve, reject) => {
    ws.once("open", resolve)
    ws.once("error", reject)
  })
  const waitFor = async (match: (text: string) => boolean, ms = 3000): Promise<string> => {
    const until = Date.now() + ms
    for (;;) {
      const hit = frames.find(match)
      if (hit !== undefined) return hit
      if (Date.now() > until) throw new Error(`no frame matched on ${path}; got ${frames.length} frames`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  return { ws, frames, waitFor }
}

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${sim.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

const openSingle = (venue: string) => {
  const c = sim.model.openContracts().find((k) => k.venue === venue && k.group === null && k.makers)
  if (c === undefined) throw new Error(`no open ${venue} market`)
  return c
}

describe("sim server", () => {
  it("answers PING with PONG on venue_b and sends books and listings on subscribe", async () => {
    const client = await connect("/ws/venue_b")
    client.ws.send("PING")
    await client.waitFor((t) => t === "PONG")
    client.ws.send(JSON.stringify({ assets_ids: [], type: "market", custom_feature_enabled: true }))
    await client.waitFor((t) => t.startsWith("[") && t.includes('"new_market"'))
    await client.waitFor((t) => t.startsWith("[") && t.includes('"event_type":"book"'))
    client.ws.close()
  })

  it("follows a venue_b trade's price_change with a fresh book of both tokens at the same time, as the venue does", async () => {
    const client = await connect("/ws/venue_b")
    client.ws.send(JSON.stringify({ assets_ids: [], type: "market", initial_dump: false }))
    let trade: { market: string; timestamp: string } | undefined
    for (let i = 0; i < 20 && trade === undefined; i++) {
      sim.step(60)
      await new Promise((r) => setTimeout(r, 20))
      const hit = client.frames.find((t) => t.includes('"event_type":"last_trade_price"'))
      if (hit !== undefined) trade = JSON.parse(hit) as { market: string; timestamp: string }
    }
    if (trade === undefined) throw new Error("no venue_b trade in 20 simulated minutes")
    const frames = client.frames.map((t) => JSON.parse(t) as { event_type?: string; market?: string; timestamp?: string; asset_id?: string })
    const at = frames.findIndex((f) => f.event_type === "last_trade_price" && f.market === trade.market && f.timestamp === trade.timestamp)
    const after = frames.slice(at + 1).filter((f) => f.market === trade.market && f.timestamp === trade.timestamp)
    expect(after[0]?.event_type).toBe("price_change")
    expect(after.slice(1, 3).map((f) => f.event_type)).toEqual(["book", "book"])
    expect(new Set(after.slice(1, 3).map((f) => f.asset_id)).size).toBe(2)
    client.ws.close()
  })

  it("numbers Kalshi frames per sid and snapshots on subscribe and on get_snapshot", async () => {
    const client = await connect("/ws/venue_a")
    client.ws.send(JSON.stringify({ id: 1, cmd: "subscribe", params: { channels: ["orderbook_delta", "trade", "market_lifecycle_v2"] } }))
    await client.waitFor((t) => t.includes('"orderbook_snapshot"'))
    sim.step(400)
    await client.waitFor((t) => t.includes('"type":"trade"'))
    const frames = client.frames.map((t) => JSON.parse(t) as { type: string; sid?: number; seq?: number })
    const acks = frames.filter((f) => f.type === "subscribed")
    expect(acks).toHaveLength(3)
    const bySid = new Map<number, Array<number>>()
    for (const f of frames) if (f.seq !== undefined && f.sid !== undefined) bySid.set(f.sid, [...(bySid.get(f.sid) ?? []), f.seq])
    expect(bySid.size).toBe(2) // book and trade frames are numbered; lifecycle frames carry no seq, as the venue's
    for (const seqs of bySid.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1))
    const lifecycle = frames.filter((f) => f.type === "market_lifecycle_v2")
    expect(lifecycle.length).toBeGreaterThan(0)
    expect(lifecycle.every((f) => f.seq === undefined && f.sid !== undefined)).toBe(true)
    const ticker = openSingle("venue_a").id
    client.ws.send(JSON.stringify({ id: 2, cmd: "update_subscription", params: { sids: [1], market_tickers: [ticker], action: "get_snapshot" } }))
    await client.waitFor((t) => t.includes('"type":"ok"') && t.includes(ticker))
    client.ws.send(JSON.stringify({ id: 3, cmd: "nonsense" }))
    await client.waitFor((t) => t.includes('"code":5'))
    client.ws.close()
  })

  it("settles, voids and closes through the control API, seen on each venue's socket", async () => {
    const a = await connect("/ws/venue_d")
    a.ws.send(JSON.stringify({ id: 1, cmd: "subscribe", params: { channels: ["market_lifecycle_v2"] } }))
    const us = await connect("/ws/venue_b_us")
    us.ws.send(JSON.stringify({ subscribe: { requestId: "md-1", subscriptionType: "SUBSCRIPTION_TYPE_MARKET_DATA" } }))
    const b = await connect("/ws/venue_b")
    b.ws.send(JSON.stringify({ assets_ids: [], type: "market", custom_feature_enabled: true }))
    await us.waitFor((t) => t.includes('"marketData"'))

    const d = openSingle("venue_d")
    const settled = await post(`/control/markets/${encodeURIComponent(d.ref)}/settle`, { outcome: "yes" })
    expect(settled.status).toBe(200)
    await a.waitFor((t) => t.includes('"event_type":"settled"') && t.includes(d.id) && t.includes('"result":"yes"'))

    const u = openSingle("venue_b_us")
    expect((await post(`/control/markets/${encodeURIComponent(u.ref)}/close`, {})).status).toBe(200)
    await us.waitFor((t) => t.includes("MARKET_STATE_CLOSED") && t.includes(u.id))

    const v = openSingle("venue_b")
    expect((await post(`/control/markets/${encodeURIComponent(v.ref)}/void`, {})).status).toBe(200)
    await b.waitFor((t) => t.includes('"market_resolved"') && t.includes(v.id) && t.includes("50-50"))

    const again = await post(`/control/markets/${encodeURIComponent(v.ref)}/void`, {})
    expect(again.status).toBe(409)
    for (const c of [a, us, b]) c.ws.close()
  })

  it("sets a book and injects a trade that walks it, printed with its trader on the venue's feed", async () => {
    const market = await connect("/ws/venue_b")
    const trades = await connect("/ws/venue_b/trades")
    market.ws.send(JSON.stringify({ assets_ids: [], type: "market" }))
    await market.waitFor((t) => t.startsWith("["))
    const c = openSingle("venue_b")
    const book = await post(`/control/markets/${encodeURIComponent(c.ref)}/book`, {
      outcome: c.outcomes[0].name, bids: [{ price: 0.4, size: 1000 }], asks: [{ price: 0.5, size: 10_000 }, { price: 0.6, size: 50_000 }],
    })
    expect(book.status).toBe(200)
    await market.waitFor((t) => t.includes('"event_type":"book"') && t.includes(c.outcomes[0].id) && t.includes('"price":"0.5","size":"10000"'))
    const trade = await post("/control/trades", { market: c.ref, outcome: c.outcomes[0].name, action: "buy", usd: 20_000, price: 0.65, trader: "test_whale" })
    expect(trade.status).toBe(200)
    const data = trade.body["data"] as { contracts: number; price: number }
    expect(data.contracts).toBeCloseTo(10_000 + 15_000 / 0.6, 0)
    expect(data.price).toBeGreaterThan(0.5)
    await market.waitFor((t) => t.includes('"last_trade_price"') && t.includes(c.id))
    const row = JSON.parse(await trades.waitFor((t) => t.includes(c.id) && t.includes("test_whale"))) as Record<string, unknown>
    expect(row["conditionId"]).toBe(c.id)
    // The venue_b socket printed the same transaction.
    await market.waitFor((t) => t.includes(String(row["transactionHash"])))

    const a = openSingle("venue_a")
    const kalshi = await connect("/ws/venue_a")
    kalshi.ws.send(JSON.stringify({ id: 1, cmd: "subscribe", params: { channels: ["trade"], market_tickers: [a.id] } }))
    await kalshi.waitFor((t) => t.includes('"subscribed"'))
    expect((await post("/control/trades", { market: a.ref, outcome: "no", action: "buy", usd: 500, trader: "sharp_otter1" })).status).toBe(200)
    await kalshi.waitFor((t) => t.includes('"taker_handle":"sharp_otter1"') && t.includes('"taker_outcome_side":"no"'))
    for (const x of [market, trades, kalshi]) x.ws.close()
  })

  it("rejects bad control requests with a sentence naming the field", async () => {
    const c = openSingle("venue_a")
    const cases: Array<[string, unknown, number, RegExp]> = [
      ["/control/trades", { market: c.ref, outcome: "maybe", action: "buy", usd: 10 }, 400, /outcome/],
      ["/control/trades", { market: c.ref, outcome: "yes", action: "hold", usd: 10 }, 400, /action/],
      ["/control/trades", { market: c.ref, outcome: "yes", action: "buy", usd: -1 }, 400, /usd/],
      ["/control/trades", { market: c.ref, outcome: "yes", action: "buy", usd: 10, price: 2 }, 400, /price/],
      ["/control/trades", { market: "venue_a:NOPE", outcome: "yes", action: "buy", usd: 10 }, 404, /market/],
      [`/control/markets/${encodeURIComponent(c.ref)}/book`, { outcome: "yes", bids: [{ price: 0.555, size: 1 }] }, 400, /tick/],
      [`/control/markets/${encodeURIComponent(c.ref)}/book`, { outcome: "yes", bids: [{ price: 0.6, size: 1 }], asks: [{ price: 0.5, size: 1 }] }, 400, /below/],
      [`/control/markets/${encodeURIComponent(c.ref)}/settle`, { outcome: 3 }, 400, /outcome/],
    ]
    for (const [path, body, status, field] of cases) {
      const res = await post(path, body)
      expect(res.status, path).toBe(status)
      expect(String(res.body["error"])).toMatch(field)
    }
    const markets = (await (await fetch(`${sim.url}/control/markets`)).json()) as { data: Array<{ ref: string }> }
    expect(markets.data.length).toBeGreaterThan(50)
  })

  it("refuses non-loopback addresses", () => {
    expect(isLoopback("127.0.0.1")).toBe(true)
    expect(isLoopback("::1")).toBe(true)
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true)
    expect(isLoopback("10.0.0.5")).toBe(false)
    expect(isLoopback("::ffff:192.168.1.2")).toBe(false)
    expect(isLoopback(undefined)).toBe(false)
  })

  it("pages REST history with cursors", async () => {
    const first = (await (await fetch(`${sim.url}/history/venue_a/trades?limit=50`)).json()) as { data: Array<unknown>; nextCursor: string | null }
    expect(first.data).toHaveLength(50)
    expect(first.nextCursor).not.toBeNull()
    const second = (await (await fetch(`${sim.url}/history/venue_a/trades?limit=50&cursor=${first.nextCursor}`)).json()) as { data: Array<unknown> }
    expect(JSON.stringify(second.data[0])).not.toBe(JSON.stringify(first.data[0]))
    const bad = await fetch(`${sim.url}/history/venue_b/trades?cursor=${first.nextCursor}`)
    expect(bad.status).toBe(400)
    expect((await fetch(`${sim.url}/history/venue_x/trades`)).status).toBe(404)
  })
})
