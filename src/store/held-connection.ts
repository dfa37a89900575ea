// One connection of its own for one writer (the paper orders' group commit), opened with the same settings
// as the service's @effect/sql-pg pool, and running its statements as named prepared statements: parsed
// and planned once per connection, then only bound and executed. On this machine, one order's INSERT at
// 100 to 250 a second took 0.25 to 0.5 ms less than the same statement parsed and planned each time, and
// skipping the pool's checkout and release saved another ~0.35 ms (README, "The paper-order writer").
// This is node-postgres itself, the client @effect/sql-pg wraps, used directly because @effect/sql has no
// named statements; everything else goes through SqlClient.
//
// The connection opens on the first statement. A statement that fails closes it (its state is unknown:
// the server may have ended it), and the next statement opens another. On the embedded store every
// connection shares PGlite's one session, so each connection names its statements apart (`_<n>`): a
// new connection must not meet the name an earlier one prepared (the bridge deallocates a closed
// connection's statements, but may learn of the close after the next connection's first Parse).
import { SqlError } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted, type Scope } from "effect"
import pg from "pg"

export interface HeldConnection {
  /**
   * Runs statement `name` (a constant text with $n parameters, prepared on first use) on the held
   * connection; its rows.
   */
  readonly execute: <Row extends object>(name: string, text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
}

/** Connections opened by this process (a part of every statement name: see the file's top). */
let opened = 0

interface Opened {
  readonly client: pg.Client
  /** Its number among `opened`. */
  readonly n: number
  readonly ready: Promise<void>
}

/** node-postgres settings for one connection as the @effect/sql-pg pool of `config` opens them. */
export const clientConfig = (config: PgClient.PgClientConfig, applicationName?: string): pg.ClientConfig => ({
  ...(config.url === undefined ? {} : { connectionString: Redacted.value(config.url) }),
  ...(config.host === undefined ? {} : { host: config.host }),
  ...(config.port === undefined ? {} : { port: config.port }),
  ...(config.database === undefined ? {} : { database: config.database }),
  ...(config.username === undefined ? {} : { user: config.username }),
  ...(config.password === undefined ? {} : { password: Redacted.value(config.password) }),
  ...(config.ssl === undefined ? {} : { ssl: config.ssl }),
  ...(config.connectTimeout === undefined ? {} : { connectionTimeoutMillis: Duration.toMillis(config.connectTimeout) }),
  application_name: applicationName ?? config.applicationName ?? "whalewatch",
})

/** A connection with `config`'s settings, held for the caller's scope. */
export const holdConnection = (config: PgClient.PgClientConfig): Effect.Effect<HeldConnection, never, Scope.Scope> =>
  Effect.gen(function* () {
    let held: Opened | null = null
    const close = (): void => {
      const current = held
      held = null
      if (current !== null) void current.client.end().catch(() => undefined)
    }
    yield* Effect.addFinalizer(() => Effect.sync(close))
    const open = (): Opened => {
      if (held !== null) return held
      const client = new pg.Client(clientConfig(config))
      // A connection that breaks while idle is closed; the next statement opens another.
      client.on("error", () => {
        if (held?.client === client) close()
      })
      opened += 1
      const taken: Opened = { client, n: opened, ready: client.connect().then(() => undefined) }
      held = taken
      return taken
    }
    return {
      execute: <Row extends object>(name: string, text: string, params: ReadonlyArray<unknown>) =>
        Effect.async<ReadonlyArray<Row>, SqlError.SqlError>((resume) => {
          const current = open()
          const fail = (cause: unknown) => {
            if (held === current) close()
            resume(Effect.fail(new SqlError.SqlError({ cause, message: `Failed to execute statement ${name}` })))
          }
          current.ready.then(() => {
            current.client.query<Row>({ name: `${name}_${current.n}`, text, values: [...params] }, (error, result) => {
              if (error) fail(error)
              else resume(Effect.succeed(result.rows))
            })
          }, fail)
        }),
    }
  })
