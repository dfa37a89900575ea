// The bots' flush stores every dirty bot in one statement; when the store refuses it (a snapshot it cannot
// hold), each bot is stored alone, so one refused snapshot never holds back the others: they are stored,
// and the refused one stays dirty (retried each round) and is logged. An operation's own write that fails
// (a PATCH) leaves its bot dirty the same way. Bot writes take turns, so PATCHes at once leave the newest state stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startBotsServer, type BotsServer } from "./server.js"

let s: BotsServer
beforeAll(async () => {
  s = await startBotsServer()
})
afterAll(() => s.close())

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25))
  expect(await check()).toBe(true)
}

describe("bots' flush", () => {
  it("stores the other bots when the store refuses one bot's snapshot", async () => {
    const make = async (name: string) => (await s.as("write", "/v2/bots", { method: "POST", body: { name, trigger: { signal: { category: ["politics"] } } } })).body.data.id as string
    const bad = await make("Bad one")
    const good = await make("Good one")
    // A name the store cannot hold (the doors refuse such text; here it is put in the actor directly).
    s.bots.registry.sendSignal(bad, { type: "bot.configure", name: "bad\u0000name" })
    s.bots.registry.sendSignal(good, { type: "bot.configure", name: "Renamed" })
    s.bots.registry.dirty.add(bad)
    s.bots.registry.dirty.add(good)
    const nameOf = async (id: string) => (await s.sql<{ name: string }>((sql) => sql`SELECT name FROM bots WHERE id = ${id}`))[0]?.name
    await until(async () => (await nameOf(good)) === "Renamed")
    expect(await nameOf(bad)).toBe("Bad one")
    await until(async () => s.bots.registry.dirty.has(bad)) // still waiting, retried each round
  })

  it("PATCHes of one bot at once: the store ends with the state the API reads (a restart brings back the newest)", async () => {
    // Account B's bots, 8 PATCHes each, all at once (110 requests in all: inside the key's 120 a minute).
    const ids = await Promise.all(Array.from({ length: 11 }, async (_, b) =>
      (await s.as("other", "/v2/bots", { method: "POST", body: { name: `Racer ${b}`, trigger: { signal: { category: ["politics"] } } } })).body.data.id as string))
    await Promise.all(ids.flatMap((id) => Array.from({ length: 8 }, async (_, j) => {
      const patched = await s.as("other", `/v2/bots/${id}`, { method: "PATCH", body: { name: `${id} v${j}`, sizing: { usd: j + 1 } } })
      expect(patched.status).toBe(200)
    })))
    // Every PATCH was answered once stored; nothing is left for the flush to repair.
    for (const id of ids) {
      const read = (await s.as("other", `/v2/bots/${id}`)).body.data as { name: string }
      const stored = await s.sql<{ name: string }>((sql) => sql`SELECT name FROM bots WHERE id = ${id}`)
      expect(stored[0]?.name).toBe(read.name)
    }
  })

  it("a PATCH the store refuses answers INTERNAL and leaves the change to the flush, which stores it once the store takes it", async () => {
    const id = (await s.as("write", "/v2/bots", { method: "POST", body: { name: "Before", trigger: { signal: { category: ["politics"] } } } })).body.data.id as string
    await s.sql((sql) => sql`ALTER TABLE bots ADD CONSTRAINT bots_refuse_test CHECK (name <> 'Refused for now') NOT VALID`)
    try {
      const patched = await s.as("write", `/v2/bots/${id}`, { method: "PATCH", body: { name: "Refused for now" } })
      expect(patched.status).toBe(500)
      expect(patched.body).toMatchObject({ success: false, code: "INTERNAL" })
      await until(async () => s.bots.registry.dirty.has(id)) // not forgotten: retried each round (the flush may be mid-try)
    } finally {
      await s.sql((sql) => sql`ALTER TABLE bots DROP CONSTRAINT bots_refuse_test`)
    }
    const nameOf = async () => (await s.sql<{ name: string }>((sql) => sql`SELECT name FROM bots WHERE id = ${id}`))[0]?.name
    await until(async () => (await nameOf()) === "Refused for now")
  })
})
