// The first-run promise of the README: `npm start` (= `node bin/whalewatch.js serve`) on a fresh
// DATA_DIR with embedded defaults answers /healthz, connects every venue feed of the in-process
// simulator, backfills its history, and the demo key it prints authenticates. Runs the real command as a child process.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { healthy, startService, type Service } from "../support/service.js"

let service: Service | undefined
const running = (): Service => {
  if (service === undefined) throw new Error("the service did not start")
  return service
}

beforeAll(async () => {
  service = await startService({ prefix: "whalewatch-start-", env: { HISTORY_DAYS: "2" } })
}, 120_000)

afterAll(async () => {
  await service?.stop()
})

describe("npm start on a fresh DATA_DIR", () => {
  it("becomes healthy once every venue feed is connected and history is backfilled", async () => {
    const body = await healthy(running(), 60_000)
    expect(Object.keys(body.checks).sort()).toEqual(["backfill", "database", "feed:venue_a", "feed:venue_b", "feed:venue_b_us", "feed:venue_d"])
  })

  it("prints a demo key that authenticates, and refuses a missing one", async () => {
    const { base, key } = running()
    const ok = await fetch(`${base}/v1/webhooks`, { headers: { authorization: `Bearer ${key}` } })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ success: true, data: [] })
    const missing = await fetch(`${base}/v1/webhooks`)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ success: false, code: "UNAUTHORIZED" })
  })

  it("shows backfilled price history on Get Market, for a settled market and an open one", async () => {
    const { base, key } = running()
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
      expect(response.status, path).toBe(200)
      return ((await response.json()) as { data: any }).data
    }
    for (const status of ["settled", "open"]) {
      const rows = (await get(`/v2/markets?status=${status}&limit=200`)) as Array<{ ref: string; contract: string | null }>
      const singles = rows.filter((r) => r.ref === r.contract) // history is for a single contract
      expect(singles.length, status).toBeGreaterThan(0)
      // History's bars are in the store: at least one such market shows a week of prices.
      let shown = 0
      for (const r of singles.slice(0, 20)) {
        const history = (await get(`/v2/markets/${encodeURIComponent(r.ref)}?include=history&range=7d`)).history
        if (history !== null && history.prices.length > 0) shown++
      }
      expect(shown, status).toBeGreaterThan(0)
    }
  })

  it("knows every listed market for paper orders and bots in the run that backfilled it (never NOT_FOUND)", async () => {
    const { base, key } = running()
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    let checked = 0
    for (const status of ["settled", "open"]) {
      const rows = (await call("GET", `/v2/markets?status=${status}&limit=200`)).body.data as Array<{ ref: string }>
      for (const r of rows.slice(0, 15)) {
        // Settled ones (many listed and settled during the backfill) are refused as not open, open ones
        // are filled or refused on their book: never "No market has that ref".
        const order = await call("POST", "/v2/paper-orders", { market: r.ref, outcome: "yes", action: "buy", usd: 1 })
        expect(order.status, `${r.ref} ${JSON.stringify(order.body)}`).not.toBe(404)
        if (status === "settled") {
          const bot = await call("POST", "/v2/bots", { trigger: { market: r.ref, outcome: "yes", rule: {} } })
          expect(bot.status, `${r.ref} ${JSON.stringify(bot.body)}`).toBe(400)
        }
        checked++
      }
    }
    expect(checked).toBeGreaterThan(5)
  })
})

