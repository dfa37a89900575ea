// KeysLive: API keys and accounts in PostgreSQL. Only a sha256 of each key is stored; authentication looks
// the hash up and compares in constant time. Scopes are fixed at creation (there is no update). Results
// are cached for a moment so the hot path stays off the database, while a cache miss always asks it, so
// a key made by the CLI in another process works at once.
//
// Cost: the lookups waiting at one moment (misses and expired entries, of any keys) are ONE statement
// (`key_hash = ANY(...)`), so a busy node asks the store about once per key per POSITIVE_TTL_MS, in a
// few statements rather than one per key (on the embedded store every statement queues on its one
// connection). Revocation: a key revoked through this node's `revoke` is refused at once (its entries
// are dropped, and a lookup in flight across the revocation is not cached); one revoked by another
// process (the CLI writes api_keys directly) is refused within POSITIVE_TTL_MS. A key in use is
// refreshed ahead of expiry in the background (REFRESH_AHEAD_MS), so its requests do not wait on the store.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Deferred, Effect, Exit, Layer, Option, Schema } from "effect"
import { Scope } from "../domain/enums.js"
import type { Principal } from "../domain/principal.js"
import { Keys, type KeyListing } from "./keys.js"

const KEY_PREFIX = "ww_"
/** "ww_" + base64url of 32 bytes. */
const KEY_LENGTH = KEY_PREFIX.length + 43
const POSITIVE_TTL_MS = 2_000
const NEGATIVE_TTL_MS = 1_000
/**
 * A live key's entry is refreshed in the background once it is this close to expiring: from half its
 * life on, so a key used at least once every POSITIVE_TTL_MS never waits on the store. (At 500 ms, a client
 * sending every 0.67 s skipped the window and waited on a lookup every third request.)
 */
const REFRESH_AHEAD_MS = POSITIVE_TTL_MS / 2
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
    const cache = new Map<string, { readonly principal: Option.Option<Principal>; readonly until: number }>()
    /** Revocations through this node so far: a lookup that spans one is not cached. */
    let revocations = 0
    /** Hashes being refreshed ahead of expiry. */
    const refreshing = new Set<string>()

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
    type Waiting = { readonly hash: string; readonly done: Deferred.Deferred<Option.Option<Principal>> }
    const waiting: Array<Waiting> = []
    let draining = false
    const answer = (batch: ReadonlyArray<Waiting>) =>
      Effect.gen(function* () {
        const hashes = [...new Set(batch.map((w) => w.hash))]
        const exit = yield* Effect.exit(sql<KeyRow>`
          SELECT k.id AS key_id, k.key_hash, k.scopes, a.id AS account_id, a.name AS account_name,
                 a.subscription_active
          FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_hash = ANY(${hashes}::text[]) AND k.revoked_at IS NULL`.pipe(Effect.orDie))
        if (Exit.isFailure(exit)) {
          for (const w of batch) yield* Deferred.failCause(w.done, exit.cause)
          return
        }
        const rows = new Map(exit.value.map((row) => [row.key_hash, row]))
        for (const w of batch) yield* Deferred.succeed(w.done, principalOf(w.hash, rows.get(w.hash)))
      })
    const drain = (): Effect.Effect<void> => {
      if (waiting.length === 0) {
        draining = false
        return Effect.void
      }
      return Effect.zipRight(answer(waiting.splice(0, LOOKUP_BATCH)), Effect.suspend(drain))
    }
    const lookup = (hash: string): Effect.Effect<Option.Option<Principal>> =>
      Effect.flatMap(Deferred.make<Option.Option<Principal>>(), (done) =>
        Effect.suspend(() => {
          waiting.push({ hash, done })
          if (draining) return Deferred.await(done)
          draining = true
          return Effect.zipRight(Effect.forkDaemon(Effect.suspend(drain)), Deferred.await(done))
        }))

    // One generator for every call (a generator made per call kept each request alive through a young GC: api.ts).
    const authenticate = Effect.fnUntraced(function* (token: string) {
      if (!token.startsWith(KEY_PREFIX) || token.length !== KEY_LENGTH) return Option.none<Principal>()
      const hash = sha256(token)
      const now = yield* Clock.currentTimeMillis
      const cached = cache.get(hash)
      if (cached !== undefined && cached.until > now) {
        // Refresh ahead: a key in use is asked about again before its entry expires, off the request
        // path, so it never waits on the store; the entry still lives at most POSITIVE_TTL_MS from
        // the read that made it.
        if (Option.isSome(cached.principal) && cached.until - now <= REFRESH_AHEAD_MS && !refreshing.has(hash)) {
          refreshing.add(hash)
          const before = revocations
          yield* Effect.forkDaemon(lookup(hash).pipe(
            Effect.tap((principal) =>
              Effect.sync(() => {
                if (before === revocations) cache.set(hash, { principal, until: now + (Option.isSome(principal) ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) })
              })),
            Effect.ensuring(Effect.sync(() => refreshing.delete(hash))),
          ))
        }
        return cached.principal
      }
      const before = revocations
      const principal = yield* lookup(hash)
      if (before !== revocations) return principal
      if (cache.size >= CACHE_LIMIT) cache.clear()
      cache.set(hash, { principal, until: now + (Option.isSome(principal) ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) })
      return principal
    }, Effect.withSpan("Keys.authenticate", { captureStackTrace: false })) // per request: no call-site Error

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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("Keys.create"))

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
          Effect.sync(() => {
            // Another process's revocation reaches this cache within POSITIVE_TTL_MS; ours at once.
            if (!revoked) return
            revocations += 1
            for (const [hash, entry] of cache) {
              if (Option.isSome(entry.principal) && entry.principal.value.keyId === keyId) cache.delete(hash)
            }
          })
        ),
        Effect.orDie,
        Effect.withSpan("Keys.revoke"),
      )

    return { authenticate, create, list, revoke }
  }),
)
