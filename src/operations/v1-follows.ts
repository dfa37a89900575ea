// Follows (spec: v1 operations, tool set_follow; shape not shown): an account follows a named trader by
// hand, without copying them. A follower gets `trade.followed` webhook deliveries of every trade of that
// trader (whale-size or not), as an account with a trader bot on the trader does
// (store/webhook-deliveries.ts reads both).
//
// Decisions where the spec is silent (README "Follows"):
// - POST /v1/traders/{platform}/{traderId}/follow (write) with `{ follow }` (boolean, default true) answers
//   200 `{ trader, platform, traderId, name, following, since }`. Following again keeps the first `since`;
//   `follow: false` stops (and is not an error when the account did not follow the trader).
// - Only venue_a and venue_b name traders: another platform is VALIDATION naming `platform`. Following a
//   trader with no stored trade is NOT_FOUND. At most 100 followed traders per account (the 101st is
//   VALIDATION; unfollowing one frees its place).
// - GET /v1/follows (read; tool `list_follows`, not in the spec's table) lists them oldest first.
import { Clock, Effect, Schema } from "effect"
import { Platform } from "../domain/enums.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_FOLLOWS, STRICT, UtcTime } from "../domain/limits.js"
import { BotStore } from "../store/bots.js"
import { Follows } from "../store/follows.js"
import { operation } from "./operation.js"
import { isoOf } from "../intel/rows.js"
import { canonicalHandle } from "../domain/refs.js"


export const TraderId = Schema.String.pipe(
  Schema.pattern(/^[^\s]{1,128}$/, { message: () => "traderId must be a trader's handle: 1 to 128 characters, no spaces" }),
)

export const SetFollowRequest = Schema.Struct({
  platform: Platform,
  traderId: TraderId,
  follow: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => true }),
}).annotations({ ...STRICT, title: "SetFollowRequest" })

export const Follow = Schema.Struct({
  /** The trader ref of the v2 routes: `<platform>:<traderId>`. */
  trader: Schema.String,
  platform: Platform,
  traderId: Schema.String,
  /** The trader's latest public name; null when the venue gives none. */
  name: Schema.NullOr(Schema.String),
  following: Schema.Boolean,
  /** When the account started following; null when it does not follow. */
  since: Schema.NullOr(UtcTime),
}).annotations({ identifier: "Follow" })

export const Followed = Schema.Struct({
  trader: Schema.String,
  platform: Platform,
  traderId: Schema.String,
  since: UtcTime,
}).annotations({ identifier: "Followed" })

export const setFollow = operation({
  name: "setFollow", tool: "set_follow", method: "POST", path: "/v1/traders/:platform/:traderId/follow", scope: "write",
  summary: "Follow a named trader (trade.followed webhooks for each of their trades), or stop with follow: false",
  input: SetFollowRequest, output: Follow,
  run: Effect.fn("Follows.set")(function* (request, ctx) {
    const { platform } = request
    if (platform !== "venue_a" && platform !== "venue_b") {
      return yield* new Validation({ error: `platform: only venue_a and venue_b name traders, not ${platform}` })
    }
    // A venue_b wallet is case-insensitive: answered in lower case, as the ref.
    const traderId = canonicalHandle(platform, request.traderId)
    const trader = `${platform}:${traderId}`
    const known = yield* BotStore.trader(trader)
    const accountId = ctx.principal.accountId
    if (!request.follow) {
      yield* Follows.unfollow(accountId, trader)
      return { trader, platform, traderId, name: known?.name ?? null, following: false, since: null }
    }
    if (known === null) return yield* new NotFound({ error: `No trader has ref ${quoted(trader)}` })
    const outcome = yield* Follows.follow({ accountId, trader, now: yield* Clock.currentTimeMillis, max: MAX_FOLLOWS })
    if (outcome._tag === "Limit") return yield* new Validation({ error: `at most ${MAX_FOLLOWS} followed traders per account` })
    return { trader, platform, traderId, name: known.name, following: true, since: isoOf(outcome.since) }
  }),
})

export const listFollows = operation({
  name: "listFollows", tool: "list_follows", method: "GET", path: "/v1/follows", scope: "read",
  summary: "The traders the account follows by hand, oldest first",
  input: Schema.Struct({}).annotations(STRICT), output: Schema.Array(Followed),
  run: (_input, ctx) =>
    Effect.map(Follows.list(ctx.principal.accountId), (rows) =>
      rows.map((row) => {
        const at = row.trader.indexOf(":")
        return { trader: row.trader, platform: row.trader.slice(0, at) as Platform, traderId: row.trader.slice(at + 1), since: isoOf(row.since) }
      })),
})
