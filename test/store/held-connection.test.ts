// holdConnection: one pool connection kept across statements, given back when a statement fails (the
// next takes another), and given back when its scope closes.
import { SqlClient } from "@effect/sql"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { holdConnection } from "../../src/store/held-connection.js"
import { databaseUrl, TestDb } from "../support/db.js"

const db = ManagedRuntime.make(TestDb)
afterAll(() => db.dispose())
const run = <A, E>(e: Effect.Effect<A, E, SqlClient.SqlClient | Scope.Scope>) =>
  db.runPromise(Effect.scoped(e) as Effect.Effect<A, never, SqlClient.SqlClient>)

describe("holdConnection", () => {
  it("runs statements with parameters; one that fails does not break the next", async () => {
    const out = await run(Effect.gen(function* () {
      const held = yield* holdConnection(yield* SqlClient.SqlClient)
      const first = yield* held.execute<{ n: number }>("SELECT $1::int + 1 AS n", [41])
      const failed = yield* Effect.exit(held.execute("SELECT 1 / $1::int AS n", [0]))
      const after = yield* held.execute<{ n: number }>("SELECT $1::int AS n", [7])
      return { first, failed: Exit.isFailure(failed), after }
    }))
    expect(out).toEqual({ first: [{ n: 42 }], failed: true, after: [{ n: 7 }] })
  })

  it("gives its connection back when its scope closes, so the pool serves others", async () => {
    const out = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (let i = 0; i < 5; i++) {
        yield* Effect.scoped(Effect.flatMap(holdConnection(sql), (held) => held.execute("SELECT 1 AS n", [])))
      }
      // Each held connection went back: the pool still answers, several statements at once.
      return yield* Effect.all([sql`SELECT 1 AS n`, sql`SELECT 2 AS n`, sql`SELECT 3 AS n`], { concurrency: "unbounded" })
    }))
    expect(out.map((rows) => rows[0])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
  })

  it.runIf(databaseUrl() !== undefined)("keeps one backend; after the backend dies, the next statement takes another", async () => {
    const out = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const held = yield* holdConnection(sql)
      const pid = () => Effect.map(held.execute<{ pid: number }>("SELECT pg_backend_pid() AS pid", []), (rows) => rows[0]?.pid)
      const a = yield* pid()
      const b = yield* pid()
      yield* sql`SELECT pg_terminate_backend(${a ?? 0})`
      const dead = yield* Effect.exit(pid())
      const c = yield* pid()
      return { same: a === b, dead: Exit.isFailure(dead), other: c !== undefined && c !== a }
    }))
    expect(out).toEqual({ same: true, dead: true, other: true })
  })
})
