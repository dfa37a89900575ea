// Migration 20: how far the feed had been delivered to the bots, so a node that takes the paper lease over
// gives them what its recent feed brought since (src/actors/bots/bots-live.ts, catch-up): each bot's
// snapshot with the feed it had seen (`bots.feed_through`, a venue → feed time object; null on rows saved
// before), and the holder's last flush of every bot (`feed_marks`, one row per follower: "bots").
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE bots ADD COLUMN feed_through jsonb`
  yield* sql`
    CREATE TABLE feed_marks (
      name text PRIMARY KEY,
      through jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
