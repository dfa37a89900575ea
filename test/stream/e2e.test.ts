// GET /v2/stream through the whole service (`bin/whalewatch.js serve`, embedded defaults, in-process
// simulator): a whale trade injected through the simulator's control API arrives as a trade frame on
// a stream filtered to its market, with the id and shape GET /v2/trades lists; a trade on another
// market does not.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { healthy, startService, waitFor, type Service } from "../support/service.js"
import { deepen, inject, openContracts, type SimContract } from "../support/sim-control.js"
import { openSse, type SseClient } from "./stream-server.js"

let service: Service | undefined
let base = ""
let sim = ""
let key = ""
const clients: Array<SseClient> = []

beforeAll(async () => {
  service = await startService({ prefix: "whalewatch-stream-e2e-", env: { HISTORY_DAYS: "1" } })
  ;({ base, sim, key } = service)
  await healthy(service, 120_000)
}, 240_000)

afterAll(async () => {
  for (const c of clients) c.close()
  await service?.stop()
})

describe("the stream of the running service", () => {
  it("delivers an injected whale trade on its market with the listing's id and shape, and not one on another market", async () => {
    const markets = await openContracts(sim, "venue_a")
    const [target, other] = markets as [SimContract, SimContract]
    expect(other).toBeDefined()
    const client = await openSse(`${base}/v2/stream?channels=trades&market=${encodeURIComponent(target.ref)}&minUsd=40000`, key)
    clients.push(client)
    expect(client.status).toBe(200)
    await client.waitFor((f) => f.comment === "connected")
    await deepen(sim, other.ref)
    await deepen(sim, target.ref)
    await inject(sim, other.ref, 60_000, "e2e_other")
    await inject(sim, target.ref, 60_000, "e2e_whale")
    const frame = await client.waitFor((f) => f.event === "trade" && JSON.parse(f.data ?? "").trader?.ref === "venue_a:e2e_whale", 30_000)
    const row = JSON.parse(frame.data ?? "")
    expect(row.market.ref).toBe(target.ref)
    expect(client.frames.filter((f) => f.event === "trade").every((f) => JSON.parse(f.data ?? "").market.ref === target.ref)).toBe(true)
    const listed = await waitFor("the trade in GET /v2/trades", async () => {
      const answer = await fetch(`${base}/v2/trades?trader=venue_a:e2e_whale`, { headers: { authorization: `Bearer ${key}` } })
      const body = (await answer.json()) as { data?: Array<{ id: string }> }
      return body.data?.find((r) => r.id === row.id)
    }, 15_000)
    expect(Object.keys(listed).sort()).toEqual(Object.keys(row).sort())
    expect(listed).toMatchObject({ id: row.id, market: row.market, outcome: row.outcome, price: row.price, usd: row.usd })
  }, 60_000)

  it("a client that reconnects gets what it missed from GET /v2/trades with since = its last frame's time", async () => {
    const markets = await openContracts(sim, "venue_a")
    // Its own market when the simulator has three open (the frames are told apart by trader anyway).
    expect(markets.length, "open venue_a contracts").toBeGreaterThan(0)
    const target = markets[Math.min(2, markets.length - 1)] as SimContract
    const client = await openSse(`${base}/v2/stream?channels=trades&market=${encodeURIComponent(target.ref)}&minUsd=40000`, key)
    clients.push(client)
    await client.waitFor((f) => f.comment === "connected")
    await deepen(sim, target.ref)
    await inject(sim, target.ref, 60_000, "e2e_gap_seen")
    const last = JSON.parse((await client.waitFor((f) => f.event === "trade" && JSON.parse(f.data ?? "").trader?.ref === "venue_a:e2e_gap_seen", 30_000)).data ?? "")
    client.close()
    // Missed while disconnected.
    await inject(sim, target.ref, 70_000, "e2e_gap_missed1")
    await inject(sim, target.ref, 80_000, "e2e_gap_missed2")
    const query = `market=${encodeURIComponent(target.ref)}&minUsd=40000&since=${encodeURIComponent(last.time)}`
    const page = await waitFor("the missed trades in GET /v2/trades", async () => {
      const answer = await fetch(`${base}/v2/trades?${query}`, { headers: { authorization: `Bearer ${key}` } })
      const body = (await answer.json()) as { data: Array<{ id: string; time: string; trader: { ref: string } | null }> }
      return body.data.some((r) => r.trader?.ref === "venue_a:e2e_gap_missed2") ? body.data : undefined
    }, 15_000)
    const traders = page.map((r) => r.trader?.ref)
    expect(traders).toContain("venue_a:e2e_gap_missed1")
    expect(traders).toContain("venue_a:e2e_gap_seen")
    expect(page.every((r) => r.time >= last.time)).toBe(true)
    expect(new Set(page.map((r) => r.id)).size).toBe(page.length)
  }, 60_000)

  it("refuses a key in the query string", async () => {
    const response = await fetch(`${base}/v2/stream?key=${key}`)
    expect(response.status).toBe(401)
  })
})
