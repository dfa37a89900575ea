// The webhook outbox in PostgreSQL (tables: migrations 2 and 7). An event is enqueued once per endpoint
// that subscribes to its type — every such endpoint, one account's, or the accounts whose trader bots
// follow a trader — in one statement per batch. A delivery's id is derived from its endpoint and the
// event's key, so enqueueing the same event again (a replayed feed, two nodes recording the same trade)
// never makes a second delivery. Deleting an endpoint cascades to its deliveries.
//
// Sending (webhooks/deliverer.ts) claims due deliveries with a lease: `claim` moves their
// `next_attempt_at` forward by the lease in the same statement that returns them (SKIP LOCKED), so two
// nodes never send one delivery at once, and one that a crashed node had in flight is sent again when
// the lease runs out (deliveries are at least once; receivers dedupe by the delivery id header).
import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Who gets an event: every subscribed endpoint, one account's, or the accounts following a trader. */
export type Audience =
  | { readonly _tag: "everyone" }
  | { readonly _tag: "account"; readonly accountId: string }
  | { readonly _tag: "followers"; readonly trader: string }

export interface OutboxEvent {
  /** Stable and unique per event (`trade.whale:<trade id>`): the delivery id derives from it. */
  readonly key: string
  readonly type: string
  readonly audience: Audience
  /** The JSON text of the delivery body, exactly as it will be signed and sent. */
  readonly body: string
}

export interface DueDelivery {
  readonly id: string
  readonly eventType: string
  readonly body: string
  /** Attempts made before this one. */
  readonly attempts: number
  readonly url: string
  readonly secret: string
}

const at = (ms: number) => new Date(ms)

/**
 * (account_id, trader) of every follow: an account follows a trader with a trader bot on it that has not
 * ended, or by hand (POST /v1/traders/{platform}/{traderId}/follow).
 */
const followersOf = (sql: SqlClient.SqlClient) => sql`
  SELECT account_id, trader FROM bots WHERE kind = 'trader' AND status <> 'ended' AND trader IS NOT NULL
  UNION SELECT account_id, trader FROM follows`

/** One statement per audience kind; an event of a kind nobody subscribes to inserts nothing. */
const enqueue: (events: ReadonlyArray<OutboxEvent>, now: number) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (events: ReadonlyArray<OutboxEvent>, now: number) {
    if (events.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const columns = (list: ReadonlyArray<OutboxEvent>, target: (e: OutboxEvent) => string) => ({
      keys: list.map((e) => e.key),
      types: list.map((e) => e.type),
      targets: list.map(target),
      bodies: list.map((e) => e.body),
    })
    const everyone = events.filter((e) => e.audience._tag === "everyone")
    const accounts = events.filter((e) => e.audience._tag === "account")
    const followers = events.filter((e) => e.audience._tag === "followers")
    if (everyone.length > 0) {
      const c = columns(everyone, () => "")
      yield* sql`
        INSERT INTO webhook_deliveries (id, endpoint_id, event_type, body, next_attempt_at, created_at)
        SELECT 'whd_' || md5(w.id || '|' || ev.key), w.id, ev.type, ev.body, ${at(now)}, ${at(now)}
        FROM unnest(${c.keys}::text[], ${c.types}::text[], ${c.bodies}::text[]) AS ev (key, type, body)
        JOIN webhook_endpoints w ON cardinality(w.events) = 0 OR ev.type = ANY (w.events)
        ON CONFLICT (id) DO NOTHING`
    }
    if (accounts.length > 0) {
      const c = columns(accounts, (e) => (e.audience._tag === "account" ? e.audience.accountId : ""))
      yield* sql`
        INSERT INTO webhook_deliveries (id, endpoint_id, event_type, body, next_attempt_at, created_at)
        SELECT 'whd_' || md5(w.id || '|' || ev.key), w.id, ev.type, ev.body, ${at(now)}, ${at(now)}
        FROM unnest(${c.keys}::text[], ${c.types}::text[], ${c.targets}::text[], ${c.bodies}::text[]) AS ev (key, type, account, body)
        JOIN webhook_endpoints w ON w.account_id = ev.account AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events))
        ON CONFLICT (id) DO NOTHING`
    }
    if (followers.length > 0) {
      const c = columns(followers, (e) => (e.audience._tag === "followers" ? e.audience.trader : ""))
      yield* sql`
        INSERT INTO webhook_deliveries (id, endpoint_id, event_type, body, next_attempt_at, created_at)
        SELECT DISTINCT ON (w.id, ev.key) 'whd_' || md5(w.id || '|' || ev.key), w.id, ev.type, ev.body, ${at(now)}, ${at(now)}
        FROM unnest(${c.keys}::text[], ${c.types}::text[], ${c.targets}::text[], ${c.bodies}::text[]) AS ev (key, type, trader, body)
        JOIN (${followersOf(sql)}) f ON f.trader = ev.trader
        JOIN webhook_endpoints w ON w.account_id = f.account_id AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events))
        ON CONFLICT (id) DO NOTHING`
    }
  }, Effect.orDie, Effect.withSpan("WebhookDeliveries.enqueue"))

interface DueRow {
  readonly id: string
  readonly event_type: string
  readonly body: unknown
  readonly attempts: number
  readonly url: string
  readonly secret: string
}

/** Up to `limit` due deliveries, oldest due first, each leased until `now + leaseMs`. */
const claim: (now: number, leaseMs: number, limit: number) => Effect.Effect<ReadonlyArray<DueDelivery>, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (now: number, leaseMs: number, limit: number) {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<DueRow>`
      WITH due AS (
        SELECT id FROM webhook_deliveries
        WHERE delivered_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= ${at(now)}
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE webhook_deliveries d SET next_attempt_at = ${at(now + leaseMs)}
      FROM due, webhook_endpoints w
      WHERE d.id = due.id AND w.id = d.endpoint_id
      RETURNING d.id, d.event_type, d.body, d.attempts, w.url, w.secret`
    return rows.map((r) => ({
      id: r.id, eventType: r.event_type, body: String(r.body), attempts: Number(r.attempts), url: r.url, secret: r.secret,
    }))
  }, Effect.orDie, Effect.withSpan("WebhookDeliveries.claim"))

export interface AttemptOutcome {
  readonly id: string
  /** The HTTP status, or null when no answer came (refused address, connection error, timeout). */
  readonly status: number | null
  readonly error: string | null
  readonly delivered: boolean
  /** When to try again; null = give up (or delivered). */
  readonly retryAt: number | null
}

/** Records one attempt's outcome (a delivery deleted meanwhile is simply not there any more). */
const record: (outcome: AttemptOutcome, now: number) => Effect.Effect<void, never, SqlClient.SqlClient> =
  Effect.fnUntraced(function* (outcome: AttemptOutcome, now: number) {
    const sql = yield* SqlClient.SqlClient
    if (outcome.delivered) {
      yield* sql`
        UPDATE webhook_deliveries SET attempts = attempts + 1, delivered_at = ${at(now)}, last_status = ${outcome.status},
          last_error = NULL
        WHERE id = ${outcome.id}`
    } else if (outcome.retryAt === null) {
      yield* sql`
        UPDATE webhook_deliveries SET attempts = attempts + 1, abandoned_at = ${at(now)}, last_status = ${outcome.status},
          last_error = ${outcome.error}
        WHERE id = ${outcome.id}`
    } else {
      yield* sql`
        UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ${at(outcome.retryAt)},
          last_status = ${outcome.status}, last_error = ${outcome.error}
        WHERE id = ${outcome.id}`
    }
  }, Effect.orDie, Effect.withSpan("WebhookDeliveries.record"))

/** Forgets delivered and abandoned deliveries older than `before`. */
const purge = (before: number): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
    DELETE FROM webhook_deliveries
    WHERE (delivered_at IS NOT NULL OR abandoned_at IS NOT NULL) AND created_at < ${at(before)}`).pipe(
    Effect.asVoid, Effect.orDie, Effect.withSpan("WebhookDeliveries.purge"))

/** Who wants what: the event types some endpoint subscribes to ("*": an endpoint takes every type), and the traders followed (by a trader bot or by hand) by an account with an endpoint taking `trade.followed`. */
export interface Interest {
  readonly types: ReadonlySet<string>
  readonly followed: ReadonlySet<string>
  /** Each account with an endpoint: the types its endpoints take ("*": every type). */
  readonly accounts: ReadonlyMap<string, ReadonlySet<string>>
}

const interest = (): Effect.Effect<Interest, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const subscribed = yield* sql<{ account: string; type: string }>`
      SELECT DISTINCT account_id AS account, t AS type FROM webhook_endpoints,
        unnest(CASE WHEN cardinality(events) = 0 THEN ARRAY['*'] ELSE events END) AS t`
    const accounts = new Map<string, Set<string>>()
    for (const r of subscribed) {
      const types = accounts.get(r.account) ?? new Set<string>()
      types.add(r.type)
      accounts.set(r.account, types)
    }
    const followed = yield* sql<{ trader: string }>`
      SELECT DISTINCT f.trader FROM (${followersOf(sql)}) f
      JOIN webhook_endpoints w ON w.account_id = f.account_id
      WHERE cardinality(w.events) = 0 OR 'trade.followed' = ANY (w.events)`
    return { types: new Set(subscribed.map((r) => r.type)), followed: new Set(followed.map((r) => r.trader)), accounts }
  }).pipe(Effect.orDie, Effect.withSpan("WebhookDeliveries.interest"))

/** The id a delivery of event `key` to endpoint `endpointId` has (as the statements above compute it). */
export const deliveryIdOf = (endpointId: string, key: string): string =>
  "whd_" + createHash("md5").update(`${endpointId}|${key}`).digest("hex")

export const WebhookDeliveries = { enqueue, claim, record, purge, interest } as const
