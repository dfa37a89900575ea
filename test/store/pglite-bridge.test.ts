// The embedded bridge (src/store/pglite-bridge.ts) with real pg clients and raw sockets: queries of both
// protocols, errors that leave the connection usable, a transaction holding the one session against other
// connections, a dropped connection rolled back (a transaction block, or an extended query before its
// Sync), concurrent extended queries kept apart, the SSL answer, the cancel request, startups and lengths
// PostgreSQL refuses (refused, and the bridge goes on serving), the connection limit at its edge, and the
// host's own queries (the timed CHECKPOINT) run in their turn.
import { connect } from "node:net"
import { readFile } from "node:fs/promises"
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PgliteBridge } from "../../src/store/pglite-bridge.js"
import { pgliteTemplate } from "../support/db.js"

const MAX_CONNECTIONS = 3

let db: PGlite
let bridge: PgliteBridge
let port = 0
/** What the bridge reported through onError. */
const hostErrors: Array<string> = []
const clients: Array<pg.Client> = []

const client = async (): Promise<pg.Client> => {
  const c = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" })
  await c.connect()
  clients.push(c)
  return c
}
const close = async (c: pg.Client): Promise<void> => {
  clients.splice(clients.indexOf(c), 1)
  await c.end()
}
/** A frontend message: type, length (counting itself), body. */
const frame = (type: string, body: Buffer = Buffer.alloc(0)): Buffer => {
  const head = Buffer.alloc(5)
  head.write(type, 0, "latin1")
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const cstr = (text: string): Buffer => Buffer.from(`${text}\u0000`, "utf8")
/** A StartupMessage of protocol `major`.0 with these parameters. */
const startup = (params: Record<string, string>, major = 3): Buffer => {
  const body = Buffer.concat([...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]), Buffer.from([0])])
  const head = Buffer.alloc(8)
  head.writeInt32BE(8 + body.length, 0)
  head.writeInt32BE(major << 16, 4)
  return Buffer.concat([head, body])
}

/** A raw connection: what it was sent back, and whether it was closed. */
const raw = async () => {
  const socket = connect(port, "127.0.0.1")
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  let received = Buffer.alloc(0)
  let closed = false
  socket.on("data", (data: Buffer) => void (received = Buffer.concat([received, data])))
  socket.on("error", () => undefined)
  socket.on("close", () => void (closed = true))
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return {
    send: (bytes: Buffer) => socket.write(bytes),
    /** Waits until the answer so far contains `text` (or the socket closed), and returns it as latin1. */
    answer: async (text: string) => {
      await until(() => closed || received.toString("latin1").includes(text))
      return received.toString("latin1")
    },
    closed: async () => {
      await until(() => closed)
      return closed
    },
    destroy: () => socket.destroy(),
  }
}

/** Resolves to "pending" when `p` has not settled within `ms`. */
const within = <A>(p: Promise<A>, ms: number): Promise<A | "pending"> =>
  Promise.race([p, new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))])

beforeAll(async () => {
  db = await PGlite.create({ loadDataDir: new Blob([await readFile(await pgliteTemplate())]) })
  await db.exec("CREATE TABLE things (id int PRIMARY KEY, label text)")
  bridge = new PgliteBridge(db, { maxConnections: MAX_CONNECTIONS, onError: (e) => void hostErrors.push(String(e)) })
  const address = await bridge.listen(null)
  port = address.port ?? 0
}, 60_000)

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined)
  await bridge.close()
  await db.close()
})

describe("the embedded bridge", () => {
  it("answers simple and extended queries, with parameters and typed results", async () => {
    const c = await client()
    expect((await c.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await c.query("INSERT INTO things VALUES ($1, $2), ($3, $4)", [1, "a", 2, "b"])
    expect((await c.query("SELECT label FROM things WHERE id = ANY($1::int[]) ORDER BY id", [[1, 2]])).rows)
      .toEqual([{ label: "a" }, { label: "b" }])
    expect((await c.query({ name: "named", text: "SELECT $1::text AS t", values: ["x"] })).rows).toEqual([{ t: "x" }])
    expect((await c.query({ name: "named", text: "SELECT $1::text AS t", values: ["y"] })).rows).toEqual([{ t: "y" }])
    await c.query("DELETE FROM things")
    await close(c)
  })

  it("keeps a connection usable after an error in either protocol", async () => {
    const c = await client()
    await expect(c.query("SELECT * FROM no_such_table")).rejects.toThrow(/no_such_table/)
    await expect(c.query("SELECT $1::int AS n", ["not a number"])).rejects.toThrow(/invalid input syntax/)
    expect((await c.query("SELECT $1::int AS n", [7])).rows).toEqual([{ n: 7 }])
    await c.query("BEGIN")
    await expect(c.query("SELECT 1/0")).rejects.toThrow(/division by zero/)
    await expect(c.query("SELECT 1")).rejects.toThrow(/current transaction is aborted/)
    await c.query("ROLLBACK")
    expect((await c.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }])
    await close(c)
  })

  it("lets no other connection in while one is inside a transaction block", async () => {
    const a = await client()
    const b = await client()
    await a.query("BEGIN")
    await a.query("INSERT INTO things VALUES (10, 'held')")
    const read = b.query("SELECT count(*)::int AS n FROM things WHERE id = 10")
    expect(await within(read, 300)).toBe("pending")
    await a.query("COMMIT")
    expect((await read).rows).toEqual([{ n: 1 }])
    await b.query("DELETE FROM things")
    await close(a)
    await close(b)
  })

  it("runs the host's own query in its turn, never inside a session a connection holds, and reports its error", async () => {
    const a = await client()
    const b = await client()
    const redo = async (c: pg.Client) => (await c.query("SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()")).rows[0].lsn as string
    await a.query("INSERT INTO things VALUES (20, 'before')")
    const before = await redo(a)
    await a.query("BEGIN")
    await a.query("INSERT INTO things VALUES (21, 'held')")
    bridge.maintain("CHECKPOINT")
    // Queued behind the transaction: it has not run inside it.
    expect(await redo(a)).toBe(before)
    await a.query("COMMIT")
    expect(await redo(b)).not.toBe(before)
    expect(hostErrors).toEqual([])
    bridge.maintain("SELECT * FROM no_such_table")
    expect((await b.query("SELECT count(*)::int AS n FROM things WHERE id >= 20")).rows).toEqual([{ n: 2 }])
    expect(hostErrors).toEqual([expect.stringMatching(/no_such_table/)])
    hostErrors.length = 0
    await b.query("DELETE FROM things")
    await close(a)
    await close(b)
  })

  it("deallocates the named statements a connection prepared when it goes away (the session outlives it)", async () => {
    const a = await client()
    const b = await client()
    const prepared = async () => (await b.query("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map((r) => r.name as string)
    expect((await b.query({ name: "b_own", text: "SELECT $1::int AS n", values: [1] })).rows).toEqual([{ n: 1 }])
    expect((await a.query({ name: "gone_with_a", text: "SELECT $1::int AS n", values: [2] })).rows).toEqual([{ n: 2 }])
    // One session: b's name is taken, so a's Parse of it fails and the statement stays b's.
    await expect(a.query({ name: "b_own", text: "SELECT 3 AS n", values: [] })).rejects.toThrow(/already exists/)
    expect(await prepared()).toEqual(["b_own", "gone_with_a"])
    await close(a)
    // The bridge learns of a's close asynchronously.
    for (let i = 0; i < 50 && (await prepared()).length > 1; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await prepared()).toEqual(["b_own"])
    // A new connection may prepare the name again, with another text; b's statement still runs.
    const c = await client()
    expect((await c.query({ name: "gone_with_a", text: "SELECT $1::text AS t", values: ["x"] })).rows).toEqual([{ t: "x" }])
    expect((await b.query({ name: "b_own", text: "SELECT $1::int AS n", values: [4] })).rows).toEqual([{ n: 4 }])
    expect(hostErrors).toEqual([])
    await close(c)
    await b.query("DEALLOCATE ALL")
    await close(b)
  })

  it("rolls back the transaction of a connection that goes away, and the others go on", async () => {
    const a = await client()
    const b = await client()
    await a.query("BEGIN")
    await a.query("INSERT INTO things VALUES (20, 'lost')")
    const read = b.query("SELECT count(*)::int AS n FROM things WHERE id = 20")
    await close(a) // Terminate inside the block
    expect((await read).rows).toEqual([{ n: 0 }])
    expect((await b.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await close(b)
  })

  it("rolls back an extended query left open (no Sync yet) by a connection that goes away", async () => {
    const a = await raw()
    a.send(startup({ user: "postgres", database: "postgres" }))
    await a.answer("Z")
    const parse = frame("P", Buffer.concat([cstr(""), cstr("INSERT INTO things VALUES (30, 'half')"), Buffer.from([0, 0])]))
    const bind = frame("B", Buffer.concat([cstr(""), cstr(""), Buffer.from([0, 0, 0, 0, 0, 0])]))
    const execute = frame("E", Buffer.concat([cstr(""), Buffer.from([0, 0, 0, 0])]))
    a.send(Buffer.concat([parse, bind, execute, frame("H")]))
    expect(await a.answer("INSERT 0 1")).toContain("INSERT 0 1")
    a.destroy()
    const b = await client()
    expect((await b.query("SELECT count(*)::int AS n FROM things WHERE id = 30")).rows).toEqual([{ n: 0 }])
    await close(b)
  })

  it("refuses a startup PostgreSQL would refuse, and goes on serving", async () => {
    const old = await raw()
    old.send(startup({ user: "postgres" }, 2))
    expect(await old.answer("protocol")).toContain("unsupported frontend protocol 2.0")
    expect(await old.closed()).toBe(true)
    const nameless = await raw()
    nameless.send(startup({ database: "postgres" }))
    expect(await nameless.answer("user")).toContain("no PostgreSQL user name specified")
    expect(await nameless.closed()).toBe(true)
    const c = await client()
    expect((await c.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await close(c)
  })

  it("closes a connection that sends a length PostgreSQL refuses, and goes on serving", async () => {
    const tiny = Buffer.alloc(8)
    tiny.writeInt32BE(4, 0)
    tiny.writeInt32BE(80877103, 4)
    const before = await raw()
    before.send(tiny)
    expect(await before.closed()).toBe(true)
    const after = await raw()
    after.send(startup({ user: "postgres", database: "postgres" }))
    await after.answer("Z")
    const negative = Buffer.from([0x50, 0xff, 0xff, 0xff, 0xff])
    after.send(negative)
    expect(await after.answer("invalid message length")).toContain("invalid message length")
    expect(await after.closed()).toBe(true)
    const c = await client()
    expect((await c.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await close(c)
  })

  it("keeps concurrent extended queries of several connections apart", async () => {
    const cs = await Promise.all([client(), client(), client()])
    // Each connection's queries one after another (node-postgres queues them so anyway, and warns that
    // calling query on a busy client will stop working in pg 9), the connections all at once.
    const results = (await Promise.all(cs.map(async (c, k) => {
      const mine: Array<[number, number, unknown]> = []
      for (let i = 0; i < 40; i++) mine.push([k, i, (await c.query("SELECT $1::int * 1000 + $2::int AS v", [k, i])).rows[0]?.v])
      return mine
    }))).flat()
    for (const [k, i, v] of results) expect(v).toBe(Number(k) * 1000 + Number(i))
    await Promise.all(cs.map(close))
  })

  it("answers an SSL request with N, and closes a cancel request's connection", async () => {
    const ssl = Buffer.alloc(8)
    ssl.writeInt32BE(8, 0)
    ssl.writeInt32BE(80877103, 4)
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(ssl))
      socket.once("data", (data) => {
        resolve(data.toString("latin1"))
        socket.destroy()
      })
      socket.once("error", reject)
    })
    expect(answer).toBe("N")
    const cancel = Buffer.alloc(16)
    cancel.writeInt32BE(16, 0)
    cancel.writeInt32BE(80877102, 4)
    const closed = await new Promise<boolean>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(cancel))
      socket.once("close", () => resolve(true))
      socket.once("error", reject)
    })
    expect(closed).toBe(true)
  })

  it(`serves ${MAX_CONNECTIONS} connections and refuses one more`, async () => {
    const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, client))
    for (const c of open) expect((await c.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    const extra = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" })
    await expect(extra.connect()).rejects.toThrow(/too many clients/)
    await close(open[0]!)
    // A place is free again once one closes.
    const next = await eventuallyConnect()
    expect((await next.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await Promise.all([...open.slice(1), next].map(close))
  })
})

/** The bridge learns of a closed connection asynchronously: retry the connect briefly. */
const eventuallyConnect = async (): Promise<pg.Client> => {
  for (let i = 0; ; i++) {
    try {
      return await client()
    } catch (error) {
      if (i >= 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}
