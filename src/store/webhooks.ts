// Webhook endpoints in PostgreSQL: register (at most `max` per account, atomically), list and remove an
// account's endpoints. Ids and secrets are drawn here, at the edge, from node:crypto. The secret is stored
// as issued, because signing a delivery needs the key itself (an API key, by contrast, is stored only as a
// hash); no read here returns it, so it leaves the service only in the creation response and, later, as
// the HMAC key of deliveries. These are plain functions over SqlClient rather than a service of their
// own: every process that serves operations already provides SqlClient, so nothing else needs wiring.
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

export interface StoredWebhook {
  readonly id: string
  readonly url: string
  /** Empty = every event type. */
  readonly events: ReadonlyArray<string>
  readonly createdAt: string
}

export interface CreatedWebhook extends StoredWebhook {
  /** "whsec_" + base64url of 32 random bytes; returned only by `create`. */
  readonly secret: string
}

interface Row {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly created_at: unknown
}

const newId = (): string => "wh_" + randomBytes(8).toString("hex")
const newSecret = (): string => "whsec_" + randomBytes(32).toString("base64url")

const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()

const fromRow = (row: Row): StoredWebhook => ({ id: row.id, url: row.url, events: [...row.events], createdAt: iso(row.created_at) })

/**
 * Stores a new endpoint unless the account already has `max`; none when it is full. One statement takes a
 * place on the account's counter (`accounts.webhook_endpoint_count`) and inserts: the UPDATE locks the
 * account row, and PostgreSQL re-checks `count < max` on the latest row after waiting for that lock, so
 * concurrent registrations of one account queue behind each other and can never pass `max` together.
 * (A count of the endpoints read inside the statement would see its start-of-statement snapshot and
 * let two of them through; an explicit transaction would do, but one statement is one round trip.)
 * Committed before it returns.
 */
const create = (input: {
  readonly accountId: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly max: number
}): Effect.Effect<Option.Option<CreatedWebhook>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const secret = newSecret()
    const rows = yield* sql<Row>`
      WITH place AS (
        UPDATE accounts SET webhook_endpoint_count = webhook_endpoint_count + 1
        WHERE id = ${input.accountId} AND webhook_endpoint_count < ${input.max}
        RETURNING id
      )
      INSERT INTO webhook_endpoints (id, account_id, url, events, secret)
      SELECT ${newId()}, place.id, ${input.url}, ${[...input.events]}::text[], ${secret} FROM place
      RETURNING id, url, events, created_at`
    const row = rows[0]
    return row === undefined ? Option.none<CreatedWebhook>() : Option.some<CreatedWebhook>({ ...fromRow(row), secret })
  }).pipe(Effect.orDie, Effect.withSpan("Webhooks.create"))

/** The account's endpoints, oldest first, without secrets. */
const list = (accountId: string): Effect.Effect<ReadonlyArray<StoredWebhook>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Row>`
      SELECT id, url, events, created_at FROM webhook_endpoints
      WHERE account_id = ${accountId}
      ORDER BY created_at, id`
    return rows.map(fromRow)
  }).pipe(Effect.orDie, Effect.withSpan("Webhooks.list"))

/**
 * Removes the account's endpoint `id`, gives its place back on the account's counter and, by the foreign
 * key's cascade, removes every delivery of it (pending ones included), all in one statement. False when
 * the account has no endpoint with that id.
 */
const remove = (accountId: string, id: string): Effect.Effect<boolean, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`
      WITH gone AS (
        DELETE FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId} RETURNING account_id
      )
      UPDATE accounts SET webhook_endpoint_count = webhook_endpoint_count - 1
      FROM gone WHERE accounts.id = gone.account_id
      RETURNING accounts.id`
    return rows.length > 0
  }).pipe(Effect.orDie, Effect.withSpan("Webhooks.remove"))

export const Webhooks = { create, list, remove } as const
