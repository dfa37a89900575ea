// GET /v2/stream end to end over loopback: frames, filters, refusals before the stream opens,
// concurrent-stream limit, charging once a minute on a manual clock, the error frame when the
// allowance is spent.
import { Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { MoveRow } from "../../src/domain/move.js"
import { TradeRow } from "../../src/domain/trade.js"
import { moveRowOf, tradeRowOf } from "../../src/intel/rows.js"
import { allowanceCounter } from "../../src/operations/allowance.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { aStoredMove, aStoredTrade } from "./builders.js"
import { openSse, startStreamServer, type SseClient, type StreamServer } from "./stream-server.js"

const open: Array<SseClient> = []
const servers: Array<StreamServer> = []
afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  for (const s of servers.splice(0)) await s.close()
})

const principal = aPrincipal()
const keys = memoryKeys({ tok: principal, other: aPrincipal(), ro: aPrincipal({ scopes: ["write"] }) })

const start = async (options: Partial<Parameters<typeof startStreamServer>[0]> = {}) => {
  const server = await startStreamServer({ keys, ...options })
  servers.push(server)
  return server
}
const sse = async (server: StreamServer, query = "", token: string | null = "tok") => {
  const client = await openSse(`${server.url}/v2/stream${query}`, token)
  open.push(client)
  return client
}
const connected = (c: SseClient) => c.waitFor((f) => f.comment === "connected")
const waitSubscribers = async (server: StreamServer, n: number) => {
  for (let i = 0; i < 100 && server.subscribers() < n; i++) await new Promise((r) => setTimeout(r, 10))
}

describe("GET /v2/stream", () => {
  it("sends `: connected`, then a matching trade with the listing row's id and shape, and not a non-matching one", async () => {
    const server = await start()
    const client = await sse(server, "?venue=venue_a&minUsd=20000")
    expect(client.status).toBe(200)
    expect(client.headers.get("content-type")).toContain("text/event-stream")
    await connected(client)
    await waitSubscribers(server, 1)
    const small = aStoredTrade({ usd: 15_000 })
    const other = aStoredTrade({ venue: "venue_b", market: "venue_b:x", contract: "venue_b:x" })
    const match = aStoredTrade()
    for (const trade of [small, other, match]) await server.publish({ _tag: "TradeRecorded", trade })
    const frame = await client.waitFor((f) => f.event === "trade")
    const row = JSON.parse(frame.data ?? "")
    expect(row).toEqual(tradeRowOf(match))
    expect(Schema.decodeUnknownSync(TradeRow)(row).id).toBe(match.id)
    expect(client.frames.filter((f) => f.event === "trade")).toHaveLength(1)
  })

  it("sends moves on the moves channel with the listing row, filtered by type and minPoints", async () => {
    const server = await start()
    const client = await sse(server, "?channels=moves&type=move&minPoints=12")
    await connected(client)
    await waitSubscribers(server, 1)
    await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade() })
    await server.publish({ _tag: "MoveRecorded", move: aStoredMove({ priceBefore: 0.5, priceAfter: 0.6 }) })
    const big = aStoredMove({ priceBefore: 0.4, priceAfter: 0.55 })
    await server.publish({ _tag: "MoveRecorded", move: big })
    const frame = await client.waitFor((f) => f.event === "move")
    expect(Schema.decodeUnknownSync(MoveRow)(JSON.parse(frame.data ?? ""))).toEqual(moveRowOf(big))
    expect(client.frames.filter((f) => f.event !== null)).toHaveLength(1)
  })

  it("refuses before opening with JSON errors: no key, a key in the URL, unknown parameter, outcome without one market, write-only key", async () => {
    const server = await start()
    const none = await sse(server, "", null)
    expect(none.status).toBe(401)
    const inUrl = await sse(server, "?key=tok", "tok")
    expect(inUrl.status).toBe(401)
    expect(await inUrl.json()).toMatchObject({ success: false, code: "UNAUTHORIZED" })
    const inUrlOnly = await sse(server, "?api_key=tok", null)
    expect(inUrlOnly.status).toBe(401)
    // Text no store can hold in the query is answered after the key check: no key is 401, with one 400.
    const nulAnonymous = await sse(server, "?venue=a%00b", null)
    expect(nulAnonymous.status).toBe(401)
    expect((await nulAnonymous.json()).code).toBe("UNAUTHORIZED")
    const nul = await sse(server, "?venue=a%00b")
    expect(nul.status).toBe(400)
    expect(nul.headers.get("x-ratelimit-limit")).toBe("120")
    expect((await nul.json()).code).toBe("VALIDATION")
    const unknown = await sse(server, "?colour=red")
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toEqual({ success: false, code: "VALIDATION", error: "Unknown query parameter `colour`" })
    const outcome = await sse(server, "?outcome=Yes")
    expect(outcome.status).toBe(400)
    expect((await outcome.json()).code).toBe("VALIDATION")
    const bad = await sse(server, "?channels=trades&channels=bets")
    expect(bad.status).toBe(400)
    const scope = await sse(server, "", "ro")
    expect(scope.status).toBe(403)
    expect(server.subscribers()).toBe(0)
  })

  it("refuses the 4th concurrent stream of a key with 429 QUOTA_EXCEEDED, and frees the slot when one closes", async () => {
    const server = await start()
    const three = [await sse(server), await sse(server), await sse(server)]
    for (const c of three) expect(c.status).toBe(200)
    const fourth = await sse(server)
    expect(fourth.status).toBe(429)
    expect(fourth.headers.get("retry-after")).not.toBeNull()
    expect(await fourth.json()).toMatchObject({ success: false, code: "QUOTA_EXCEEDED" })
    const otherKey = await sse(server, "", "other")
    expect(otherKey.status).toBe(200)
    three[0]?.close()
    let again: SseClient | undefined
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20))
      const attempt = await sse(server)
      if (attempt.status === 200) {
        again = attempt
        break
      }
    }
    expect(again?.status).toBe(200)
  })

  it("charges sent trade frames once a minute of clock and on close; filtered frames and moves are free", async () => {
    const start0 = Date.UTC(2026, 0, 15, 12, 0, 10)
    const clock = manualClock(start0)
    const p = aPrincipal()
    const server = await start({ keys: memoryKeys({ p }), clock: clock.layer })
    const allowance = allowanceCounter(p.keyId, start0)
    const client = await sse(server, "?minUsd=20000", "p")
    await connected(client)
    await waitSubscribers(server, 1)
    for (let i = 0; i < 3; i++) await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade() })
    await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade({ usd: 100 }) })
    await server.publish({ _tag: "MoveRecorded", move: aStoredMove() })
    await client.waitFor((f) => f.event === "move")
    expect(client.frames.filter((f) => f.event === "trade")).toHaveLength(3)
    await new Promise((r) => setTimeout(r, 200))
    expect(await server.counter(allowance)).toBe(0) // not yet a minute
    clock.advance(60_000)
    await eventually(async () => expect(await server.counter(allowance)).toBe(3))
    // The open stream used one request of the new minute's window.
    expect(await server.counter(`rate:${p.keyId}:${Math.floor(clock.now() / 60_000)}`)).toBe(1)
    await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade() })
    await client.waitFor((f) => f.event === "trade" && client.frames.filter((x) => x.event === "trade").length === 4)
    await new Promise((r) => setTimeout(r, 200))
    expect(await server.counter(allowance)).toBe(3)
    client.close()
    await eventually(async () => expect(await server.counter(allowance)).toBe(4))
  })

  it("sends `event: error` naming the reset when the allowance is spent, closes, and refuses new streams until reset (moves-only ones too: spec, Stream rule 3)", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 15, 23, 0, 0))
    const p = aPrincipal()
    const server = await start({ keys: memoryKeys({ p }), clock: clock.layer, allowance: 3 })
    const client = await sse(server, "", "p")
    await connected(client)
    await waitSubscribers(server, 1)
    for (let i = 0; i < 5; i++) await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade() })
    const error = await client.waitFor((f) => f.event === "error")
    expect(JSON.parse(error.data ?? "")).toEqual({
      code: "QUOTA_EXCEEDED",
      error: expect.stringContaining("resets at midnight UTC (2026-01-16T00:00:00.000Z"),
    })
    await client.ended
    expect(client.frames.filter((f) => f.event === "trade")).toHaveLength(3)
    expect(client.frames[client.frames.length - 1]?.event).toBe("error")
    const refused = await sse(server, "", "p")
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("3600")
    expect(await refused.json()).toMatchObject({ code: "QUOTA_EXCEEDED" })
    const movesOnly = await sse(server, "?channels=moves", "p")
    expect(movesOnly.status).toBe(429)
    expect(await movesOnly.json()).toMatchObject({ code: "QUOTA_EXCEEDED" })
    clock.advance(3_600_000)
    const tomorrow = await sse(server, "", "p")
    expect(tomorrow.status).toBe(200)
  })

  it("a shutdown ends the open streams instead of waiting for their clients to leave", async () => {
    const server = await startStreamServer({ keys })
    const client = await sse(server)
    await connected(client)
    const closed = server.close().then(() => "closed")
    const outcome = await Promise.race([closed, new Promise((r) => setTimeout(() => r("still waiting"), 5_000))])
    expect(outcome).toBe("closed")
    await client.ended
  })

  it("pings every 25 seconds of clock", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 15, 12, 0, 0))
    const server = await start({ clock: clock.layer })
    const client = await sse(server)
    await connected(client)
    await new Promise((r) => setTimeout(r, 150))
    expect(client.frames.some((f) => f.comment === "ping")).toBe(false)
    clock.advance(25_000)
    await client.waitFor((f) => f.comment === "ping")
  })

  it("drops a client that does not read once its buffer overflows, without holding up the others", async () => {
    const server = await start({ door: { maxBufferBytes: 256 * 1024 } })
    const { request } = await import("node:http")
    const url = new URL(`${server.url}/v2/stream`)
    // A client that never reads: pause the socket after the headers.
    const stalled = await new Promise<import("node:http").IncomingMessage>((resolve) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: "Bearer other" } }, (res) => {
        res.pause()
        resolve(res)
      })
      req.end()
    })
    const reader = await sse(server)
    await connected(reader)
    await waitSubscribers(server, 2)
    const big = "x".repeat(10_000)
    for (let i = 0; i < 1_500; i++) {
      await server.publish({ _tag: "TradeRecorded", trade: aStoredTrade({ title: big }) })
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 5))
    }
    await eventually(() => expect(server.subscribers()).toBe(1), 5_000)
    await reader.waitFor(() => reader.frames.filter((f) => f.event === "trade").length === 1_500, 10_000)
    stalled.destroy()
  })
})

const eventually = async (check: () => unknown, ms = 3_000): Promise<void> => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      await check()
      return
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 25))
    }
  }
}
