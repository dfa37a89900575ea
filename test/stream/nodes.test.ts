// Two service nodes on one Redis: a frame published on one node's IntelBus reaches the stream
// subscribers of both, once each; stream slots are shared, so the 4th stream of a key is refused
// whichever node it lands on.
import { randomBytes } from "node:crypto"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Counters } from "../../src/store/counters.js"
import { Redis } from "../../src/store/redis.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { aStoredTrade } from "./builders.js"
import { openSse, startStreamServer, type SseClient, type StreamServer } from "./stream-server.js"

const redisUrl = process.env["REDIS_URL"]

describe.runIf(redisUrl !== undefined && redisUrl !== "")("two nodes on one Redis", () => {
  const principal = aPrincipal()
  const keys = memoryKeys({ tok: principal })
  const nodes: Array<StreamServer> = []
  const clients: Array<SseClient> = []

  beforeAll(async () => {
    const prefix = `ww:test:${randomBytes(4).toString("hex")}:`
    for (let i = 0; i < 2; i++) {
      const redis = Redis.layer(redisUrl as string)
      nodes.push(await startStreamServer({
        keys,
        redis,
        counters: Counters.redis({ prefix }).pipe(Layer.provide(redis)),
      }))
    }
  })
  afterAll(async () => {
    for (const c of clients) c.close()
    for (const n of nodes) await n.close()
  })

  it("delivers a trade published on one node to the subscribers of both, once each", async () => {
    const [a, b] = nodes as [StreamServer, StreamServer]
    const onA = await openSse(`${a.url}/v2/stream`, "tok")
    const onB = await openSse(`${b.url}/v2/stream`, "tok")
    clients.push(onA, onB)
    for (const c of [onA, onB]) await c.waitFor((f) => f.comment === "connected")
    const trade = aStoredTrade()
    await a.publish({ _tag: "TradeRecorded", trade })
    // The same trade recorded by the other node too (both ingest): still one frame each.
    await b.publish({ _tag: "TradeRecorded", trade })
    for (const c of [onA, onB]) {
      const frame = await c.waitFor((f) => f.event === "trade")
      expect(JSON.parse(frame.data ?? "").id).toBe(trade.id)
    }
    const later = aStoredTrade()
    await b.publish({ _tag: "TradeRecorded", trade: later })
    for (const c of [onA, onB]) await c.waitFor((f) => f.event === "trade" && JSON.parse(f.data ?? "").id === later.id)
    for (const c of [onA, onB]) expect(c.frames.filter((f) => f.event === "trade").map((f) => JSON.parse(f.data ?? "").id)).toEqual([trade.id, later.id])
  })

  it("counts a key's streams across nodes: the 4th is refused", async () => {
    const [a, b] = nodes as [StreamServer, StreamServer]
    // Two are open from the previous test.
    const third = await openSse(`${a.url}/v2/stream`, "tok")
    clients.push(third)
    expect(third.status).toBe(200)
    const fourth = await openSse(`${b.url}/v2/stream`, "tok")
    clients.push(fourth)
    expect(fourth.status).toBe(429)
    expect((await fourth.json()).code).toBe("QUOTA_EXCEEDED")
  })
})
