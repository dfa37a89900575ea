// Leases (migration 19): who may take a lease, when, and at which epoch; renewal and release by its holder
// only; `hold`, the store's half of the write fence: true only at the holder's epoch, and a takeover waits
// for the transaction that holds it (on a real PostgreSQL, where two transactions can run at once).
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Exit, Fiber, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Leases } from "../../src/store/leases.js"
import { databaseUrl, TestDb } from "../support/db.js"

const db = ManagedRuntime.make(TestDb)
afterAll(() => db.dispose())
const run = <A>(e: Effect.Effect<A, unknown, SqlClient.SqlClient>) => db.runPromise(e as Effect.Effect<A, never, SqlClient.SqlClient>)

let n = 0
const aName = () => `lease_${process.pid}_${++n}`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("Leases", () => {
  it("the first node takes it at epoch 1; another cannot while it lasts; the holder can renew and take it back", async () => {
    const name = aName()
    expect(await run(Leases.holder(name))).toBeNull()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(1)
    expect(await run(Leases.acquire({ name, nodeId: "b", url: "http://b", ttlMs: 60_000 }))).toBeNull()
    const held = await run(Leases.holder(name))
    expect(held).toEqual({ nodeId: "a", url: null, epoch: 1, live: true, remainingMs: expect.any(Number) })
    // Its time left, by the database's clock.
    expect(held?.remainingMs).toBeGreaterThan(50_000)
    expect(held?.remainingMs).toBeLessThanOrEqual(60_000)
    expect(await run(Leases.renew({ name, nodeId: "a", epoch: 1, ttlMs: 60_000, url: "http://a" }))).toBe(true)
    expect(await run(Leases.holder(name))).toMatchObject({ url: "http://a" })
    // A renewal without a url keeps the one it has.
    expect(await run(Leases.renew({ name, nodeId: "a", epoch: 1, ttlMs: 60_000 }))).toBe(true)
    expect(await run(Leases.holder(name))).toMatchObject({ url: "http://a" })
    // Restarted under the same id: taken back at once, at a new epoch; the old epoch no longer renews.
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(2)
    expect(await run(Leases.renew({ name, nodeId: "a", epoch: 1, ttlMs: 60_000 }))).toBe(false)
    expect(await run(Leases.renew({ name, nodeId: "b", epoch: 2, ttlMs: 60_000 }))).toBe(false)
  })

  it("once it has expired another node takes it, and the old holder can neither renew nor release it", async () => {
    const name = aName()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: "http://a", ttlMs: 200 }))).toBe(1)
    expect(await run(Leases.acquire({ name, nodeId: "b", url: "http://b", ttlMs: 60_000 }))).toBeNull()
    await sleep(300)
    expect(await run(Leases.holder(name))).toMatchObject({ nodeId: "a", live: false, remainingMs: 0 })
    expect(await run(Leases.acquire({ name, nodeId: "b", url: "http://b", ttlMs: 60_000 }))).toBe(2)
    expect(await run(Leases.renew({ name, nodeId: "a", epoch: 1, ttlMs: 60_000 }))).toBe(false)
    await run(Leases.release({ name, nodeId: "a", epoch: 1 }))
    expect(await run(Leases.holder(name))).toEqual({ nodeId: "b", url: "http://b", epoch: 2, live: true, remainingMs: expect.any(Number) })
  })

  it("released by its holder, it is free at once", async () => {
    const name = aName()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(1)
    await run(Leases.release({ name, nodeId: "a", epoch: 1 }))
    expect(await run(Leases.holder(name))).toMatchObject({ live: false })
    expect(await run(Leases.acquire({ name, nodeId: "b", url: null, ttlMs: 60_000 }))).toBe(2)
  })

  it("hold: true in a transaction at the holder's node and epoch; false at an older epoch, another node, or a lease never taken", async () => {
    const name = aName()
    const inTx = (token: { nodeId: string; epoch: number }, lease = name) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Leases.hold({ name: lease, ...token, idleMs: 5_000 }))))
    expect(await inTx({ nodeId: "a", epoch: 1 })).toBe(false)
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(1)
    expect(await inTx({ nodeId: "a", epoch: 1 })).toBe(true)
    expect(await inTx({ nodeId: "b", epoch: 1 })).toBe(false)
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(2)
    expect(await inTx({ nodeId: "a", epoch: 1 })).toBe(false)
    expect(await inTx({ nodeId: "a", epoch: 2 })).toBe(true)
    // Expired but not taken: still the holder's (nobody else writes until a node takes it).
    await run(Leases.release({ name, nodeId: "a", epoch: 2 }))
    expect(await inTx({ nodeId: "a", epoch: 2 })).toBe(true)
  })
})

describe.runIf(databaseUrl() !== undefined)("Leases.hold against a takeover (PostgreSQL)", () => {
  /** A transaction that holds `name` at a's epoch 1 and commits when `done` is completed; whether it held. */
  const holding = (name: string, idleMs: number, done: Deferred.Deferred<void>) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.zipLeft(Leases.hold({ name, nodeId: "a", epoch: 1, idleMs }), Deferred.await(done))))

  it("a takeover waits for the transaction that holds the lease, and then the old epoch holds no more", async () => {
    const name = aName()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 200 }))).toBe(1)
    const done = await Effect.runPromise(Deferred.make<void>())
    const writer = await run(Effect.forkDaemon(holding(name, 10_000, done)))
    await sleep(300) // expired now, and a's transaction holds the row
    const takeover = await run(Effect.forkDaemon(Leases.acquire({ name, nodeId: "b", url: null, ttlMs: 60_000 })))
    await sleep(400)
    expect(await Effect.runPromise(Fiber.poll(takeover))).toMatchObject({ _tag: "None" })
    await Effect.runPromise(Deferred.succeed(done, undefined))
    expect(await run(Fiber.join(writer))).toBe(true)
    expect(await run(Fiber.join(takeover))).toBe(2)
    const after = await run(Effect.forkDaemon(holding(name, 10_000, done)))
    expect(await run(Fiber.join(after))).toBe(false)
  })

  it("a writer that sits idle in its transaction longer than idleMs is ended by the server, and the takeover goes on", async () => {
    const name = aName()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 200 }))).toBe(1)
    const never = await Effect.runPromise(Deferred.make<void>())
    const writer = await run(Effect.forkDaemon(holding(name, 300, never)))
    await sleep(300)
    const startedAt = performance.now()
    expect(await run(Leases.acquire({ name, nodeId: "b", url: null, ttlMs: 60_000 }).pipe(Effect.timeout("5 seconds")))).toBe(2)
    expect(performance.now() - startedAt).toBeLessThan(5_000)
    await run(Fiber.interrupt(writer))
    expect(Exit.isSuccess(await run(Fiber.await(writer)))).toBe(false)
  })
})
