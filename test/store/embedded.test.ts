// The embedded default end to end: a real `whalewatch serve` process on a temp DATA_DIR, the CLI run as
// child processes beside it, the lock file's rules (second server refused, stale lock taken over),
// clean shutdown, and keys surviving a restart. Children always run embedded (DATABASE_URL removed),
// so this file means the same in both CI runs.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dbLayerOn } from "../../src/store/db.js"
import { connectDataDir, lockPath } from "../../src/store/embedded.js"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { freshDataDir, hostTestDataDir, rmDataDir, seedDataDir } from "../support/db.js"

const bin = fileURLToPath(new URL("../../bin/whalewatch.js", import.meta.url))

const childEnv = (dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  // The in-process simulator on a free port with little history: these tests are about storage.
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: "0", SIM_PORT: "0", HISTORY_DAYS: "1", LOG_LEVEL: "info", ...extra }
  delete env["DATABASE_URL"]
  return env
}

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (dataDir: string, args: ReadonlyArray<string>, extra: Record<string, string> = {}): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: childEnv(dataDir, extra), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

interface Server {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly url: () => string
}

const LISTENING = /listening on (http:\/\/[0-9.:]+)/

/** Starts `whalewatch serve` and waits until it listens. */
const startServer = (dataDir: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve"], { env: childEnv(dataDir), stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    const server: Server = { child, output: () => output, exited, url: () => LISTENING.exec(output)?.[1] ?? "" }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (LISTENING.test(output)) resolve(server)
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    void exited.then((code) => reject(new Error(`server exited with ${code} before it was ready:\n${output}`)))
  })

const stopServer = async (server: Server): Promise<number | null> => {
  if (server.child.exitCode !== null) return server.child.exitCode
  server.child.kill("SIGTERM")
  return server.exited
}

/** Authenticates through the socket named in the live lock, as another client of the server's database. */
const authenticateVia = (dataDir: string, token: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const address = yield* connectDataDir(dataDir)
        const db = dbLayerOn({ _tag: "Embedded", address }, { maxConnections: 1 })
        return yield* Effect.flatMap(Keys, (keys) => keys.authenticate(token)).pipe(
          Effect.provide(KeysLive.pipe(Layer.provide(db))),
        )
      }),
    ),
  )

/**
 * What the running server's door says about a key: the status of the first GET route that needs a key
 * (401 when it refuses the key), or undefined while no such route exists yet.
 */
const statusFromServer = async (server: Server, token: string): Promise<number | undefined> => {
  const spec = await (await fetch(`${server.url()}/openapi.json`)).json() as {
    paths: Record<string, Record<string, { security?: ReadonlyArray<unknown> }>>
  }
  const path = Object.entries(spec.paths).find(([route, methods]) =>
    !route.includes("{") && (methods["get"]?.security?.length ?? 0) > 0
  )?.[0]
  if (path === undefined) return undefined
  const anonymous = await fetch(`${server.url()}${path}`)
  expect(anonymous.status).toBe(401)
  return (await fetch(`${server.url()}${path}`, { headers: { authorization: `Bearer ${token}` } })).status
}

const DEMO_LINE = /demo API key \(read,write\): (ww_[A-Za-z0-9_-]{43})/

describe("embedded server and CLI on one DATA_DIR", () => {
  const dataDir = freshDataDir("srv")
  let server: Server
  let cliKey = ""

  beforeAll(async () => {
    await seedDataDir(dataDir)
    server = await startServer(dataDir)
  }, 120_000)

  afterAll(async () => {
    if (server !== undefined) await stopServer(server)
    rmDataDir(dataDir)
  })

  it("serves HTTP with the database ready", async () => {
    // /healthz also waits for feeds and backfill (503 until then); the database check is ready at once.
    const health = await fetch(`${server.url()}/healthz`)
    expect([200, 503]).toContain(health.status)
    expect(await health.json()).toMatchObject({ checks: { database: { ready: true } } })
  })

  it("holds a lock naming its pid and socket", () => {
    const lock = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Record<string, unknown>
    expect(lock["pid"]).toBe(server.child.pid)
    expect(lock["socket"]).toBe(join(dataDir, ".s.PGSQL.5432"))
    expect(Date.parse(String(lock["startedAt"]))).not.toBeNaN()
  })

  it("prints a demo key on first start, and it works", async () => {
    const demo = DEMO_LINE.exec(server.output())?.[1]
    expect(demo).toBeDefined()
    const principal = await authenticateVia(dataDir, demo ?? "")
    expect(Option.map(principal, (p) => [p.accountName, p.scopes])).toEqual(Option.some(["demo", ["read", "write"]]))
  })

  it("accepts a key the CLI creates while it runs", async () => {
    const created = await run(dataDir, ["key", "create", "--scopes", "read,write", "--account", "cli-acct"])
    expect(created.stderr).toBe("")
    expect(created.code).toBe(0)
    const lines = created.stdout.trim().split("\n")
    expect(lines).toHaveLength(1)
    const printed = JSON.parse(lines[0] ?? "") as Record<string, unknown>
    expect(Object.keys(printed)).toEqual(["key", "keyId", "account", "scopes"])
    expect(printed).toEqual({ key: expect.stringMatching(/^ww_/), keyId: expect.stringMatching(/^key_/), account: "cli-acct", scopes: ["read", "write"] })
    cliKey = String(printed["key"])
    // Through the server's own door (and its key cache) when a keyed route exists, and through its socket.
    const status = await statusFromServer(server, cliKey)
    if (status !== undefined) expect(status).not.toBe(401)
    const principal = await authenticateVia(dataDir, cliKey)
    expect(Option.map(principal, (p) => p.accountName)).toEqual(Option.some("cli-acct"))
  }, 60_000)

  it("lists and revokes keys through the CLI, never showing a key", async () => {
    const made = await run(dataDir, ["key", "create", "--scopes", "read", "--account", "to-revoke", "--no-subscription"])
    const key = String((JSON.parse(made.stdout) as Record<string, unknown>)["key"])
    const listed = await run(dataDir, ["key", "list"])
    expect(listed.code).toBe(0)
    expect(listed.stdout).not.toContain(key)
    const rows = listed.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    const row = rows.find((r) => r["account"] === "to-revoke")
    expect(row).toEqual({
      keyId: expect.stringMatching(/^key_/),
      account: "to-revoke",
      scopes: ["read"],
      subscriptionActive: false,
      createdAt: expect.any(String),
      revokedAt: null,
    })
    const revoked = await run(dataDir, ["key", "revoke", String(row?.["keyId"])])
    expect(revoked.code).toBe(0)
    expect(await authenticateVia(dataDir, key)).toEqual(Option.none())
  }, 60_000)

  it("prints the usage on -h and <command> --help, exit code 0", async () => {
    for (const args of [["-h"], ["key", "--help"]]) {
      const shown = await run(dataDir, args)
      expect(shown.code).toBe(0)
      expect(shown.stdout).toContain("usage: whalewatch <command>")
      expect(shown.stdout).toContain("key revoke KEY_ID")
    }
    const record = await run(dataDir, ["record", "--help"])
    expect(record.code).toBe(0)
    expect(record.stdout).toContain("usage: whalewatch record")
  }, 60_000)

  it("record: nothing listening on the url is exit code 1 with one line saying so", async () => {
    const out = join(dataDir, "nothing.jsonl")
    const recorded = await run(dataDir, ["record", "--venue", "venue_a", "--out", out, "--seconds", "0.5", "--url", "ws://127.0.0.1:1"])
    expect(recorded.code).toBe(1)
    expect(recorded.stderr.trim()).toBe("whalewatch: could not connect to ws://127.0.0.1:1 for venue_a (is the simulator or the venue running?)")
  }, 30_000)

  it("record: Ctrl-C or SIGTERM writes what was received and the summary; an unwritable --out is one line, exit 2", async () => {
    const sim = /venue simulator \(seed \d+\) on (http:\/\/[0-9.:]+)/.exec(server.output())?.[1]
    expect(sim).toBeDefined()
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const out = join(dataDir, `interrupted-${signal}.jsonl`)
      const child = spawn(process.execPath, [bin, "record", "--venue", "venue_a", "--out", out, "--url", (sim as string).replace("http", "ws")],
        { env: childEnv(dataDir), stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      const code = new Promise<number | null>((done) => child.on("close", (c) => done(c)))
      // Interrupted once frames are arriving (the file holds some lines).
      for (let i = 0; i < 200 && !(existsSync(out) && readFileSync(out, "utf8").split("\n").length > 5); i++) await new Promise((r) => setTimeout(r, 50))
      child.kill(signal)
      expect(await code, signal).toBe(0)
      expect(stdout).toMatch(/^venue_a: \d+ frames/m)
      expect(stdout).toContain(`recorded to ${out}`)
      expect(readFileSync(out, "utf8").trim().split("\n").length).toBeGreaterThan(5)
    }
    const unwritable = await run(dataDir, ["record", "--venue", "venue_a", "--out", join(dataDir, "no-such-dir", "x.jsonl"), "--seconds", "1"])
    expect(unwritable.code).toBe(2)
    expect(unwritable.stderr.trim()).toBe(`whalewatch: --out ${join(dataDir, "no-such-dir", "x.jsonl")} cannot be written (ENOENT)`)
  }, 60_000)

  it("an option's value that reads like a help word is a value (`--account help` makes a key)", async () => {
    const made = await run(dataDir, ["key", "create", "--scopes", "read", "--account", "help"])
    expect(made.code).toBe(0)
    expect(JSON.parse(made.stdout)).toMatchObject({ account: "help", scopes: ["read"] })
    expect((await run(dataDir, ["key", "help"])).stdout).toContain("usage: whalewatch <command>")
  }, 60_000)

  it("refuses bad arguments with one line and exit code 2", async () => {
    const bad = await run(dataDir, ["key", "create", "--scopes", "read,admin"])
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe("")
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain("--scopes")
  }, 30_000)

  it("refuses a second server on the same DATA_DIR, and the first keeps working", async () => {
    const second = await run(dataDir, ["serve"])
    expect(second.code).not.toBe(0)
    expect(second.stderr.trim()).toBe(
      `whalewatch: DATA_DIR ${dataDir} is in use by whalewatch pid ${server.child.pid}; stop it first or use another DATA_DIR`,
    )
    expect(server.child.exitCode).toBeNull()
    expect(await (await fetch(`${server.url()}/healthz`)).json()).toMatchObject({ checks: { database: { ready: true } } })
    const lock = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Record<string, unknown>
    expect(lock["pid"]).toBe(server.child.pid)
    expect(Option.isSome(await authenticateVia(dataDir, cliKey))).toBe(true)
  }, 60_000)

  it("stops cleanly on SIGTERM, and keeps its keys across a restart without a second demo key", async () => {
    const demo = DEMO_LINE.exec(server.output())?.[1] ?? ""
    expect(await stopServer(server)).toBe(0)
    expect(existsSync(lockPath(dataDir))).toBe(false)
    expect(existsSync(join(dataDir, ".s.PGSQL.5432"))).toBe(false)
    // With no server running, the CLI opens the dir itself and lets it go again.
    const listed = await run(dataDir, ["key", "list"])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain("cli-acct")
    expect(existsSync(lockPath(dataDir))).toBe(false)
    server = await startServer(dataDir)
    expect(server.output()).not.toMatch(DEMO_LINE)
    expect(Option.isSome(await authenticateVia(dataDir, demo))).toBe(true)
    expect(Option.isSome(await authenticateVia(dataDir, cliKey))).toBe(true)
  }, 90_000)
})

describe("lock rules in process", () => {
  const dataDir = freshDataDir("lock")
  afterAll(() => rmDataDir(dataDir))

  it("takes over a stale lock whose process is gone", async () => {
    const gone = spawn(process.execPath, ["-e", ""])
    const pid = gone.pid ?? 0
    await new Promise((done) => gone.on("exit", done))
    writeFileSync(lockPath(dataDir), JSON.stringify({ pid, socket: join(dataDir, ".s.PGSQL.5432"), startedAt: "2020-01-01T00:00:00.000Z" }))
    const lock = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      yield* hostTestDataDir(dataDir)
      return JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Record<string, unknown>
    })))
    expect(lock["pid"]).toBe(process.pid)
    expect(existsSync(lockPath(dataDir))).toBe(false)
  }, 60_000)

  it("takes over a stale lock whose pid now belongs to another node process (started after the lock)", async () => {
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"])
    try {
      await new Promise((done) => other.on("spawn", done))
      writeFileSync(lockPath(dataDir), JSON.stringify({ pid: other.pid, socket: join(dataDir, ".s.PGSQL.5432"), startedAt: "2020-01-01T00:00:00.000Z" }))
      const lock = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        yield* hostTestDataDir(dataDir)
        return JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Record<string, unknown>
      })))
      expect(lock["pid"]).toBe(process.pid)
    } finally {
      other.kill()
    }
  }, 60_000)

  it("runs PostgreSQL with wal_init_zero off (a new WAL segment is not written full of zeros inside a statement)", async () => {
    const setting = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const address = yield* hostTestDataDir(dataDir)
      const rows = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ readonly wal_init_zero: string }>`SHOW wal_init_zero`
      }).pipe(Effect.provide(dbLayerOn({ _tag: "Embedded", address }, { maxConnections: 1 })))
      return rows[0]?.wal_init_zero
    })))
    expect(setting).toBe("off")
  }, 60_000)

  it("checkpoints on its own timer (PGlite has no checkpointer), in its turn between queries", async () => {
    const checkpointed = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const address = yield* hostTestDataDir(dataDir, { checkpointEvery: Duration.millis(100) })
      return yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE IF NOT EXISTS checkpointed (n int)`
        yield* sql`INSERT INTO checkpointed SELECT generate_series(1, 1000)`
        const [written] = yield* sql<{ readonly lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`
        for (let i = 0; i < 50; i++) {
          const [redo] = yield* sql<{ readonly past: boolean }>`SELECT redo_lsn >= ${written!.lsn}::pg_lsn AS past FROM pg_control_checkpoint()`
          if (redo!.past) return true
          yield* Effect.sleep(Duration.millis(50))
        }
        return false
      }).pipe(Effect.provide(dbLayerOn({ _tag: "Embedded", address }, { maxConnections: 1 })))
    })))
    expect(checkpointed).toBe(true)
  }, 60_000)

  it("refuses to open a dir this process already hosts", async () => {
    const outcome = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      yield* hostTestDataDir(dataDir)
      return yield* Effect.either(Effect.scoped(hostTestDataDir(dataDir).pipe(Effect.catchAllDefect(Effect.fail))))
    })))
    expect(outcome._tag).toBe("Left")
    expect(existsSync(lockPath(dataDir))).toBe(false)
  }, 60_000)

  it("serves on 127.0.0.1 with an OS-assigned port when the socket path would be too long", async () => {
    const longDir = join(freshDataDir("long"), "x".repeat(90))
    try {
      const lock = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        const address = yield* hostTestDataDir(longDir)
        expect(address.host).toBe("127.0.0.1")
        expect(address.port).toBeGreaterThan(0)
        return JSON.parse(readFileSync(lockPath(longDir), "utf8")) as Record<string, unknown>
      })))
      expect(lock).toEqual({ pid: process.pid, role: "server", host: "127.0.0.1", port: expect.any(Number), startedAt: expect.any(String) })
    } finally {
      rmDataDir(join(longDir, ".."))
    }
  }, 60_000)
})
