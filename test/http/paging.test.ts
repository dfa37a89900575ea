// Paging and repeatable filters over the test listing: limits, full walks, cursor misuse.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "../support/http-client.js"
import { startServer, type RunningServer } from "../support/http-server.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { ROWS, testOperations } from "../support/test-operations.js"

let server: RunningServer
let otherSecret: RunningServer
// Each key gets its own per-minute budget; the walks below make well over 120 requests in all.
const tokens = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, aPrincipal()]))
let next = 0
const token = () => `k${next++ % 12}`
const get = (path: string, t = token()) => call(server.url, path, { token: t })

beforeAll(async () => {
  const keys = memoryKeys({ ...tokens, other: aPrincipal() })
  server = await startServer({ operations: testOperations, keys })
  otherSecret = await startServer({ operations: testOperations, keys, cursorSecret: "another-secret" })
})
afterAll(async () => {
  await server.close()
  await otherSecret.close()
})

const walk = async (query: string, t: string) => {
  const ids: Array<number> = []
  let cursor: string | null = null
  let pages = 0
  do {
    const a = await get(`/v2/test-rows?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, t)
    expect(a.status).toBe(200)
    ids.push(...a.body.data.map((r: { id: number }) => r.id))
    cursor = a.body.nextCursor
    pages += 1
  } while (cursor !== null)
  return { ids, pages }
}

describe("limit", () => {
  it("defaults to 50", async () => {
    const a = await get("/v2/test-rows")
    expect(a.body.data).toHaveLength(50)
  })

  it("accepts 1 and 200", async () => {
    expect((await get("/v2/test-rows?limit=1")).body.data).toHaveLength(1)
    expect((await get("/v2/test-rows?limit=200")).body.data).toHaveLength(200)
  })

  it("refuses 0 and 201 with VALIDATION naming limit", async () => {
    for (const limit of ["0", "201", "-1", "abc", ""]) {
      const a = await get(`/v2/test-rows?limit=${limit}`)
      expect(a.status).toBe(400)
      expect(a.body).toEqual({ success: false, error: "limit must be an integer from 1 to 200", code: "VALIDATION" })
    }
  })

  it("refuses a repeated limit", async () => {
    const a = await get("/v2/test-rows?limit=1&limit=2")
    expect(a.status).toBe(400)
    expect(a.body.code).toBe("VALIDATION")
  })
})

describe("cursor walk", () => {
  it("visits every row once, in order, and ends with nextCursor null", async () => {
    const { ids, pages } = await walk("limit=50", "other")
    expect(ids).toEqual(ROWS.map((r) => r.id))
    expect(pages).toBe(5)
  })

  it("walks a filtered listing with no gap and no duplicate", async () => {
    const { ids } = await walk("limit=7&color=red&color=blue", "other")
    expect(ids).toEqual(ROWS.filter((r) => r.color !== "green").map((r) => r.id))
  })

  it("nextCursor is null on a last page that is exactly full", async () => {
    const a = await get("/v2/test-rows?limit=200&color=red")
    expect(a.body.data).toHaveLength(79)
    expect(a.body.nextCursor).toBeNull()
    const exact = await get(`/v2/test-rows?limit=200`, "other")
    const last = await get(`/v2/test-rows?limit=37&cursor=${encodeURIComponent(exact.body.nextCursor)}`, "other")
    expect(last.status).toBe(200)
    expect(last.body.data).toHaveLength(37)
    expect(last.body.nextCursor).toBeNull()
  })
})

describe("cursor misuse", () => {
  const invalid = { success: false, error: "cursor is not valid for this listing", code: "VALIDATION" }
  const firstCursor = async (t = "other") => (await get("/v2/test-rows?limit=3", t)).body.nextCursor as string

  it("a cursor from another listing is VALIDATION", async () => {
    const cursor = await firstCursor()
    const a = await get(`/v2/test-other-rows?limit=3&cursor=${encodeURIComponent(cursor)}`, "other")
    expect(a.status).toBe(400)
    expect(a.body).toEqual(invalid)
  })

  it("a cursor used with other filters is VALIDATION", async () => {
    const cursor = await firstCursor()
    const a = await get(`/v2/test-rows?limit=3&color=red&cursor=${encodeURIComponent(cursor)}`, "other")
    expect(a.body).toEqual(invalid)
  })

  it("a cursor used by another account is VALIDATION", async () => {
    const cursor = await firstCursor()
    expect((await get(`/v2/test-rows?limit=3&cursor=${encodeURIComponent(cursor)}`, "k0")).body).toEqual(invalid)
  })

  it("a forged, edited or garbled cursor is VALIDATION", async () => {
    const cursor = await firstCursor()
    const [body, mac] = cursor.split(".") as [string, string]
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    const edited = Buffer.from(JSON.stringify({ ...payload, k: 100 })).toString("base64url")
    const forged = [
      `${edited}.${mac}`,
      `${body}.${mac.slice(0, -2)}AA`,
      `${body}`,
      "garbage",
      "a.b.c",
      `${body}.${mac}.x`,
      "%%%",
    ]
    for (const c of forged) {
      const a = await get(`/v2/test-rows?limit=3&cursor=${encodeURIComponent(c)}`, "other")
      expect(a.status, c).toBe(400)
      expect(a.body, c).toEqual(invalid)
    }
  })

  it("a cursor signed with another secret is VALIDATION", async () => {
    const cursor = await firstCursor()
    const a = await call(otherSecret.url, `/v2/test-rows?limit=3&cursor=${encodeURIComponent(cursor)}`, { token: "other" })
    expect(a.body).toEqual(invalid)
  })
})

describe("repeatable filters", () => {
  it("accepts one value as a one-element filter", async () => {
    const a = await get("/v2/test-rows?color=green&limit=3")
    expect(a.body.data.map((r: { color: string }) => r.color)).toEqual(["green", "green", "green"])
  })

  it("OR-combines repeated values", async () => {
    const a = await get("/v2/test-rows?color=green&color=blue&limit=4")
    expect(a.body.data.map((r: { id: number }) => r.id)).toEqual([2, 3, 5, 6])
  })

  it("accepts 50 values and refuses the 51st with VALIDATION naming the key", async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `color=${["red", "green", "blue"][i % 3]}`).join("&")
    expect((await get(`/v2/test-rows?limit=1&${fifty}`)).status).toBe(200)
    const a = await get(`/v2/test-rows?limit=1&${fifty}&color=red`)
    expect(a.status).toBe(400)
    expect(a.body).toEqual({ success: false, error: "color takes at most 50 values", code: "VALIDATION" })
  })

  it("an invalid value is VALIDATION naming the key", async () => {
    for (const q of ["color=pink", "color=red&color=pink"]) {
      const a = await get(`/v2/test-rows?${q}`)
      expect(a.status).toBe(400)
      expect(a.body.code).toBe("VALIDATION")
      expect(a.body.error).toContain("`color")
    }
  })
})
