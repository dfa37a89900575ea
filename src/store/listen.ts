// LISTEN on one PostgreSQL channel over a connection of its own (node-postgres, with the pool's settings).
// @effect/sql-pg has `listen`, but its listening connection swallows its own errors: one cut by a server
// restart or a terminated backend goes quiet for the process's life, and the stream neither ends nor
// fails. Here the stream fails when its connection errors or ends, so the caller listens again, and also
// when the connection stops answering: a peer gone without a reset (a host lost, a network partition)
// leaves a socket that neither errors nor ends for as long as TCP keeps it, so the listening connection is
// asked `SELECT 1` every `checkEveryMs` and given up when it does not answer within `checkTimeoutMs`.
import { SqlClient, SqlError } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Stream } from "effect"
import pg from "pg"
import { clientConfig } from "./held-connection.js"

export interface ListenOptions {
  /** How often the connection is asked whether it still answers (default 10 s). */
  readonly checkEveryMs?: number
  /** How long it has to answer (default 5 s). */
  readonly checkTimeoutMs?: number
}

/**
 * Each payload NOTIFYed on `channel` from when the LISTEN is in place; fails when the connection breaks
 * or stops answering. `applicationName` names the connection in pg_stat_activity.
 */
export const listen = (
  config: PgClient.PgClientConfig, channel: string, applicationName: string, options: ListenOptions = {},
): Stream.Stream<string, SqlError.SqlError> =>
  Stream.asyncScoped<string, SqlError.SqlError>((emit) =>
    Effect.gen(function* () {
      const client = new pg.Client(clientConfig(config, applicationName))
      const lost = (cause: unknown) => void emit.fail(new SqlError.SqlError({ cause, message: `The connection listening on ${channel} was lost` }))
      client.on("error", lost)
      client.on("end", () => lost(new Error("the connection ended")))
      client.on("notification", (message) => {
        if (message.channel === channel && message.payload !== undefined) void emit.single(message.payload)
      })
      yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            await client.connect()
            await client.query(`LISTEN ${client.escapeIdentifier(channel)}`)
          },
          catch: (cause) => new SqlError.SqlError({ cause, message: `Failed to listen on ${channel}` }),
        }),
        () => Effect.promise(() => {
          client.removeAllListeners("end")
          return client.end().catch(() => undefined)
        }),
      )
      // A check left unanswered is still pending when the stream fails, so the release's `end` destroys the
      // socket (node-postgres does with a query in flight) rather than wait for a goodbye that cannot come.
      const timeoutMs = options.checkTimeoutMs ?? 5_000
      const check = Effect.tryPromise(() => client.query("SELECT 1")).pipe(
        Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new Error(`no answer to SELECT 1 within ${timeoutMs} ms`) }),
      )
      yield* Effect.forkScoped(check.pipe(
        Effect.delay(Duration.millis(options.checkEveryMs ?? 10_000)),
        Effect.forever,
        Effect.catchAll((cause) => Effect.sync(() => lost(cause))),
      ))
    }))

/**
 * How many connections other than `name` whose application_name starts with `prefix` the server has open
 * (pg_stat_activity shows every session's name to every role). PostgreSQL keeps 63 bytes of a name, so
 * `name` is compared as kept.
 */
export const othersNamed = (prefix: string, name: string): Effect.Effect<number, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE starts_with(application_name, ${prefix}) AND application_name <> left(${name}, 63)`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
    ))

/** The schema the store's tables are in (the first of the search path that exists). */
export const currentSchema: Effect.Effect<string, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ schema: string }>`SELECT current_schema() AS schema`, (rows) => rows[0]?.schema ?? "public"))
