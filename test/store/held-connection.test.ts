// holdConnection: one connection of the writer's own, opened with the pool's settings, running named
// prepared statements; one that fails closes it and the next statement opens another; closing its scope
// closes it.
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { holdConnection } from "../../src/store/held-connection.js"
import { databaseUrl, TestDb } from "../support/db.js"

const db = ManagedRuntime.make(TestDb)
afterAll(() => db.dispose())
const run = <A, E>(e: Effect.Effect<A, E, SqlClient.SqlClient | PgClient.PgClient | Scope.Scope>) =>
  db.runPromise(Effect.scoped(e) as Effect.Effect<A, never, SqlClient.SqlClient | PgClient.PgClient>)
const held = Effect.flatMap(PgClient.PgClient, (client) => holdConnection(client.config))

describe("holdConnection", () => {
  it("runs prepared statements with parameters; one that fails does not break the next", async () => {
    const out = await run(Effect.gen(function* () {
      const conn = yield* held
      const first = yield* conn.execute<{ n: number }>("t_add", "SELECT $1::int + 1 AS n", [41])
      const again = yield* conn.execute<{ n: number }>("t_add", "SELECT $1::int + 1 AS n", [1])
      const failed = yield* Effect.exit(conn.execute("t_div", "SELECT 1 / $1::int AS n", [0]))
      const after = yield* conn.execute<{ n: number }>("t_add", "SELECT $1::int + 1 AS n", [6])
      return { first, again, failed: Exit.isFailure(failed), after }
    }))
    expect(out).toEqual({ first: [{ n: 42 }], again: [{ n: 2 }], failed: true, after: [{ n: 7 }] })
  })

  it("sees what the pool wrote, and the pool sees what it wrote", async () => {
    const out = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE held_t (n int)`
      const conn = yield* held
      yield* sql`INSERT INTO held_t VALUES (1)`
      yield* conn.execute("t_ins", "INSERT INTO held_t VALUES ($1)", [2])
      const mine = yield* conn.execute<{ n: number }>("t_sel", "SELECT n FROM held_t ORDER BY n", [])
      const theirs = yield* sql<{ n: number }>`SELECT n FROM held_t ORDER BY n`
      return { mine, theirs }
    }))
    expect(out).toEqual({ mine: [{ n: 1 }, { n: 2 }], theirs: [{ n: 1 }, { n: 2 }] })
  })

  it("closes its connection with its scope; a second one prepares the same names again", async () => {
    const out = await run(Effect.gen(function* () {
      const rows: Array<unknown> = []
      for (let i = 0; i < 3; i++) {
        rows.push(yield* Effect.scoped(Effect.flatMap(held, (conn) => conn.execute("t_same", "SELECT $1::int AS n", [i]))))
      }
      return rows
    }))
    expect(out).toEqual([[{ n: 0 }], [{ n: 1 }], [{ n: 2 }]])
  })

  it.runIf(databaseUrl() !== undefined)("keeps one backend; after the backend dies, the next statement opens another", async () => {
    const out = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const conn = yield* held
      const pid = () => Effect.map(conn.execute<{ pid: number }>("t_pid", "SELECT pg_backend_pid() AS pid", []), (rows) => rows[0]?.pid)
      const a = yield* pid()
      const b = yield* pid()
      yield* sql`SELECT pg_terminate_backend(${a ?? 0})`
      // The end may be seen before the next statement (closed while idle) or by it (that statement fails).
      const next = yield* Effect.exit(pid())
      const c = Exit.isSuccess(next) ? next.value : yield* pid()
      return { same: a === b, other: c !== undefined && c !== a }
    }))
    expect(out).toEqual({ same: true, other: true })
  })
})
