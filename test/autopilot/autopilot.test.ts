// PATCH /v1/traders/{platform}/{traderId}/autopilot (set_autopilot) end to end over the real Bots layer:
// paper autopilot creates, pauses and resumes the account's trader bot (the same bot GET /v2/bots/{id}
// shows), live autopilot is refused with the spec's codes, and bad input is VALIDATION naming the field.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LIVE_KEY_BLOCKER, setAutopilot } from "../../src/operations/v1-autopilot.js"
import type { Operation } from "../../src/operations/operation.js"
import { startBotsServer, type BotsServer } from "../bots/server.js"

let s: BotsServer
beforeAll(async () => {
  s = await startBotsServer([setAutopilot as unknown as Operation<any, any, any>])
  await s.known("venue_a:ann", "Ann")
  await s.known("venue_b:0xwhale", null)
  await s.known(`venue_b:${WALLET}`, null)
})
const WALLET = "0x3cabc5f2a0f21e33b7d1c0aa4e6f9e0b11c2d3f1"
afterAll(() => s.close())

const autopilot = (path: string, body: unknown, token: "write" | "read" | "other" = "write") =>
  s.as(token, `/v1/traders/${path}/autopilot`, { method: "PATCH", body })

describe("PATCH /v1/traders/{platform}/{traderId}/autopilot", () => {
  it("paper: enabling creates the trader bot, disabling pauses it, enabling again resumes it with new settings", async () => {
    const on = await autopilot("venue_a/ann", { enabled: true, sizing: { usd: 25 }, mirrorExits: true })
    expect(on.status).toBe(200)
    expect(on.body.data).toMatchObject({
      trader: "venue_a:ann", platform: "venue_a", traderId: "ann", mode: "paper", enabled: true,
      bot: { kind: "trader", status: "running", name: "Ann", settings: { trader: { ref: "venue_a:ann" }, sizing: { usd: 25 }, mirrorExits: true } },
    })
    const id = on.body.data.bot.id as string
    const off = await autopilot("venue_a/ann", { enabled: false })
    expect(off.body.data).toMatchObject({ enabled: false, bot: { id, status: "paused" } })
    expect((await s.as("write", `/v2/bots/${encodeURIComponent(id)}`)).body.data.status).toBe("paused")
    const again = await autopilot("venue_a/ann", { enabled: true, sizing: { percent: 10, maxUsd: 50 } })
    expect(again.body.data).toMatchObject({ enabled: true, bot: { id, status: "running", settings: { sizing: { percent: 10, maxUsd: 50 } } } })
    // Still one bot on that trader.
    expect((await s.as("write", "/v2/bots?kind=trader")).body.data.filter((b: { id: string }) => b.id === id)).toHaveLength(1)
  })

  it("paper: five \"on\" at once are each answered 200 with the same one bot", async () => {
    await s.known("venue_a:cal", "Cal")
    const answers = await Promise.all(Array.from({ length: 5 }, () => autopilot("venue_a/cal", { enabled: true, sizing: { usd: 10 } }, "other")))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
    const ids = new Set(answers.map((a) => a.body.data.bot.id as string))
    expect(ids.size).toBe(1)
    expect((await s.as("other", "/v2/bots?kind=trader")).body.data.filter((b: { name: string }) => b.name === "Cal")).toHaveLength(1)
  })

  it("paper: \"on\" while POST /v2/bots creates a bot on the same trader is answered 200 with that bot", async () => {
    for (let round = 0; round < 5; round++) {
      const name = `Race${round}`
      await s.known(`venue_a:race${round}`, name)
      const [created, on] = await Promise.all([
        s.as("other", "/v2/bots", { method: "POST", body: { trigger: { trader: `venue_a:race${round}` }, sizing: { usd: 5 } } }),
        autopilot(`venue_a/race${round}`, { enabled: true }, "other"),
      ])
      // Whichever came first created the one bot; the other found it (the POST's own refusal is the spec's).
      expect(on.status, JSON.stringify(on.body)).toBe(200)
      const bots = (await s.as("other", "/v2/bots?kind=trader")).body.data.filter((b: { name: string }) => b.name === name)
      expect(bots).toHaveLength(1)
      expect(on.body.data.bot.id).toBe(bots[0].id)
      if (created.status === 201) expect(created.body.data.id).toBe(bots[0].id)
    }
  })

  it("paper: \"on\" while DELETE /v2/bots ends the trader's bot is answered 200 (a new bot, or the old one before it ended)", async () => {
    await s.known("venue_a:gone", "Gone")
    for (let round = 0; round < 5; round++) {
      const first = await autopilot("venue_a/gone", { enabled: true }, "other")
      const id = first.body.data.bot.id as string
      const [removed, on] = await Promise.all([
        s.as("other", `/v2/bots/${encodeURIComponent(id)}`, { method: "DELETE" }),
        autopilot("venue_a/gone", { enabled: true }, "other"),
      ])
      expect(removed.status).toBe(200)
      expect(on.status, JSON.stringify(on.body)).toBe(200)
      const live = (await s.as("other", "/v2/bots?kind=trader&status=running")).body.data.filter((b: { name: string }) => b.name === "Gone")
      expect(live.length).toBeLessThanOrEqual(1)
      if (on.body.data.bot.id !== id) expect(live.map((b: { id: string }) => b.id)).toEqual([on.body.data.bot.id])
    }
  })

  it("paper, disabled, with no bot: nothing to stop; another account's bot is not this account's autopilot", async () => {
    expect((await autopilot("venue_b/0xwhale", { enabled: false })).body.data).toMatchObject({ enabled: false, bot: null })
    expect((await autopilot("venue_a/ann", { enabled: false }, "other")).body.data).toMatchObject({ enabled: false, bot: null })
  })

  it("an ended trader bot is not the autopilot any more: disabling finds none, enabling creates a new bot", async () => {
    const on = await autopilot("venue_b/0xwhale", { enabled: true })
    const id = on.body.data.bot.id as string
    expect((await s.as("write", `/v2/bots/${encodeURIComponent(id)}`, { method: "DELETE" })).status).toBe(200)
    expect((await autopilot("venue_b/0xwhale", { enabled: false })).body.data).toMatchObject({ enabled: false, bot: null })
    const again = await autopilot("venue_b/0xwhale", { enabled: true })
    expect(again.status).toBe(200)
    expect(again.body.data).toMatchObject({ enabled: true, bot: { status: "running", settings: { trader: { ref: "venue_b:0xwhale" } } } })
    expect(again.body.data.bot.id).not.toBe(id)
  })

  it("live: venue_b is LIVE_TRADING_UNAVAILABLE, venue_a AUTOPILOT_NOT_READY (no connected key); disabling answers off", async () => {
    const b = await autopilot("venue_b/0xwhale", { enabled: true, mode: "live" })
    expect(b.status).toBe(403)
    expect(b.body.code).toBe("LIVE_TRADING_UNAVAILABLE")
    const a = await autopilot("venue_a/ann", { enabled: true, mode: "live" })
    expect(a.status).toBe(409)
    expect(a.body).toEqual({ success: false, error: `autopilot cannot start: ${LIVE_KEY_BLOCKER}`, code: "AUTOPILOT_NOT_READY" })
    expect((await autopilot("venue_a/ann", { enabled: false, mode: "live" })).body.data).toMatchObject({ mode: "live", enabled: false, bot: null })
  })

  it("answers a venue_b wallet given in upper case in lower case, as its ref", async () => {
    const on = await autopilot(`venue_b/${WALLET.toUpperCase().replace("0X", "0x")}`, { enabled: true })
    expect(on.status).toBe(200)
    expect(on.body.data).toMatchObject({ trader: `venue_b:${WALLET}`, platform: "venue_b", traderId: WALLET, bot: { settings: { trader: { ref: `venue_b:${WALLET}` } } } })
  })

  it("refuses bad input with VALIDATION naming the field, unknown traders with NOT_FOUND; needs write", async () => {
    const expectCode = async (answer: Promise<{ status: number; body: any }>, status: number, code: string, field?: string) => {
      const r = await answer
      expect(r.status, JSON.stringify(r.body)).toBe(status)
      expect(r.body.code).toBe(code)
      if (field !== undefined) expect(r.body.error).toContain(field)
    }
    await expectCode(autopilot("venue_d/someone", { enabled: true }), 400, "VALIDATION", "platform")
    await expectCode(autopilot("venue_a/ann", {}), 400, "VALIDATION", "enabled")
    await expectCode(autopilot("venue_a/ann", { enabled: true, mode: "real" }), 400, "VALIDATION", "mode")
    await expectCode(autopilot("venue_a/ann", { enabled: true, sizing: { usd: 0 } }), 400, "VALIDATION", "sizing")
    await expectCode(autopilot("venue_a/ann", { enabled: true, extra: 1 }), 400, "VALIDATION", "extra")
    await expectCode(autopilot("venue_a/nobody", { enabled: true }), 404, "NOT_FOUND")
    // Turning it off is NOT_FOUND too for a trader that does not exist (a path-like handle included), live or paper.
    await expectCode(autopilot("venue_a/nobody", { enabled: false }), 404, "NOT_FOUND")
    await expectCode(autopilot("venue_b/..%2F..%2Fetc%2Fpasswd", { enabled: false }), 404, "NOT_FOUND")
    await expectCode(autopilot("venue_a/nobody", { enabled: false, mode: "live" }), 404, "NOT_FOUND")
    await expectCode(autopilot("venue_a/ann", { enabled: true }, "read"), 403, "SCOPE_REQUIRED")
  })
})
