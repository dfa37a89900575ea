// The bots' write fence (src/actors/write-fence.ts): while it refuses, a bot's change is not written,
// neither by its operation (PATCH answers 500: not acknowledged) nor by the flush, and the bot stays
// dirty; once the fence allows, the flush writes it (memory and store converge, as after a failed write).
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startBotsServer, type BotsServer } from "./server.js"

let s: BotsServer
let open = true
beforeAll(async () => {
  s = await startBotsServer([], undefined, {
    check: Effect.suspend(() => (open ? Effect.void : Effect.dieMessage("the lease is not surely this node's"))),
  })
})
afterAll(() => s.close())

const storedName = async (id: string) => (await s.sql<{ name: string }>((sql) => sql`SELECT name FROM bots WHERE id = ${id}`))[0]?.name

describe("the bots' write fence", () => {
  it("refusing: a PATCH is not acknowledged and nothing is written, flush or not; allowing: the flush writes it", async () => {
    const made = await s.as("write", "/v2/bots", { method: "POST", body: { name: "Fenced bot", trigger: { signal: { category: ["politics"] } } } })
    expect(made.status).toBe(201)
    const id = made.body.data.id as string
    open = false
    const patched = await s.as("write", `/v2/bots/${id}`, { method: "PATCH", body: { name: "Renamed while fenced" } })
    expect(patched.status).toBe(500)
    await Effect.runPromise(s.bots.flush)
    expect(await storedName(id)).toBe("Fenced bot")
    expect(s.bots.registry.dirty.has(id)).toBe(true)
    open = true
    await Effect.runPromise(s.bots.flush)
    expect(await storedName(id)).toBe("Renamed while fenced")
  })
})
