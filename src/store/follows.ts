// Follows in PostgreSQL (migration 0009): the traders an account follows by hand. Plain functions over
// SqlClient, like ./webhooks.ts. Who gets `trade.followed` is read from here and from trader bots by
// ./webhook-deliveries.ts.
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { underAccountLock } from "./sql-helpers.js"

export interface StoredFollow {
  readonly trader: string
  /** Epoch ms: when the account started following. */
  readonly since: number
}

export type FollowOutcome =
  | { readonly _tag: "Following"; readonly since: number }
  | { readonly _tag: "Limit" }

/**
 * Follows `trader` from `now` unless the account follows `max` traders already (following again keeps the
 * first `since`). Under an advisory lock per account, so concurrent follows cannot pass `max` together.
 */
const follow = (input: {
  readonly accountId: string
  readonly trader: string
  readonly now: number
  readonly max: number
}): Effect.Effect<FollowOutcome, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* underAccountLock(sql, "follows", input.accountId, Effect.gen(function* () {
      const held = yield* sql<{ n: number; since: number | string | null }>`
        SELECT count(*)::int AS n, max(created_at) FILTER (WHERE trader = ${input.trader}) AS since
        FROM follows WHERE account_id = ${input.accountId}`
      const since = held[0]?.since ?? null
      if (since !== null) return { _tag: "Following", since: Number(since) } as const
      if ((held[0]?.n ?? 0) >= input.max) return { _tag: "Limit" } as const
      yield* sql`
        INSERT INTO follows (account_id, trader, created_at) VALUES (${input.accountId}, ${input.trader}, ${input.now})`
      return { _tag: "Following", since: input.now } as const
    }))
  }).pipe(Effect.orDie, Effect.withSpan("Follows.follow"))

/** Stops following `trader` (nothing when the account did not follow it). */
const unfollow = (accountId: string, trader: string): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM follows WHERE account_id = ${accountId} AND trader = ${trader}`).pipe(
    Effect.asVoid, Effect.orDie, Effect.withSpan("Follows.unfollow"))

/** The account's follows, oldest first. */
const list = (accountId: string): Effect.Effect<ReadonlyArray<StoredFollow>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ trader: string; created_at: number | string }>`
      SELECT trader, created_at FROM follows WHERE account_id = ${accountId} ORDER BY created_at, trader`
    return rows.map((row) => ({ trader: row.trader, since: Number(row.created_at) }))
  }).pipe(Effect.orDie, Effect.withSpan("Follows.list"))

export const Follows = { follow, unfollow, list } as const
