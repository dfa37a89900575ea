// Server settings: small named values in the `settings` table, such as the secret that signs cursors and
// one-time flags. A secret is generated once (insert-if-absent) and stays stable across restarts and nodes.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"

export class Settings extends Effect.Tag("whalewatch/Settings")<Settings, {
  readonly get: (key: string) => Effect.Effect<Option.Option<string>>
  /** Stores the value unless the key exists; true when this call stored it. */
  readonly insertIfAbsent: (key: string, value: string) => Effect.Effect<boolean>
  /** A 32-byte hex secret named `name`, the same for every caller and every restart. */
  readonly secret: (name: string) => Effect.Effect<string>
}>() {}

export const SettingsLive: Layer.Layer<Settings, never, SqlClient.SqlClient> = Layer.effect(
  Settings,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const secrets = new Map<string, string>()

    const get = (key: string) =>
      sql<{ value: string }>`SELECT value FROM settings WHERE key = ${key}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.value)),
        Effect.orDie,
        Effect.withSpan("Settings.get"),
      )

    const insertIfAbsent = (key: string, value: string) =>
      sql<{ key: string }>`INSERT INTO settings (key, value) VALUES (${key}, ${value})
        ON CONFLICT (key) DO NOTHING RETURNING key`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("Settings.insertIfAbsent"),
      )

    const secret = (name: string) =>
      Effect.gen(function* () {
        const known = secrets.get(name)
        if (known !== undefined) return known
        const key = `secret:${name}`
        yield* insertIfAbsent(key, randomBytes(32).toString("hex"))
        const stored = yield* get(key)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`setting ${key} vanished`)
        secrets.set(name, stored.value)
        return stored.value
      })

    return { get, insertIfAbsent, secret }
  }),
)
