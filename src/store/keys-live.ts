// KeysLive: API keys and accounts in PostgreSQL. Only a sha256 of each key is stored; authentication looks
// the hash up and compares in constant time. Scopes are fixed at creation (there is no update). Results
// are cached so the hot path stays off the database, while a cache miss always asks it, so a key made by
// the CLI in another process works at once.
//
// Freshness: what a cached result says changes only when a key is revoked (or deleted) or an account's
// subscription flag changes, and every such change moves the store's change counter (`key_changes`,
// migration 17) in its own transaction. Every lookup reads the counter in the same snapshot as its rows,
// and a node keeps the newest count it has seen: an entry read under an older count is not used. While
// keys are in use the counter is read again (one statement for all keys) once the last reading is
// CHECK_MS old, in the background; a request waits for it only when the last reading is over TRUST_MS
// old (a node that was idle). So a revocation from another process takes effect within TRUST_MS, one
// through this node at once, and a busy node asks about the counter once a second rather than about
// every key in use (it used to re-read each key every 1-2 s: on the embedded store those statements
// queued with every paper order's write).
//
// Cost: the lookups waiting at one moment (misses and expired entries, of any keys) are ONE statement
// (`key_hash = ANY(...)`). An entry lives ENTRY_TTL_MS at most whatever the counter says (a change made
// behind the triggers' back still shows), and a key in use is re-read in the background from half that
// age on, so its requests do not wait on the store.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Deferred, Effect, Exit, FiberId, Layer, Option, Schema } from "effect"
import { Scope } from "../domain/enums.js"
import type { Principal } from "../domain/principal.js"
import { Keys, type KeyListing } from "./keys.js"

const KEY_PREFIX = "ww_"
/** "ww_" + base64url of 32 bytes. */
const KEY_LENGTH = KEY_PREFIX.length + 43
/** The longest a result is kept, whatever the change counter says. */
const ENTRY_TTL_MS = 60_000
const NEGATIVE_TTL_MS = 1_000
/** A key in use is re-read in the background once its entry is this old. */
const REFRESH_AHEAD_MS = ENTRY_TTL_MS / 2
/** The change counter is read again, in the background, once the last reading is this old. */
const CHECK_MS = 1_000
/** Beyond this age of the last reading, a request waits for a new one before trusting the cache. */
const TRUST_MS = 2_000
const CACHE_LIMIT = 10_000

const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex")
const newKey = (): string => KEY_PREFIX + randomBytes(32).toString("base64url")
const newKeyId = (): string => "key_" + randomBytes(6).toString("hex")
const newAccountId = (): string => "acc_" + randomBytes(6).toString("hex")

/** Scopes in one canonical order, without repeats. */
const canonical = (scopes: ReadonlyArray<Scope>): ReadonlyArray<Scope> =>
  Scope.literals.filter((scope) => scopes.includes(scope))

const Scopes = Schema.Array(Scope)
const decodeScopes = Schema.decodeUnknownSync(Scopes)

const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()

interface KeyRow {
  readonly key_id: string
  readonly key_hash: string
  readonly scopes: ReadonlyArray<string>
  readonly account_id: string
  readonly account_name: string
  readonly subscription_active: boolean
}

interface ListingRow {
  readonly key_id: string
  readonly account_name: string
  readonly scopes: ReadonlyArray<string>
  readonly subscription_active: boolean
  readonly created_at: unknown
  readonly revoked_at: unknown
}

/** At most this many hashes per lookup statement. */
const LOOKUP_BATCH = 500

export const KeysLive: Layer.Layer<Keys, never, SqlClient.SqlClient> = Layer.effect(
  Keys,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** Entries by key hash, each with the change count it was read under. */
    const cache = new Map<string, { readonly principal: Option.Option<Principal>; readonly until: number; readonly count: bigint }>()
    /** The newest change count seen (-1 before the first), and the Clock time of the reading it came from. */
    let count = -1n
    let countAt = Number.NEGATIVE_INFINITY
    /** Hashes being refreshed ahead of expiry. */
    const refreshing = new Set<string>()

    /** A reading of the change counter taken at `at`: a newer count drops every entry read before it. */
    const observe = (read: bigint, at: number): void => {
      if (read > count) {
        count = read
        cache.clear()
      }
      if (at > countAt) countAt = at
    }

    const principalOf = (hash: string, row: KeyRow | undefined): Option.Option<Principal> => {
      if (row === undefined) return Option.none<Principal>()
      const stored = Buffer.from(row.key_hash, "hex")
      const given = Buffer.from(hash, "hex")
      if (stored.length !== given.length || !timingSafeEqual(stored, given)) return Option.none<Principal>()
      return Option.some<Principal>({
        keyId: row.key_id,
        accountId: row.account_id,
        accountName: row.account_name,
        scopes: canonical(decodeScopes(row.scopes)),
        subscriptionActive: row.subscription_active,
      })
    }

    // Every lookup waiting is one statement, run by a daemon fiber that drains the waiting list and ends
    // (no fiber outlives the work, so the service also works outside the layer's scope, as tests use it).
    // Each answer carries the change count of the statement's snapshot.
    type Looked = { readonly principal: Option.Option<Principal>; readonly count: bigint }
    type Waiting = { readonly hash: string; readonly done: Deferred.Deferred<Looked> }
    const waiting: Array<Waiting> = []
    let draining = false
    const answer = (batch: ReadonlyArray<Waiting>) =>
      Effect.gen(function* () {
        const hashes = [...new Set(batch.map((w) => w.hash))]
        const at = yield* Clock.currentTimeMillis
        // The counter's one row joined to the keys found (none: one row of nulls), in one snapshot.
        const exit = yield* Effect.exit(sql<KeyRow & { readonly count: string }>`
          SELECT c.n::text AS count, f.key_id, f.key_hash, f.scopes, f.account_id, f.account_name, f.subscription_active
          FROM key_changes c LEFT JOIN (
            SELECT k.id AS key_id, k.key_hash, k.scopes, a.id AS account_id, a.name AS account_name,
                   a.subscription_active
            FROM api_keys k JOIN accounts a ON a.id = k.account_id
            WHERE k.key_hash = ANY(${hashes}::text[]) AND k.revoked_at IS NULL
          ) f ON true`.pipe(Effect.orDie))
        if (Exit.isFailure(exit)) {
          for (const w of batch) yield* Deferred.failCause(w.done, exit.cause)
          return
        }
        const read = BigInt(exit.value[0]?.count ?? "0")
        observe(read, at)
        const rows = new Map(exit.value.flatMap((row) => (row.key_hash === null ? [] : [[row.key_hash, row] as const])))
        for (const w of batch) yield* Deferred.succeed(w.done, { principal: principalOf(w.hash, rows.get(w.hash)), count: read })
      })
    const drain = (): Effect.Effect<void> => {
      if (waiting.length === 0) {
        draining = false
        return Effect.void
      }
      return Effect.zipRight(answer(waiting.splice(0, LOOKUP_BATCH)), Effect.suspend(drain))
    }
    const lookup = (hash: string): Effect.Effect<Looked> =>
      Effect.flatMap(Deferred.make<Looked>(), (done) =>
        Effect.suspend(() => {
          waiting.push({ hash, done })
          if (draining) return Deferred.await(done)
          draining = true
          return Effect.zipRight(Effect.forkDaemon(Effect.suspend(drain)), Deferred.await(done))
        }))

    /** Caches a lookup's answer, unless a newer change count has been seen since its snapshot. */
    const remember = (hash: string, looked: Looked, now: number): void => {
      if (looked.count !== count) return
      if (cache.size >= CACHE_LIMIT) cache.clear()
      cache.set(hash, { principal: looked.principal, until: now + (Option.isSome(looked.principal) ? ENTRY_TTL_MS : NEGATIVE_TTL_MS), count: looked.count })
    }

    // One reading of the change counter at a time, shared by every request waiting for it (a daemon:
    // a request that goes away does not cut it short for the others).
    let reading: Deferred.Deferred<void> | null = null
    const readCount = (): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (reading !== null) return Deferred.await(reading)
        const done = Deferred.unsafeMake<void>(FiberId.none)
        reading = done
        const run = Effect.flatMap(Clock.currentTimeMillis, (at) =>
          sql<{ count: string }>`SELECT n::text AS count FROM key_changes`.pipe(
            Effect.tap((rows) => Effect.sync(() => observe(BigInt(rows[0]?.count ?? "0"), at))),
          )).pipe(
            Effect.orDie,
            Effect.onExit((exit) => Effect.sync(() => {
              reading = null
              Deferred.unsafeDone(done, Exit.asVoid(exit))
            })),
          )
        return Effect.zipRight(Effect.forkDaemon(run), Deferred.await(done))
      })

    // One generator for every call (a generator made per call kept each request alive through a young GC: api.ts).
    const authenticate = Effect.fnUntraced(function* (token: string) {
      if (!token.startsWith(KEY_PREFIX) || token.length !== KEY_LENGTH) return Option.none<Principal>()
      const hash = sha256(token)
      const now = yield* Clock.currentTimeMillis
      // A node that has not read the counter lately first learns whether anything changed (a lookup reads
      // it anyway); a busy one learns it behind its requests.
      let cached = cache.get(hash)
      if (cached !== undefined && now - countAt > TRUST_MS) {
        yield* readCount()
        cached = cache.get(hash)
      } else if (now - countAt >= CHECK_MS && reading === null) {
        yield* Effect.forkDaemon(Effect.ignore(readCount()))
      }
      if (cached !== undefined && cached.until > now && cached.count === count) {
        // Refresh ahead: a key in use is read again before its entry expires, off the request path.
        if (Option.isSome(cached.principal) && cached.until - now <= REFRESH_AHEAD_MS && !refreshing.has(hash)) {
          refreshing.add(hash)
          yield* Effect.forkDaemon(lookup(hash).pipe(
            Effect.tap((looked) => Effect.sync(() => remember(hash, looked, now))),
            Effect.ensuring(Effect.sync(() => refreshing.delete(hash))),
          ))
        }
        return cached.principal
      }
      const looked = yield* lookup(hash)
      remember(hash, looked, now)
      return looked.principal
    }) // per request: no span (each one provides and restores a service)

    const create = (input: { readonly account: string; readonly scopes: ReadonlyArray<Scope>; readonly subscription: boolean }) =>
      Effect.gen(function* () {
        const scopes = canonical(input.scopes)
        if (scopes.length === 0) return yield* Effect.dieMessage("a key needs at least one scope")
        // The subscription flag applies when the account is created; `false` also marks an existing one.
        const [account] = yield* sql<{ id: string }>`
          INSERT INTO accounts (id, name, subscription_active)
          VALUES (${newAccountId()}, ${input.account}, ${input.subscription})
          ON CONFLICT (name) DO UPDATE
            SET subscription_active = accounts.subscription_active AND EXCLUDED.subscription_active
          RETURNING id`
        if (account === undefined) return yield* Effect.dieMessage(`account ${input.account} was not stored`)
        const key = newKey()
        const keyId = newKeyId()
        yield* sql`
          INSERT INTO api_keys (id, account_id, key_hash, prefix, scopes)
          VALUES (${keyId}, ${account.id}, ${sha256(key)}, ${key.slice(0, KEY_PREFIX.length + 6)},
                  ${[...scopes]}::text[])`
        return { key, keyId, account: input.account, scopes }
      }).pipe(
        sql.withTransaction,
        // Marking an existing account as without a subscription moved the counter: seen here at once.
        Effect.tap(() => readCount()),
        Effect.orDie,
        Effect.withSpan("Keys.create"),
      )

    const list = () =>
      sql<ListingRow>`
        SELECT k.id AS key_id, a.name AS account_name, k.scopes, a.subscription_active,
               k.created_at, k.revoked_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id
        ORDER BY k.created_at, k.id`.pipe(
        Effect.map((rows) =>
          rows.map((row): KeyListing => ({
            keyId: row.key_id,
            account: row.account_name,
            scopes: canonical(decodeScopes(row.scopes)),
            subscriptionActive: row.subscription_active,
            createdAt: iso(row.created_at),
            revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
          }))
        ),
        Effect.orDie,
        Effect.withSpan("Keys.list"),
      )

    const revoke = (keyId: string) =>
      sql<{ id: string }>`
        UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.tap((revoked) =>
          revoked
            ? Effect.zipRight(
              Effect.sync(() => {
                for (const [hash, entry] of cache) {
                  if (Option.isSome(entry.principal) && entry.principal.value.keyId === keyId) cache.delete(hash)
                }
              }),
              // The revocation moved the counter: a lookup read before it cannot be cached after it.
              readCount(),
            )
            : Effect.void
        ),
        Effect.orDie,
        Effect.withSpan("Keys.revoke"),
      )

    return { authenticate, create, list, revoke }
  }),
)
