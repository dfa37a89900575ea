// Market alerts and the alerts inbox (spec: v1 operations, tools set_market_alert, get_market_alerts,
// get_alerts; shapes not shown; Notifications: "Bots with alerts: true send in-app … messages about
// their trades"). The watching is actors/alerts/market-alerts.ts; these handlers store and read.
//
// Decisions where the spec is silent (README "Market alerts and the inbox"):
// - POST /v1/market-alerts (write) `{ market, outcome?, above?, below?, note? }` answers 201 with the alert.
//   `market` is a contract ref (an event with one contract is that contract; several is VALIDATION, as
//   for paper orders), `outcome` a side by name or label, or yes / no (the first side when omitted).
//   At least one of `above` / `below` (prices 0..1, below under above). It fires ONCE, at the first price
//   of that side at or beyond a bound that the feed reports after it was set (a price already beyond
//   the bound fires at the next price change), and is then `triggered`; an alert whose market settles or
//   is voided first is `ended`. At most 50 armed alerts per account; the 51st is VALIDATION.
// - GET /v1/market-alerts (read): the account's alerts newest first, paged (`limit` 1–200, `cursor`),
//   filtered by `market` (a contract ref, or an event ref for the alerts on any of its contracts: the
//   rows' `market.ref`, as the shared `market` filter reads it) and `status`.
// - DELETE /v1/market-alerts/{id} (write; tool `delete_market_alert`, not in the spec's table).
// - GET /v1/alerts (read): the inbox, newest first, paged, `since`: each fired market alert
//   (`market.alert`), and each trade the account's bots with `alerts: true` opened or closed
//   (`bot.trade`), each with a sentence for people and its data.
import { Clock, Effect, Option, Schema } from "effect"
import { MarketAlerts } from "../actors/alerts/market-alerts.js"
import { marketObjectOf } from "../actors/accounts/registry.js"
import { Markets } from "../actors/markets/market-bus.js"
import { AlertNotice, MarketAlert, MarketAlertRequest, MarketAlertStatus } from "../domain/alerts.js"
import { NotFound, Validation, quoted } from "../domain/errors.js"
import { MAX_MARKET_ALERTS, STRICT } from "../domain/limits.js"
import { MarketRef } from "../domain/refs.js"
import { MarketAlertsStore, type StoredAlert, type StoredNotice } from "../store/market-alerts.js"
import { TimeWithOffset } from "./filters.js"
import { listing, operation } from "./operation.js"
import { contractOf, sideOf } from "./paper-orders.js"
import { paginate, PageParams } from "./paging.js"
import { isoOf } from "../intel/rows.js"

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoOf(ms))

export const marketAlertOf = (a: StoredAlert): MarketAlert => ({
  id: a.id, market: a.marketObject, outcome: a.outcome, above: a.above, below: a.below, note: a.note, status: a.status,
  createdAt: isoOf(a.createdAt), triggeredAt: isoOrNull(a.triggeredAt), triggerPrice: a.triggerPrice, endedAt: isoOrNull(a.endedAt),
})

const money = (usd: number) => `$${usd.toFixed(2)}`
const bounds = (a: StoredAlert) =>
  [a.above === null ? null : `at or above ${a.above}`, a.below === null ? null : `at or below ${a.below}`].filter((b) => b !== null).join(" or ")

/** The inbox row of a notice, with its sentence. */
export const noticeOf = (n: StoredNotice): AlertNotice => {
  if (n._tag === "Alert") {
    const a = n.alert
    return {
      id: n.key, type: "market.alert", at: isoOf(n.at), data: marketAlertOf(a),
      message: `${a.marketObject.title}: ${a.outcome} was at ${a.triggerPrice} (alert ${bounds(a)})${a.note === null ? "" : `: ${a.note}`}`,
    }
  }
  const t = n.trade
  const message = n.event === "open"
    ? `${n.bot.name} bought ${t.contracts} ${t.outcome} on ${t.title} at ${t.entryPrice} (${money(t.cost)})`
    : `${n.bot.name} closed ${t.outcome} on ${t.title}: ${t.result ?? "closed"}, profit ${money(t.profit ?? 0)}`
  return {
    id: n.key, type: "bot.trade", at: isoOf(n.at), message,
    data: {
      bot: n.bot,
      trade: { ...t, openedAt: isoOf(t.openedAt), closedAt: isoOrNull(t.closedAt), status: t.closedAt === null ? "open" : "closed" },
    },
  }
}

export const setMarketAlert = operation({
  name: "setMarketAlert", tool: "set_market_alert", method: "POST", path: "/v1/market-alerts", scope: "write", status: 201,
  summary: "Set an alert that fires once when one side of a market trades at or beyond a price",
  input: MarketAlertRequest, output: MarketAlert,
  run: Effect.fn("MarketAlerts.set")(function* (request, ctx) {
    const info = yield* contractOf(request.market)
    const side = sideOf(info, request.outcome ?? "yes")
    if (side === null) {
      return yield* new Validation({ error: `outcome must be one of ${info.sides.map((s) => s.name).join(", ")} (name or label), or yes or no` })
    }
    const markets = yield* Markets
    const status = markets.status(info.ref)
    if (status !== "open") return yield* new Validation({ error: `market ${info.ref} is not open (${status ?? "unknown"})` })
    const alerts = yield* MarketAlerts
    const stored = yield* alerts.fenced(MarketAlertsStore.insert({
      accountId: ctx.principal.accountId, market: info.ref, marketObject: marketObjectOf(info), outcome: side.name,
      side: info.sides[0].id === side.id ? 0 : 1, above: request.above ?? null, below: request.below ?? null,
      note: request.note ?? null, createdAt: yield* Clock.currentTimeMillis,
    }, MAX_MARKET_ALERTS)).pipe(Effect.orDie)
    if (stored === null) return yield* new Validation({ error: `at most ${MAX_MARKET_ALERTS} armed market alerts per account` })
    alerts.arm(stored)
    return marketAlertOf(stored)
  }),
})

const AlertKey = Schema.Tuple(Schema.Number, Schema.String)

export const getMarketAlerts = listing({
  name: "getMarketAlerts", tool: "get_market_alerts", method: "GET", path: "/v1/market-alerts", scope: "read",
  summary: "The account's market alerts, newest first (armed, triggered and ended)",
  input: Schema.Struct({ market: Schema.optional(MarketRef), status: Schema.optional(MarketAlertStatus), ...PageParams }),
  row: MarketAlert,
  run: Effect.fn("MarketAlerts.list")(function* (input, ctx) {
    const page = yield* paginate({
      listing: "getMarketAlerts", input, ctx, key: AlertKey,
      keyOf: (a: StoredAlert) => [a.createdAt, a.id] as const,
      fetch: (after, take) => MarketAlertsStore.list({
        accountId: ctx.principal.accountId, market: input.market ?? null, status: input.status ?? null,
        after: Option.getOrNull(after), take,
      }),
    })
    return { data: page.data.map(marketAlertOf), nextCursor: page.nextCursor }
  }),
})

export const deleteMarketAlert = operation({
  name: "deleteMarketAlert", tool: "delete_market_alert", method: "DELETE", path: "/v1/market-alerts/:id", scope: "write",
  summary: "Remove a market alert",
  input: Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(100)) }).annotations(STRICT),
  output: Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }),
  run: Effect.fn("MarketAlerts.delete")(function* (input, ctx) {
    const alerts = yield* MarketAlerts
    const removed = yield* alerts.fenced(MarketAlertsStore.remove(ctx.principal.accountId, input.id)).pipe(Effect.orDie)
    if (removed === null) return yield* new NotFound({ error: `No market alert has id ${quoted(input.id)}` })
    alerts.disarm(removed.market, removed.id)
    return { id: input.id, deleted: true as const }
  }),
})

export const getAlerts = listing({
  name: "getAlerts", tool: "get_alerts", method: "GET", path: "/v1/alerts", scope: "read",
  summary: "The account's alerts inbox, newest first: fired market alerts and its alerting bots' trades",
  input: Schema.Struct({ since: Schema.optional(TimeWithOffset("since")), ...PageParams }),
  row: AlertNotice,
  run: Effect.fn("Alerts.inbox")(function* (input, ctx) {
    const page = yield* paginate({
      listing: "getAlerts", input, ctx, key: AlertKey,
      keyOf: (n: StoredNotice) => [n.at, n.key] as const,
      fetch: (after, take) => MarketAlertsStore.inbox({
        accountId: ctx.principal.accountId, since: input.since ?? null, after: Option.getOrNull(after), take,
      }),
    })
    return { data: page.data.map(noticeOf), nextCursor: page.nextCursor }
  }),
})
