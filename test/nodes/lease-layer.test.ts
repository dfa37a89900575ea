// The paper lease's layer in one process (two "nodes" on one store): the holder builds the actors, the
// other does not and its stand-ins refuse use; a holder that shuts down gives the lease to the other at
// its next try, or at once on PostgreSQL (the release is told, and the other LISTENs); a holder whose
// lease another took stops its actors; forwarding with no reachable holder ends in UPSTREAM_FAILED, and
// becomes a local run once this node holds the lease.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer, ManagedRuntime, Option, Schema, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Accounts } from "../../src/actors/accounts/registry.js"
import { MarketAlerts } from "../../src/actors/alerts/market-alerts.js"
import { Bots } from "../../src/actors/bots/bots-live.js"
import { ExitRules } from "../../src/actors/exits/exit-rules.js"
import { WriteFence } from "../../src/actors/write-fence.js"
import { leasedPaperActors, listenerName, listenerPrefix, PAPER_LEASE } from "../../src/nodes/paper-lease.js"
import { currentSchema } from "../../src/store/listen.js"
import { operation } from "../../src/operations/operation.js"
import { PaperOwner } from "../../src/operations/owned.js"
import type { PaperActors } from "../../src/operations/registry.js"
import { Leases } from "../../src/store/leases.js"
import { databaseUrl, TestStore } from "../support/db.js"
import { aPrincipal } from "../support/memory-keys.js"

const db = ManagedRuntime.make(TestStore)
afterAll(() => db.dispose())

const TTL = 600

interface Counts {
  built: number
  closed: number
  /** The write fence the actors were built with: its token. */
  fence?: Effect.Effect<unknown, unknown>
}

/** Fake actors that count how often they were built and closed, and keep their write fence. */
const fakeActors = (counts: Counts) =>
  Layer.scopedContext(Effect.gen(function* () {
    counts.built++
    const fence = yield* Effect.serviceOption(WriteFence)
    if (Option.isSome(fence)) counts.fence = fence.value.token
    yield* Effect.addFinalizer(() => Effect.sync(() => void counts.closed++))
    const fake = <S>(name: string) => ({ name }) as unknown as S
    return Context.empty().pipe(
      Context.add(Accounts, fake<Accounts["Type"]>("accounts")),
      Context.add(Bots, fake<Bots["Type"]>("bots")),
      Context.add(ExitRules, fake<ExitRules["Type"]>("exits")),
      Context.add(MarketAlerts, fake<MarketAlerts["Type"]>("alerts")),
    ) as Context.Context<PaperActors>
  }))

interface Node {
  readonly counts: Counts
  readonly context: Context.Context<PaperActors | PaperOwner>
  readonly close: () => Promise<void>
}

const startNode = async (nodeId: string, ttlMs = TTL): Promise<Node> => {
  const counts: Counts = { built: 0, closed: 0 }
  const scope = await db.runPromise(Scope.make())
  const context = await db.runPromise(Layer.buildWithScope(leasedPaperActors(fakeActors(counts), { nodeId, ttlMs }), scope))
  return { counts, context, close: () => db.runPromise(Scope.close(scope, Exit.void)) }
}

const holds = (node: Node) => Effect.runSync(Context.get(node.context, PaperOwner).holds)
const botsName = (node: Node) => (Context.get(node.context, Bots) as unknown as { name: string }).name
const waitUntil = async (what: string, ok: () => boolean | Promise<boolean>, ms: number) => {
  const deadline = performance.now() + ms
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const ping = operation({
  name: "ping", tool: "ping", method: "POST", path: "/v2/ping", scope: "write",
  input: Schema.Struct({}), output: Schema.String, run: () => Effect.succeed("remote"),
})
const ctx = { principal: aPrincipal(), charge: () => Effect.void, setHeader: () => Effect.void }

// The lease's row is shared by every test here (one "paper" lease per store): each test ends with it given up.
describe("leasedPaperActors", () => {
  it("the first node holds and runs the actors; the second builds none and its stand-ins refuse; closing the first hands over", async () => {
    const a = await startNode(`a-${process.pid}`)
    const b = await startNode(`b-${process.pid}`)
    expect(holds(a)).toBe(true)
    expect(a.counts.built).toBe(1)
    expect(botsName(a)).toBe("bots")
    expect(holds(b)).toBe(false)
    expect(b.counts.built).toBe(0)
    expect(() => botsName(b)).toThrow(/node that holds the paper lease/)
    const handedAt = performance.now()
    await a.close()
    expect(a.counts.closed).toBe(1)
    // Given up on close: the other takes it at its next try (a third of the lease), not when it would expire.
    await waitUntil("b to hold the lease", () => holds(b), TTL)
    expect(performance.now() - handedAt).toBeLessThan(TTL)
    expect(b.counts.built).toBe(1)
    expect(botsName(b)).toBe("bots")
    await b.close()
  })

  it.runIf(databaseUrl() !== undefined)("on PostgreSQL, a holder that shuts down tells the others, and one takes the lease at once, not at its next try", async () => {
    // A 30 s lease: the other node's next try is 10 s away, so only the release's notice hands over within 2 s.
    const a = await startNode(`a7-${process.pid}`, 30_000)
    const b = await startNode(`b7-${process.pid}`, 30_000)
    expect(holds(a)).toBe(true)
    expect(holds(b)).toBe(false)
    // b's listening connection is opened in the background.
    const name = listenerName(await db.runPromise(currentSchema), `b7-${process.pid}`)
    await waitUntil("b's listening connection", async () => (await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`SELECT 1 FROM pg_stat_activity WHERE application_name = ${name} AND query LIKE 'LISTEN%'`))).length === 1, 3_000)
    const handedAt = performance.now()
    await a.close()
    await waitUntil("b to hold the lease", () => holds(b), 2_000)
    expect(performance.now() - handedAt).toBeLessThan(2_000)
    expect(b.counts.built).toBe(1)
    await b.close()
  })

  it.runIf(databaseUrl() !== undefined)("on PostgreSQL, a lone holder shutting down does not wait for a taker when no other node listens", async () => {
    const a = await startNode(`a10-${process.pid}`, 30_000)
    expect(holds(a)).toBe(true)
    // Its own listener is the only one on this file's schema (other files' nodes listen under theirs).
    const prefix = listenerPrefix(await db.runPromise(currentSchema))
    await waitUntil("a's listening connection", async () => (await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE starts_with(application_name, ${prefix})`)))[0]?.n === 1, 3_000)
    const closingAt = performance.now()
    await a.close()
    // Waiting for a taker would take the whole bound, min(2 s, a third of the lease).
    expect(performance.now() - closingAt).toBeLessThan(1_000)
  })

  it.runIf(databaseUrl() !== undefined)("on PostgreSQL, a node whose listening connection was cut listens again, and still takes a released lease at once", async () => {
    const a = await startNode(`a8-${process.pid}`, 30_000)
    const bId = `b8-${process.pid}`
    const b = await startNode(bId, 30_000)
    expect(holds(a)).toBe(true)
    const name = listenerName(await db.runPromise(currentSchema), bId)
    const listener = async () => (await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE application_name = ${name}`))).map((r) => r.pid)
    await waitUntil("b's listening connection", async () => (await listener()).length === 1, 3_000)
    const [cut] = await listener()
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_terminate_backend(${cut as number})`))
    // Opened again a second after it broke.
    await waitUntil("b's new listening connection", async () => {
      const now = await listener()
      return now.length === 1 && now[0] !== cut
    }, 4_000)
    await new Promise((r) => setTimeout(r, 200))
    const handedAt = performance.now()
    await a.close()
    await waitUntil("b to hold the lease", () => holds(b), 2_000)
    expect(performance.now() - handedAt).toBeLessThan(2_000)
    await b.close()
  })

  it("a holder frozen past two thirds of its lease refuses the actors' writes, and runs no operation, until it has renewed", async () => {
    const a = await startNode(`a4-${process.pid}`)
    const fence = a.counts.fence as Effect.Effect<unknown, unknown>
    const lease = await db.runPromise(Leases.holder(PAPER_LEASE))
    expect(await db.runPromise(fence)).toEqual({ name: PAPER_LEASE, nodeId: `a4-${process.pid}`, epoch: lease?.epoch, idleMs: TTL / 3 })
    // Frozen (no timer runs) for longer than two thirds of the lease but less than all of it.
    const until = performance.now() + (TTL * 3) / 4
    while (performance.now() < until) { /* frozen */ }
    const refused = await db.runPromise(Effect.exit(fence))
    expect(Exit.isFailure(refused)).toBe(true)
    // Its operations neither run here meanwhile: it does not count as holding.
    expect(holds(a)).toBe(false)
    // The lease had not run out, so the keeper renews it and the actors may write again.
    await waitUntil("a renewal", () => Exit.isSuccess(Effect.runSyncExit(fence)), TTL)
    expect(holds(a)).toBe(true)
    await a.close()
  })

  it("a holder whose lease another node took stops its actors and forwards", async () => {
    const a = await startNode(`a2-${process.pid}`)
    expect(holds(a)).toBe(true)
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE node_leases SET node_id = 'thief', epoch = epoch + 1, expires_at = now() + interval '1 hour' WHERE name = ${PAPER_LEASE}`))
    await waitUntil("a to stop holding", () => !holds(a), TTL)
    expect(a.counts.closed).toBe(1)
    expect(() => botsName(a)).toThrow(/node that holds the paper lease/)
    await a.close()
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE node_leases SET expires_at = now() WHERE name = ${PAPER_LEASE}`))
  })

  it("a holder that stops holding lets what runs on its actors end before it closes them, and starts nothing new meanwhile", async () => {
    const a = await startNode(`a9-${process.pid}`)
    const owner = Context.get(a.context, PaperOwner)
    // An operation on the actors that takes 400 ms, and sees whether they were closed under it.
    const running = db.runPromise(owner.runHere(Effect.zipRight(Effect.sleep("400 millis"), Effect.sync(() => a.counts.closed))))
    await new Promise((r) => setTimeout(r, 50))
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE node_leases SET node_id = 'thief', epoch = epoch + 1, expires_at = now() + interval '1 hour' WHERE name = ${PAPER_LEASE}`))
    await waitUntil("a to stop holding", () => !holds(a), TTL)
    expect(Option.isNone(await db.runPromise(owner.runHere(Effect.succeed("new"))))).toBe(true)
    expect(a.counts.closed).toBe(0)
    expect(await running).toEqual(Option.some(0))
    await waitUntil("the actors closed", () => a.counts.closed === 1, TTL)
    await a.close()
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE node_leases SET expires_at = now() WHERE name = ${PAPER_LEASE}`))
  })

  it("forwarding: UPSTREAM_FAILED while the holder has no address; run here once this node holds the lease", async () => {
    // Another node holds the lease and has not opened its doors (no url).
    const held = await db.runPromise(Leases.acquire({ name: PAPER_LEASE, nodeId: "elsewhere", url: null, ttlMs: 60_000 }))
    expect(held).not.toBeNull()
    const b = await startNode(`b3-${process.pid}`)
    expect(holds(b)).toBe(false)
    const owner = Context.get(b.context, PaperOwner)
    const failed = await db.runPromise(Effect.flip(owner.forward(ping, {}, ctx, Effect.succeed("local"))))
    expect(failed._tag).toBe("UPSTREAM_FAILED")
    expect(failed.error).toContain("has not opened its doors")
    // The holder gives the lease up: the waiting call runs here once b has taken it.
    const running = db.runPromise(owner.forward(ping, {}, ctx, Effect.succeed("local")))
    await db.runPromise(Leases.release({ name: PAPER_LEASE, nodeId: "elsewhere", epoch: held as number }))
    expect(await running).toBe("local")
    expect(holds(b)).toBe(true)
    await b.close()
  })

  it("a lease whose holder died is taken when it expires, not at the next third-of-a-lease try after that", async () => {
    // A holder that stopped renewing (killed): its lease has 1.2 s left. With a 3 s lease, trying every
    // third (0, 1, 2 s) would take it at 2 s; trying when it expires takes it at about 1.2 s.
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
      INSERT INTO node_leases (name, node_id, url, epoch, expires_at) VALUES (${PAPER_LEASE}, 'dead', 'http://127.0.0.1:9', 1, now() + interval '1200 milliseconds')
      ON CONFLICT (name) DO UPDATE SET node_id = 'dead', url = EXCLUDED.url, epoch = node_leases.epoch + 1, expires_at = EXCLUDED.expires_at`))
    const startedAt = performance.now()
    const b = await startNode(`b5-${process.pid}`, 3_000)
    expect(holds(b)).toBe(false)
    await waitUntil("b to take the expired lease", () => holds(b), 3_000)
    const tookMs = performance.now() - startedAt
    expect(tookMs).toBeGreaterThan(1_000)
    expect(tookMs).toBeLessThan(1_900)
    await b.close()
  })

  it("forwarding: a holder whose node door refuses the call (401) answers UPSTREAM_FAILED saying nothing was carried out, at once", async () => {
    const door = createServer((_request, response) => {
      response.writeHead(401, { "content-type": "application/json" })
      response.end(JSON.stringify({ code: "UNAUTHORIZED", error: "This call was taken before (its nonce is spent)" }))
    })
    await new Promise<void>((resolve) => door.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(door.address() as AddressInfo).port}`
    const held = await db.runPromise(Leases.acquire({ name: PAPER_LEASE, nodeId: "strict", url, ttlMs: 60_000 }))
    const b = await startNode(`b6-${process.pid}`)
    try {
      const startedAt = performance.now()
      const failed = await db.runPromise(Effect.flip(Context.get(b.context, PaperOwner).forward(ping, {}, ctx, Effect.succeed("local"))))
      expect(failed._tag).toBe("UPSTREAM_FAILED")
      expect(failed.error).toContain("refused this node's call, so nothing was carried out")
      expect(performance.now() - startedAt).toBeLessThan(TTL)
    } finally {
      await b.close()
      await db.runPromise(Leases.release({ name: PAPER_LEASE, nodeId: "strict", epoch: held as number }))
      await new Promise((resolve) => door.close(resolve))
    }
  })
})
