// The per-minute limit: 120 requests per key and minute window, headers on every authenticated
// answer, 429 with retry-after, extra units charged by an operation, and one limit shared by two
// server instances on one Redis.
import { randomUUID } from "node:crypto"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Counters } from "../../src/store/counters.js"
import { Redis } from "../../src/store/redis.js"
import { call } from "../support/http-client.js"
import { startServer, type RunningServer } from "../support/http-server.js"
import { manualClock } from "../support/manual-clock.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { testOperations } from "../support/test-operations.js"

// Ten seconds into a minute: the window resets 50 s later.
const START = Date.UTC(2030, 0, 1, 0, 0, 10)
const clock = manualClock(START)
const keys = memoryKeys({ a: aPrincipal(), b: aPrincipal(), c: aPrincipal(), shared: aPrincipal() })
let server: RunningServer

beforeAll(async () => {
  server = await startServer({ operations: testOperations, keys, clock: clock.layer })
})
afterAll(() => server.close())

const rate = (headers: Headers) => ({
  limit: headers.get("x-ratelimit-limit"),
  remaining: headers.get("x-ratelimit-remaining"),
  reset: headers.get("x-ratelimit-reset"),
})

describe("requests per minute", () => {
  it("passes the 120th request and refuses the 121st with 429, retry-after and the headers", async () => {
    for (let i = 1; i <= 120; i++) {
      const a = await call(server.url, "/v2/test-things/1", { token: "a" })
      expect(a.status).toBe(200)
      expect(rate(a.headers)).toEqual({ limit: "120", remaining: String(120 - i), reset: "50" })
    }
    const refused = await call(server.url, "/v2/test-things/1", { token: "a" })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ success: false, error: expect.any(String), code: "QUOTA_EXCEEDED" })
    expect(refused.headers.get("retry-after")).toBe("50")
    expect(rate(refused.headers)).toEqual({ limit: "120", remaining: "0", reset: "50" })
    // Another key is not affected; the next window starts afresh.
    expect((await call(server.url, "/v2/test-things/1", { token: "b" })).status).toBe(200)
    clock.advance(50_000)
    const next = await call(server.url, "/v2/test-things/1", { token: "a" })
    expect(next.status).toBe(200)
    expect(rate(next.headers)).toEqual({ limit: "120", remaining: "119", reset: "60" })
    clock.set(START)
  })

  it("counts failed authenticated requests and reports the headers on them", async () => {
    clock.set(START + 60_000 * 10)
    const a = await call(server.url, "/v2/test-rows?bogus=1", { token: "c" })
    expect(a.status).toBe(400)
    expect(rate(a.headers)).toEqual({ limit: "120", remaining: "119", reset: "50" })
    const b = await call(server.url, "/v2/no-route", { token: "c" })
    expect(b.status).toBe(404)
    clock.set(START)
  })

  it("charges extra units through the operation context, refunding a charge it refuses", async () => {
    clock.set(START + 60_000 * 20)
    const two = await call(server.url, "/v2/test-includes?include=a&include=b", { token: "b" })
    expect(two.status).toBe(200)
    expect(two.headers.get("x-trades-test")).toBe("2")
    expect(rate(two.headers).remaining).toBe("117")
    for (let i = 0; i < 115; i++) await call(server.url, "/v2/test-things/1", { token: "b" })
    // 2 left: the request itself takes 1, three includes would pass the limit.
    const three = await call(server.url, "/v2/test-includes?include=a&include=b&include=c", { token: "b" })
    expect(three.status).toBe(429)
    expect(three.body.code).toBe("QUOTA_EXCEEDED")
    // The sentence says what did not fit, as the headers do (1 remains): not "reached".
    expect(three.body.error).toBe("Rate limit of 120 requests per minute: this request's includes or sweep values count 3 more and 1 remain this minute; retry in 50 s")
    expect(three.headers.get("retry-after")).toBe("50")
    expect(rate(three.headers).remaining).toBe("1")
    const last = await call(server.url, "/v2/test-things/1", { token: "b" })
    expect(last.status).toBe(200)
    expect(rate(last.headers).remaining).toBe("0")
    clock.set(START)
  })
})

describe("with Redis", () => {
  it.runIf(process.env["REDIS_URL"])("two instances on one Redis share the limit", async () => {
    const url = process.env["REDIS_URL"] ?? ""
    // A prefix per run keeps repeated runs (and parallel files) apart.
    const counters = Counters.redis({ prefix: `test:${randomUUID()}:` }).pipe(Layer.provide(Redis.layer(url)))
    const shared = manualClock(START)
    const one = await startServer({ operations: testOperations, keys, counters, clock: shared.layer })
    const two = await startServer({ operations: testOperations, keys, counters, clock: shared.layer })
    try {
      for (let i = 1; i <= 120; i++) {
        const a = await call((i % 2 === 0 ? one : two).url, "/v2/test-things/1", { token: "shared" })
        expect(a.status).toBe(200)
        expect(a.headers.get("x-ratelimit-remaining")).toBe(String(120 - i))
      }
      for (const s of [one, two]) {
        const refused = await call(s.url, "/v2/test-things/1", { token: "shared" })
        expect(refused.status).toBe(429)
        expect(refused.headers.get("retry-after")).toBe("50")
      }
    } finally {
      await one.close()
      await two.close()
    }
  })
})
