// Leases (migration 19): who may take a lease, when, and at which epoch; renewal and release by its holder only.
import type { SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Leases } from "../../src/store/leases.js"
import { TestDb } from "../support/db.js"

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
    expect(await run(Leases.holder(name))).toEqual({ nodeId: "a", url: null, epoch: 1, live: true })
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
    expect(await run(Leases.holder(name))).toMatchObject({ nodeId: "a", live: false })
    expect(await run(Leases.acquire({ name, nodeId: "b", url: "http://b", ttlMs: 60_000 }))).toBe(2)
    expect(await run(Leases.renew({ name, nodeId: "a", epoch: 1, ttlMs: 60_000 }))).toBe(false)
    await run(Leases.release({ name, nodeId: "a", epoch: 1 }))
    expect(await run(Leases.holder(name))).toEqual({ nodeId: "b", url: "http://b", epoch: 2, live: true })
  })

  it("released by its holder, it is free at once", async () => {
    const name = aName()
    expect(await run(Leases.acquire({ name, nodeId: "a", url: null, ttlMs: 60_000 }))).toBe(1)
    await run(Leases.release({ name, nodeId: "a", epoch: 1 }))
    expect(await run(Leases.holder(name))).toMatchObject({ live: false })
    expect(await run(Leases.acquire({ name, nodeId: "b", url: null, ttlMs: 60_000 }))).toBe(2)
  })
})
