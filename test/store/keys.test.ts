// Keys, Settings and migrations against the suite's database (a private schema on DATABASE_URL, else a
// temporary embedded data dir): keys are stored as hashes, revoked keys fail, scopes are canonical, the
// cache never hides a key made elsewhere nor, past 2 s, a change made elsewhere, and migrating twice
// changes nothing.
import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { migrate } from "../../src/store/db.js"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { Settings } from "../../src/store/settings.js"
import { TestStore } from "../support/db.js"

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

/** A second KeysLive on the same database: what another process (the CLI) sees. */
const otherProcessKeys = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.provide(Keys, Layer.provide(KeysLive, Layer.succeed(SqlClient.SqlClient, sql))))

layer(TestStore, { timeout: "120 seconds" })("store", (it) => {
  it.effect("migrating again is a no-op", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const before = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
      expect(yield* migrate).toEqual([])
      expect(yield* migrate).toEqual([])
      const after = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
      expect(after).toEqual(before)
      expect(after[0]?.n).toBeGreaterThanOrEqual(1)
    }))

  it.effect("a created key authenticates until it is revoked", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const created = yield* keys.create({ account: "acct-revoke", scopes: ["write", "read", "read"], subscription: true })
      expect(created.key).toMatch(/^ww_[A-Za-z0-9_-]{43}$/)
      expect(created.keyId).toMatch(/^key_[0-9a-f]{12}$/)
      expect(created.scopes).toEqual(["read", "write"])
      const principal = yield* keys.authenticate(created.key)
      expect(principal).toEqual(Option.some({
        keyId: created.keyId,
        accountId: expect.stringMatching(/^acc_/),
        accountName: "acct-revoke",
        scopes: ["read", "write"],
        subscriptionActive: true,
      }))
      expect(yield* keys.revoke(created.keyId)).toBe(true)
      expect(yield* keys.revoke(created.keyId)).toBe(false)
      expect(yield* keys.authenticate(created.key)).toEqual(Option.none())
      const listed = (yield* keys.list()).find((key) => key.keyId === created.keyId)
      expect(listed?.revokedAt).toEqual(expect.any(String))
    }))

  it.effect("only a hash of the key is stored", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const sql = yield* SqlClient.SqlClient
      const created = yield* keys.create({ account: "acct-hash", scopes: ["read"], subscription: true })
      const rows = yield* sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${created.keyId}`
      expect(rows).toHaveLength(1)
      expect(rows[0]?.["key_hash"]).toBe(sha256(created.key))
      expect(JSON.stringify(rows)).not.toContain(created.key)
      expect(JSON.stringify(yield* keys.list())).not.toContain(created.key)
    }))

  it.effect("unknown, malformed and empty tokens are refused", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const created = yield* keys.create({ account: "acct-unknown", scopes: ["read"], subscription: true })
      for (const token of ["", "ww_", "nope", created.key + "x", created.key.slice(0, -1) + "A", `Bearer ${created.key}`]) {
        if (token === created.key) continue
        expect(yield* keys.authenticate(token)).toEqual(Option.none())
      }
    }))

  it.effect("an account keeps its name; a second key joins it with its own scopes", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const first = yield* keys.create({ account: "acct-two", scopes: ["read"], subscription: true })
      const second = yield* keys.create({ account: "acct-two", scopes: ["read", "write"], subscription: true })
      const a = yield* keys.authenticate(first.key)
      const b = yield* keys.authenticate(second.key)
      expect(Option.map(a, (p) => p.scopes)).toEqual(Option.some(["read"]))
      expect(Option.map(b, (p) => p.scopes)).toEqual(Option.some(["read", "write"]))
      expect(Option.map(a, (p) => p.accountId)).toEqual(Option.map(b, (p) => p.accountId))
    }))

  it.effect("no-subscription creates the account without one, and marks an existing one", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const fresh = yield* keys.create({ account: "acct-nosub", scopes: ["read"], subscription: false })
      expect(Option.map(yield* keys.authenticate(fresh.key), (p) => p.subscriptionActive)).toEqual(Option.some(false))
      const paying = yield* keys.create({ account: "acct-marked", scopes: ["read"], subscription: true })
      yield* keys.create({ account: "acct-marked", scopes: ["read"], subscription: false })
      // The other key's cached result expires within 2 s; a fresh service instance reads it at once.
      const other = yield* otherProcessKeys
      expect(Option.map(yield* other.authenticate(paying.key), (p) => p.subscriptionActive)).toEqual(Option.some(false))
      const listed = (yield* keys.list()).filter((key) => key.account === "acct-marked")
      expect(listed.map((key) => key.subscriptionActive)).toEqual([false, false])
    }))

  it.effect("a key made by another process works at once; its revocation shows within 2 s", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const other = yield* otherProcessKeys
      const made = yield* other.create({ account: "acct-cli", scopes: ["read"], subscription: true })
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      expect(yield* other.revoke(made.keyId)).toBe(true)
      // Still cached here (TestClock has not moved), then refused once the last reading of the change
      // counter is over 2 s old: the request reads it first.
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      yield* TestClock.adjust("2001 millis")
      expect(yield* keys.authenticate(made.key)).toEqual(Option.none())
    }))

  it.effect("an idle node reads the change counter before answering from its cache", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const other = yield* otherProcessKeys
      const made = yield* other.create({ account: "acct-idle", scopes: ["read"], subscription: true })
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      yield* TestClock.adjust("30 seconds")
      // Unchanged: still answered (the entry is younger than its 60 s).
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      yield* other.create({ account: "acct-idle", scopes: ["read"], subscription: false })
      yield* TestClock.adjust("10 seconds")
      // The account lost its subscription elsewhere: seen by the first request after the idle spell.
      expect(Option.map(yield* keys.authenticate(made.key), (p) => p.subscriptionActive)).toEqual(Option.some(false))
    }))

  it.effect("a key in use never waits for the change counter: it is read behind it from 1 s on", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const other = yield* otherProcessKeys
      const made = yield* other.create({ account: "acct-ahead", scopes: ["read"], subscription: true })
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      expect(yield* other.revoke(made.keyId)).toBe(true)
      const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      // Read 999 ms ago: answered from the cache, no reading started (so none can have seen the revocation).
      yield* TestClock.adjust("999 millis")
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      yield* settle
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      // 1,001 ms: still answered from the cache at once, and the counter read behind it.
      yield* TestClock.adjust("2 millis")
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      let refused = false
      for (let i = 0; i < 50 && !refused; i++) {
        yield* settle
        refused = Option.isNone(yield* keys.authenticate(made.key))
      }
      expect(refused).toBe(true)
    }))

  it.effect("a busy node does not re-read a key in use each second; a change behind the counter's back shows within 60 s", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const sql = yield* SqlClient.SqlClient
      const other = yield* otherProcessKeys
      const made = yield* other.create({ account: "acct-busy", scopes: ["read"], subscription: true })
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
      // Revoked without moving the counter: only re-reading the key itself can show it.
      yield* sql`ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed`
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${made.keyId}`.pipe(
        Effect.ensuring(Effect.orDie(sql`ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed`)),
      )
      const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      // A request every 1.5 s for 28.5 s: each answered from the cache, the counter read behind them.
      for (let i = 0; i < 19; i++) {
        yield* TestClock.adjust("1500 millis")
        expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
        yield* settle
      }
      // From half the entry's life on the key itself is re-read behind its requests, by 60 s at the latest.
      let refused = false
      for (let i = 0; i < 25 && !refused; i++) {
        yield* TestClock.adjust("1500 millis")
        refused = Option.isNone(yield* keys.authenticate(made.key))
        yield* settle
      }
      expect(refused).toBe(true)
    }))

  it.effect("a miss is not remembered for long", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const sql = yield* SqlClient.SqlClient
      const other = yield* otherProcessKeys
      const made = yield* other.create({ account: "acct-miss", scopes: ["read"], subscription: true })
      // Hide the key, miss it, bring it back: the miss may be cached for at most 1 s.
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${made.keyId}`
      expect(yield* keys.authenticate(made.key)).toEqual(Option.none())
      yield* sql`UPDATE api_keys SET revoked_at = NULL WHERE id = ${made.keyId}`
      yield* TestClock.adjust("1001 millis")
      expect(Option.isSome(yield* keys.authenticate(made.key))).toBe(true)
    }))

  it.effect("a named secret is 32 random bytes, stable, and distinct per name", () =>
    Effect.gen(function* () {
      const cursor = yield* Settings.secret("cursor")
      expect(cursor).toMatch(/^[0-9a-f]{64}$/)
      expect(yield* Settings.secret("cursor")).toBe(cursor)
      expect(yield* Settings.secret("webhooks")).not.toBe(cursor)
      expect(yield* Settings.get("secret:cursor")).toEqual(Option.some(cursor))
      expect(yield* Settings.insertIfAbsent("secret:cursor", "x")).toBe(false)
    }))

  it.effect("list shows every key without its value", () =>
    Effect.gen(function* () {
      const keys = yield* Keys
      const created = yield* keys.create({ account: "acct-list", scopes: ["write"], subscription: true })
      const listed = (yield* keys.list()).find((key) => key.keyId === created.keyId)
      expect(listed).toEqual({
        keyId: created.keyId,
        account: "acct-list",
        scopes: ["write"],
        subscriptionActive: true,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        revokedAt: null,
      })
    }))
})
