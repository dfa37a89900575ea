// Test databases, isolated per layer instance, on whichever backend the suite runs against.
//
// - DATABASE_URL set (CI's second run; the shared `test` database): each layer creates its own schema
//   `t_<pid>_<random>` and connects with `options=-c search_path=<schema>`, so every unqualified table,
//   the migrations table included, lives in that schema. Migrations run into it; the schema is dropped
//   when the layer closes. Nothing touches `public`, and files running in parallel never meet. Write
//   unqualified table names in SQL (no `public.`) and this holds for your tests too.
// - Otherwise: a fresh embedded data dir under os.tmpdir(), hosted in this process (PGlite in a worker,
//   behind the lock file, exactly as the service does), removed when the layer closes. A new cluster
//   takes 4-9 s to initialise, so it starts from a template tarball of an empty initialised cluster,
//   built once per machine and PGlite version in os.tmpdir() (~1-2 s to load).
//
// Use `TestDb` for SqlClient/PgClient (migrated), `TestStore` for that plus Keys and Settings.
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { rename, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { type Duration, Effect, Layer, type Scope } from "effect"
import pg from "pg"
import { dbLayerOn, type PgConnection, pgLayer } from "../../src/store/db.js"
import { type EmbeddedAddress, hostDataDir } from "../../src/store/embedded.js"
import type { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { type Settings, SettingsLive } from "../../src/store/settings.js"

/** The real server's URL when the suite runs against one. */
export const databaseUrl = (): string | undefined => {
  const url = process.env["DATABASE_URL"]
  return url === undefined || url === "" ? undefined : url
}

/** A new empty directory under os.tmpdir(); `rmDataDir` removes it. */
export const freshDataDir = (label = "store"): string => mkdtempSync(join(tmpdir(), `whalewatch-${label}-`))

export const rmDataDir = (dir: string): void => rmSync(dir, { recursive: true, force: true })

const PGLITE_VERSION = "0.5.14"
const templateFile = join(tmpdir(), `whalewatch-pglite-${PGLITE_VERSION}-template.tar.gz`)

/**
 * The path of a `dumpDataDir` tarball of an empty initialised cluster, built on first use. Concurrent
 * builders each write a temporary file and rename it into place, so readers never see half a file.
 */
export const pgliteTemplate = async (): Promise<string> => {
  if (existsSync(templateFile)) return templateFile
  const { PGlite } = await import("@electric-sql/pglite")
  const db = await PGlite.create()
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  const temporary = `${templateFile}.${process.pid}.${randomBytes(4).toString("hex")}`
  await writeFile(temporary, Buffer.from(await dump.arrayBuffer()))
  await rename(temporary, templateFile)
  return templateFile
}

/** Hosts `dataDir` in this process for the scope's life, creating its cluster from the template. */
export const hostTestDataDir = (
  dataDir: string,
  options: { readonly checkpointEvery?: Duration.Duration } = {},
): Effect.Effect<EmbeddedAddress, never, Scope.Scope> =>
  Effect.gen(function* () {
    const template = yield* Effect.promise(pgliteTemplate)
    return yield* hostDataDir({ dataDir, role: "server", template, ...options })
  }).pipe(Effect.orDie)

/** Creates `dataDir`'s cluster from the template and releases it, ready for a child process to open. */
export const seedDataDir = (dataDir: string): Promise<void> =>
  Effect.runPromise(Effect.scoped(hostTestDataDir(dataDir)).pipe(Effect.asVoid))

const withSchema = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

const adminQuery = (url: string, text: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  })

/** A private schema on the real server, dropped on release. */
const schemaOn = (url: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const schema = `t_${process.pid}_${randomBytes(4).toString("hex")}`
      yield* adminQuery(url, `CREATE SCHEMA ${schema}`)
      return schema
    }),
    (schema) => adminQuery(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).pipe(Effect.ignore),
  )

/** A temporary embedded data dir hosted here, removed on release. */
const embeddedTemp = Effect.acquireRelease(
  Effect.sync(() => freshDataDir("db")),
  (dir) => Effect.sync(() => rmDataDir(dir)),
).pipe(Effect.flatMap(hostTestDataDir))

/** SqlClient/PgClient made by `layerOn` on a private database: a schema on DATABASE_URL, else a temp data dir. */
const privateDb = (
  layerOn: (connection: PgConnection, options: { readonly maxConnections: number }) => Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown>,
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const url = databaseUrl()
      if (url !== undefined) {
        const schema = yield* schemaOn(url)
        return layerOn({ _tag: "Url", url: withSchema(url, schema) }, { maxConnections: 4 })
      }
      const address = yield* embeddedTemp
      return layerOn({ _tag: "Embedded", address }, { maxConnections: 4 })
    }),
  ).pipe(Layer.orDie)

/** Migrated SqlClient/PgClient on a private database. */
export const TestDb: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient> = privateDb(dbLayerOn)

/** The same with no migration run (migration tests). */
export const UnmigratedTestDb: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient> = privateDb(pgLayer)

/** TestDb plus the store's services. */
export const TestStore: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | Keys | Settings> = Layer
  .mergeAll(KeysLive, SettingsLive)
  .pipe(Layer.provideMerge(TestDb))
