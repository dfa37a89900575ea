// GET /v1/copy-executions (tool `get_copy_log`; spec: MCP tool to REST mapping): the account's copy log —
// every fill its trader and signal bots made on the paper account, newest first, each as the bot and the
// paper order (the body of a `copy.executed` webhook delivery). Market bots keep their trades on the bot.
//
// Decisions where the spec is silent (README "v1 copy log"):
// - Query: `bot` (one trader or signal bot id of the account), `since` (ISO 8601 with an offset: fills at
//   or after it), `limit` 1–200 (default 50) and `cursor` (the `nextCursor` of the previous page).
// - Answer `{ success: true, data: [{ bot: { id, name }, order }], nextCursor }`. Another account's bot,
//   or a market bot, simply has no rows here.
import { Effect, Option, Schema } from "effect"
import { PaperOrder } from "../domain/paper.js"
import { BotId } from "../domain/refs.js"
import { PaperStore, type StoredOrder } from "../store/paper.js"
import { TimeWithOffset } from "./filters.js"
import { listing } from "./operation.js"
import { paginate, PageParams } from "./paging.js"
import { paperOrderOf } from "../store/paper.js"

export const CopyExecution = Schema.Struct({
  bot: Schema.Struct({ id: Schema.String, name: Schema.String }),
  order: PaperOrder,
}).annotations({ identifier: "CopyExecution" })

export const CopyLogInput = Schema.Struct({
  bot: Schema.optional(BotId),
  since: Schema.optional(TimeWithOffset("since")),
  ...PageParams,
})

const CopyKey = Schema.Tuple(Schema.Number, Schema.String)

export const copyExecutionOf = (o: StoredOrder) => ({ bot: { id: o.botId ?? "", name: o.botName ?? o.botId ?? "" }, order: paperOrderOf(o) })

export const getCopyLog = listing({
  name: "getCopyLog", tool: "get_copy_log", method: "GET", path: "/v1/copy-executions", scope: "read",
  summary: "The account's copy log: every fill of its trader and signal bots, newest first",
  input: CopyLogInput, row: CopyExecution,
  run: Effect.fn("V1CopyLog.list")(function* (input, ctx) {
    const page = yield* paginate({
      listing: "getCopyLog",
      input,
      ctx,
      key: CopyKey,
      keyOf: (o: StoredOrder) => [o.filledAt, o.id] as const,
      fetch: (after, take) => PaperStore.orders({
        accountId: ctx.principal.accountId, kind: "copies", botId: input.bot, since: input.since ?? null,
        after: Option.getOrNull(after), take,
      }),
    })
    return { data: page.data.map(copyExecutionOf), nextCursor: page.nextCursor }
  }),
})
