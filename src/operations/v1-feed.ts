// GET /v1/feed (tool `get_live_feed`; spec: MCP tool to REST mapping): the latest whale events as v1 whale
// event rows, newest first — what a polling agent reads to follow the feed. Same rows and index as
// POST /v1/events (v1-events.ts).
//
// Decisions where the spec is silent (README "v1 feed"):
// - Query: `platform` and `category` (repeatable, OR-combined; v1 platform ids), `minAmountUsd`, `since`
//   (ISO 8601 with an offset: only events detected at or after it, for polling from the last one seen),
//   `limit` 1–200 (default 50). Unknown parameters are VALIDATION.
// - The window is the 30 days kept; buys and sells both appear. Free of the daily trade allowance.
import { Clock, Effect, Schema } from "effect"
import { Category, Platform } from "../domain/enums.js"
import { TRADES_WINDOW_DAYS } from "../domain/limits.js"
import { PageLimit } from "../domain/limits.js"
import { WhaleEventRow } from "../domain/v1.js"
import { Markets } from "../actors/markets/market-bus.js"
import { Intel } from "../intel/live.js"
import { TimeWithOffset } from "./filters.js"
import { operation } from "./operation.js"
import { DEFAULT_LIMIT, Limit } from "./paging.js"
import { NumberParam, Repeatable } from "./params.js"
import { contractSidesOf, whaleEventOf, whaleEventsQuery } from "./v1-events.js"

export const V1FeedInput = Schema.Struct({
  platform: Schema.optional(Repeatable("platform", Platform)),
  category: Schema.optional(Repeatable("category", Category)),
  minAmountUsd: Schema.optional(NumberParam("minAmountUsd", 0, 1e12)),
  since: Schema.optional(TimeWithOffset("since")),
  limit: Schema.optionalWith(Limit, { default: () => DEFAULT_LIMIT }),
})

export const V1Feed = Schema.Struct({ events: Schema.Array(WhaleEventRow), limit: PageLimit }).annotations({ identifier: "V1Feed" })

export const getLiveFeed = operation({
  name: "getLiveFeed", tool: "get_live_feed", method: "GET", path: "/v1/feed", scope: "read",
  summary: "The latest whale events (v1 rows), newest first; `since` to poll from the last one seen",
  input: V1FeedInput, output: V1Feed,
  run: Effect.fn("V1Feed.get")(function* (input) {
    const intel = yield* Intel
    const sides = contractSidesOf(intel, yield* Markets)
    const now = yield* Clock.currentTimeMillis
    const query = whaleEventsQuery(sides, {
      ...(input.platform === undefined ? {} : { platforms: input.platform }),
      ...(input.category === undefined ? {} : { categories: input.category }),
      ...(input.minAmountUsd === undefined ? {} : { minAmountUsd: input.minAmountUsd }),
      sinceDays: TRADES_WINDOW_DAYS,
    }, now, input.since)
    const rows = query === null ? [] : intel.trades.page(query, undefined, input.limit)
    return { events: rows.map((t) => whaleEventOf(sides, t)), limit: input.limit }
  }),
})
