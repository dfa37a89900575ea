// The paper actors' feed mark (migration 20, `feed_marks`): the feed, per venue, that the bots had been
// given at the holder's last stored flush of them, so that every bot not saved since had been given it
// unchanged (src/actors/bots/bots-live.ts). A node taking the lease over catches the bots up from it, and
// the exit rules and market alerts too (they follow the same OrderedFeed on the holder).
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FeedMarks } from "../intel/recent-feed.js"
import { jsonColumn } from "./sql-helpers.js"

/** The mark (none before a holder stored one). */
const read: Effect.Effect<FeedMarks | null, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ through: unknown }>`SELECT through FROM feed_marks WHERE name = 'bots'`
  const row = rows[0]
  return row === undefined ? null : jsonColumn(row.through) as FeedMarks
}).pipe(Effect.orDie, Effect.withSpan("FeedMark.read"))

/** Stores the mark of a flush of the bots. */
const write = (through: FeedMarks): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
    INSERT INTO feed_marks (name, through) VALUES ('bots', ${JSON.stringify(through)}::jsonb)
    ON CONFLICT (name) DO UPDATE SET through = EXCLUDED.through, updated_at = now()`).pipe(
    Effect.asVoid, Effect.orDie, Effect.withSpan("FeedMark.write"))

export const FeedMark = { read, write } as const
