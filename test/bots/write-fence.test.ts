// The bots' write fence (src/actors/write-fence.ts): while it refuses, a bot's change is not written,
// neither by its operation (PATCH answers 500: not acknowledged) nor by the flush, and the bot stays
// dirty; once the fence allows, the flush writes it (memory and store converge, as after a failed write).
// It refuses in two places: this node's own check (its token), and the store, when the lease row names
// another node or epoch than the token.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { leaseRow, testFence } from "../support/lease-row.js"
import { eventually } from "../support/eventually.js"
import { startBotsServer, type BotsServer } from "./server.js"

let s: BotsServer
const lease = `fence_bots_${process.pid}`
/** What this node believes: its epoch, or refused by its own check (null). */
let mine: number | null = 1
beforeAll(async () => {
  s = await startBotsServer([], undefined, testFence(lease, () => mine))
  await s.sql((sql) => leaseRow(sql, lease, "this-node", 1))
})
afterAll(() => s.close())

const storedName = async (id: string) => (await s.sql<{ name: string }>((sql) => sql`SELECT name FROM bots WHERE id = ${id}`))[0]?.name

/** A PATCH while refused: not acknowledged, not written by it nor by the flush, the bot kept dirty. */
const refusedUnwritten = async (id: string, was: string) => {
  const patched = await s.as("write", `/v2/bots/${id}`, { method: "PATCH", body: { name: `Renamed ${was}` } })
  expect(patched.status).toBe(500)
  await Effect.runPromise(s.bots.flush)
  expect(await storedName(id)).toBe(was)
  // Kept dirty for the next round: the background flush (every 50 ms) takes it and, refused, puts it back,
  // so at a given instant it may be in that flush's hands.
  await eventually(() => expect(s.bots.registry.dirty.has(id)).toBe(true))
}

describe("the bots' write fence", () => {
  it("refused by this node's check: nothing is written, flush or not; allowing: the flush writes it", async () => {
    const made = await s.as("write", "/v2/bots", { method: "POST", body: { name: "Fenced bot", trigger: { signal: { category: ["politics"] } } } })
    expect(made.status).toBe(201)
    const id = made.body.data.id as string
    mine = null
    await refusedUnwritten(id, "Fenced bot")
    mine = 1
    await Effect.runPromise(s.bots.flush)
    expect(await storedName(id)).toBe("Renamed Fenced bot")
  })

  it("refused by the store (another node took the lease): nothing is written; this node's again: the flush writes it", async () => {
    const made = await s.as("write", "/v2/bots", { method: "POST", body: { name: "Taken-over bot", trigger: { signal: { category: ["politics"] } } } })
    expect(made.status).toBe(201)
    const id = made.body.data.id as string
    await s.sql((sql) => leaseRow(sql, lease, "other-node", 2))
    await refusedUnwritten(id, "Taken-over bot")
    // A bot created meanwhile is refused with it: not acknowledged, not stored, not running here.
    const created = await s.as("write", "/v2/bots", { method: "POST", body: { name: "Born fenced", trigger: { signal: { category: ["sports"] } } } })
    expect(created.status).toBe(500)
    expect(await s.sql((sql) => sql`SELECT id FROM bots WHERE name = 'Born fenced'`)).toEqual([])
    expect([...s.bots.registry.ids()].some((b) => s.bots.registry.context(b)?.name === "Born fenced")).toBe(false)
    await s.sql((sql) => leaseRow(sql, lease, "this-node", 3))
    mine = 3
    await Effect.runPromise(s.bots.flush)
    expect(await storedName(id)).toBe("Renamed Taken-over bot")
  })
})
