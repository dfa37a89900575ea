// GET /v1/markets/search over the seeded markets: the open markets GET /v2/markets finds for the same q
// (same rows, same order), the platform filter, limit at its edges, and the VALIDATION cases.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApiFixture, type Fixture } from "../support/api-fixture.js"
import { call } from "../support/http-client.js"

let f: Fixture
beforeAll(async () => {
  f = await startApiFixture()
})
afterAll(async () => {
  await f?.close()
})

const search = (query: string) => call(f.url, `/v1/markets/search${query}`, { token: f.token() })

describe("GET /v1/markets/search", () => {
  it("finds the open markets GET /v2/markets finds for q, in its order, in the v1 envelope", async () => {
    for (const q of ["bitcoin", "who wins", "lakers", "celtics", "nothing-like-this"]) {
      const v1 = await search(`?q=${encodeURIComponent(q)}`)
      expect(v1.status, q).toBe(200)
      expect(v1.body.success).toBe(true)
      const v2 = await call(f.url, `/v2/markets?status=open&limit=200&q=${encodeURIComponent(q)}`, { token: f.token() })
      expect(v1.body.data.markets, q).toEqual(v2.body.data)
      expect(v1.body.data.limit).toBe(50)
    }
    const election = (await search("?q=who%20wins")).body.data.markets
    expect(election.map((m: { ref: string }) => m.ref)).toEqual(["venue_a:event:E1"])
  })

  it("filters by platform and cuts at limit", async () => {
    const crypto = (await search("?q=bitcoin&platform=venue_d")).body.data.markets
    expect(crypto.length).toBeGreaterThan(0)
    expect(crypto.every((m: { venue: string }) => m.venue === "venue_d")).toBe(true)
    expect((await search("?q=bitcoin&platform=venue_a")).body.data.markets).toEqual([])
    expect((await search("?q=bitcoin&platform=venue_g")).body.data.markets).toEqual([])
    const many = (await search("?q=e&limit=200")).body.data.markets
    expect(many.length).toBeGreaterThan(1)
    expect((await search("?q=e&limit=1")).body.data.markets).toEqual(many.slice(0, 1))
  })

  it("refuses bad parameters with VALIDATION naming them", async () => {
    for (const [query, message] of [
      ["", "`q` is required"],
      ["?q=", "q must hold at least one word"],
      ["?q=%20%20", "q must hold at least one word"],
      [`?q=${"x".repeat(201)}`, "q"],
      ["?q=a&limit=0", "limit must be an integer from 1 to 200"],
      ["?q=a&limit=201", "limit must be an integer from 1 to 200"],
      ["?q=a&status=settled", "Unknown query parameter `status`"],
    ] as const) {
      const a = await search(query)
      expect(a.status, query).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
      expect(a.body.error).toContain(message)
    }
    expect((await search(`?q=${"x".repeat(200)}`)).status).toBe(200)
  })
})
