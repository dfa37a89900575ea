// The SQL layer: @effect/sql's SqlClient through @effect/sql-pg, on DATABASE_URL when set and on the
// embedded PGlite socket otherwise, with the versioned migrations run before anything else uses it.
// Rows come back with column names as written in the SQL (no name transforms): alias in the query.
import { Migrator, type SqlClient, type SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { type ConfigError, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"
import { connectDataDir, type DataDirInUse, type EmbeddedAddress, type EmbeddedFailed, hostDataDir } from "./embedded.js"
import { loader } from "./migrations/index.js"

/** Where the pool connects. */
export type PgConnection =
  | { readonly _tag: "Url"; readonly url: string }
  | { readonly _tag: "Embedded"; readonly address: EmbeddedAddress }

export type DbRole = "server" | "cli"

export type DbError = ConfigError.ConfigError | DataDirInUse | EmbeddedFailed | SqlError.SqlError | Migrator.MigrationError

/**
 * A PgClient pool; on the embedded database, ONE connection. PGlite has one session and runs one query
 * at a time, so more connections would only move the queue from the pool into the bridge
 * (pglite-bridge.ts), and one connection keeps the service's statements in the order they were issued.
 * (The paper orders' group commit has a connection of its own besides: src/store/held-connection.ts; the
 * bridge runs each connection's statements whole, in the order they arrive.)
 */
export const pgLayer = (
  connection: PgConnection,
  options: { readonly maxConnections?: number } = {},
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError> =>
  PgClient.layer({
    ...(connection._tag === "Url"
      ? { url: Redacted.make(connection.url) }
      : { host: connection.address.host, port: connection.address.port, username: "postgres", database: "postgres" }),
    maxConnections: connection._tag === "Embedded" ? 1 : (options.maxConnections ?? 10),
    idleTimeout: "60 seconds",
    connectTimeout: "10 seconds",
    applicationName: "whalewatch",
  })

/** Brings the schema up to the latest migration; a no-op when it is already there. */
export const migrate: Effect.Effect<ReadonlyArray<readonly [number, string]>, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> =
  Migrator.make({})({ loader })

export const MigrationsLive: Layer.Layer<never, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> = Layer
  .effectDiscard(migrate)

/** Migrated SQL on an already known connection (tests, tools). */
export const dbLayerOn = (
  connection: PgConnection,
  options: { readonly maxConnections?: number } = {},
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError | Migrator.MigrationError> =>
  MigrationsLive.pipe(Layer.provideMerge(pgLayer(connection, options)))

/**
 * Migrated SQL from AppConfig. `server` hosts the embedded dir (refused when another process holds it);
 * `cli` goes through the socket of the process that holds it, or hosts it for the command's length.
 */
export const DbLive = (role: DbRole): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, DbError> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const config = yield* AppConfig
      if (Option.isSome(config.databaseUrl)) {
        return dbLayerOn({ _tag: "Url", url: config.databaseUrl.value }, { maxConnections: role === "server" ? 10 : 2 })
      }
      const address = role === "server"
        ? yield* hostDataDir({ dataDir: config.dataDir, role: "server" })
        : yield* connectDataDir(config.dataDir)
      return dbLayerOn({ _tag: "Embedded", address })
    }),
  )
