// The listening connection (src/store/listen.ts) on PostgreSQL: it hears NOTIFY, and its stream fails
// when the connection stops answering without breaking (a TCP proxy between it and the server stops
// forwarding and closes nothing, as a lost host or a partition does), so the caller listens again.
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { Effect, Fiber, Redacted, Stream } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listen } from "../../src/store/listen.js"
import { databaseUrl } from "../support/db.js"

/** A TCP proxy to the server that can freeze: stop forwarding both ways, closing nothing. */
const aProxy = async (target: URL) => {
  const sockets: Array<Socket> = []
  let frozen = false
  // Half-open allowed: a FIN from the client is not answered, as across a partition.
  const server: Server = createServer({ allowHalfOpen: true }, (inbound) => {
    const outbound = createConnection({ host: target.hostname, port: Number(target.port || 5432) })
    sockets.push(inbound, outbound)
    inbound.on("data", (chunk) => void (frozen || outbound.write(chunk)))
    outbound.on("data", (chunk) => void (frozen || inbound.write(chunk)))
    for (const [a, b] of [[inbound, outbound], [outbound, inbound]] as const) {
      a.on("error", () => b.destroy())
      a.on("close", () => b.destroy())
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    freeze: () => void (frozen = true),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    }),
  }
}

describe.runIf(databaseUrl() !== undefined)("listening on a channel", () => {
  // (The body is collected on the embedded pass too, where there is no URL.)
  const url = new URL(databaseUrl() ?? "postgres://unused")
  let proxy: Awaited<ReturnType<typeof aProxy>>
  beforeAll(async () => {
    proxy = await aProxy(url)
  })
  afterAll(async () => {
    await proxy.close()
  })

  it("hears NOTIFY, and fails once its connection stops answering, within the check's interval and timeout", async () => {
    const through = new URL(url.href)
    through.hostname = "127.0.0.1"
    through.port = String(proxy.port)
    const channel = `listen_test_${process.pid}`
    const heard: Array<string> = []
    const fiber = Effect.runFork(listen({ url: Redacted.make(through.href) }, channel, `whalewatch:test:${process.pid}`, { checkEveryMs: 200, checkTimeoutMs: 300 }).pipe(
      Stream.runForEach((payload) => Effect.sync(() => void heard.push(payload))),
      Effect.either,
    ))
    const notify = new pg.Client({ connectionString: url.href })
    await notify.connect()
    try {
      const deadline = performance.now() + 10_000
      while (heard.length === 0) {
        if (performance.now() > deadline) throw new Error("the listener never heard a NOTIFY")
        await notify.query(`SELECT pg_notify($1, 'hello')`, [channel])
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(heard[0]).toBe("hello")
      // Checks pass while the connection answers.
      await new Promise((r) => setTimeout(r, 700))
      expect(fiber.unsafePoll()).toBeNull()

      proxy.freeze()
      const frozenAt = performance.now()
      const result = await Effect.runPromise(Fiber.join(fiber))
      expect(result._tag).toBe("Left")
      // At most an interval, a timeout and the connection's close (bounded too) after the freeze.
      expect(performance.now() - frozenAt).toBeLessThan(3_000)
    } finally {
      await notify.end()
    }
  }, 20_000)
})
