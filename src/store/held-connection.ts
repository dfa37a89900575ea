// One pool connection kept by one writer for all of its statements (the paper orders' group commit), so a
// statement does not check a connection out of pg-pool and back in each time. That checkout and release
// (pg-pool's callbacks and idle timer, @effect/sql-pg's acquire) cost ~0.35 ms a statement at 100
// statements/s on this machine, half of a SELECT 1's round trip (README, "The paper-order writer").
// A statement that fails gives the connection back, and the next one takes a connection that has answered a
// SELECT 1 first: pg-pool can hand the same connection out again before its socket's end has been read (a
// backend terminated: seen in test/store/held-connection.test.ts), and that check, not a writer's
// statement, is what meets it then.
import type { SqlClient, SqlConnection, SqlError } from "@effect/sql"
import { Effect, Exit, Scope } from "effect"

export interface HeldConnection {
  /** Runs one statement (a constant text with $n parameters) on the held connection; its rows. */
  readonly execute: <Row extends object>(text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
}

/** A connection of `sql`'s pool held for the caller's scope (taken on the first statement). */
export const holdConnection = (sql: SqlClient.SqlClient): Effect.Effect<HeldConnection, never, Scope.Scope> =>
  Effect.gen(function* () {
    let held: { readonly connection: SqlConnection.Connection; readonly scope: Scope.CloseableScope } | null = null
    const giveBack = Effect.suspend(() => {
      const current = held
      held = null
      return current === null ? Effect.void : Scope.close(current.scope, Exit.void)
    })
    yield* Effect.addFinalizer(() => giveBack)
    /** Set by a failed statement: the next connection taken is checked first. */
    let suspect = false
    const reserve = Effect.flatMap(Scope.make(), (scope) =>
      Scope.extend(sql.reserve, scope).pipe(
        Effect.tap((connection) => (suspect ? connection.execute("SELECT 1", [], undefined) : Effect.void)),
        Effect.map((connection) => ({ connection, scope })),
        Effect.onError(() => Scope.close(scope, Exit.void)),
      ))
    const take = Effect.suspend(() => {
      if (held !== null) return Effect.succeed(held.connection)
      // A dead connection handed out again fails its check and is dropped; a few tries reach a live one.
      return reserve.pipe(
        Effect.retry({ times: 3 }),
        Effect.map((taken) => {
          held = taken
          suspect = false
          return taken.connection
        }),
      )
    })
    return {
      execute: <Row extends object>(text: string, params: ReadonlyArray<unknown>) =>
        Effect.flatMap(take, (connection) => connection.execute(text, params, undefined) as Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>)
          .pipe(Effect.tapError(() => Effect.zipRight(Effect.sync(() => (suspect = true)), giveBack))),
    }
  })
