// Webhook deliveries over the suite's database (embedded, or a private schema on DATABASE_URL): who gets
// an event (type subscriptions, accounts, trader-bot followers), once per endpoint however often it is
// enqueued; a signed POST of the exact stored body; 2xx acknowledges; anything else retries after
// 30 s × 2^(n−1) and the eighth failure abandons; deleting an endpoint drops what is pending; the send-time
// address check; and the layer end to end (IntelBus and the accounts' sink → outbox → transport).
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Fiber, Layer, ManagedRuntime, PubSub, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verify } from "../../src/domain/webhook-signature.js"
import { IntelBus, type IntelEvent } from "../../src/intel/intel-bus.js"
import { IntelPipeline, type StoredTrade } from "../../src/intel/pipeline.js"
import { deliveryIdOf, type OutboxEvent, WebhookDeliveries } from "../../src/store/webhook-deliveries.js"
import { Webhooks } from "../../src/store/webhooks.js"
import {
  accountEventsOf, attempt, ATTEMPT_TIMEOUT_MS, FIRST_RETRY_MS, makeWebhooksLayer, MAX_ATTEMPTS, outboxEventsOf, publicLookup, sendDue,
  WebhookTransport, type WebhookTransportService,
} from "../../src/webhooks/deliverer.js"
import { WebhookSink } from "../../src/webhooks/sink.js"
import { TestDb } from "../support/db.js"
import { aMarket, opened, T0, traded } from "../support/intel-events.js"
import { manualClock } from "../support/manual-clock.js"

const db = ManagedRuntime.make(TestDb)
const clock = manualClock(T0 + 3_600_000)

interface Post {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}
const posts: Array<Post> = []
/** Status by URL (default 200). */
const answers = new Map<string, number>()
const transport: WebhookTransportService = {
  post: (url, headers, body) => Effect.sync(() => {
    posts.push({ url, headers, body })
    return { status: answers.get(url) ?? 200, error: null }
  }),
}

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  db.runPromise(effect.pipe(Effect.provide(Layer.merge(clock.layer, Layer.succeed(WebhookTransport, transport)))))
const sql = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie))

interface Endpoint {
  readonly id: string
  readonly secret: string
  readonly url: string
}
const endpoint = async (accountId: string, url: string, events: ReadonlyArray<string>): Promise<Endpoint> => {
  const created = await run(Webhooks.create({ accountId, url, events, max: 5 }))
  if (created._tag === "None") throw new Error("endpoint not created")
  return { id: created.value.id, secret: created.value.secret, url }
}

/** A whale buy by a named trader, as the pipeline records it. */
const whaleTrade = (): StoredTrade => {
  const pipeline = new IntelPipeline()
  const market = aMarket({ contract: "WEBHOOK-1", venue: "venue_b" })
  pipeline.apply(opened(market))
  pipeline.apply(traded(market, { ts: T0 + 60_000, price: 0.4, usd: 80_000, trader: "0xwhale" }))
  const trade = pipeline.takeChanges().trades.find((t) => t.whale)
  if (trade === undefined) throw new Error("no whale trade recorded")
  return trade
}

let all: Endpoint
let movesOnly: Endpoint
let follower: Endpoint
let stranger: Endpoint
let trade: StoredTrade

beforeAll(async () => {
  await sql((s) => s`
    INSERT INTO accounts (id, name, subscription_active) VALUES ('wa1', 'one', true), ('wa2', 'two', true), ('wa3', 'three', true)
    RETURNING id`)
  trade = whaleTrade()
  expect(trade.trader).not.toBeNull()
  all = await endpoint("wa1", "https://one.example.com/all", [])
  movesOnly = await endpoint("wa1", "https://one.example.com/moves", ["move.detected"])
  follower = await endpoint("wa2", "https://two.example.com/followed", ["trade.followed"])
  stranger = await endpoint("wa3", "https://three.example.com/followed", ["trade.followed", "paper.order.filled"])
  // wa2 follows the whale with a trader bot; wa3 has an ended one (no longer following).
  await sql((s) => s`
    INSERT INTO bots (id, account_id, kind, name, mode, status, trader, settings, snapshot, created_at) VALUES
      ('bot_w2', 'wa2', 'trader', 'copy', 'paper', 'running', ${trade.trader}, '{}'::jsonb, '{}'::jsonb, now()),
      ('bot_w3', 'wa3', 'trader', 'copy', 'paper', 'ended', ${trade.trader}, '{}'::jsonb, '{}'::jsonb, now())
    RETURNING id`)
}, 60_000)

afterAll(async () => {
  await db.dispose()
})

const pending = () => sql<{ id: string; endpoint_id: string; event_type: string; attempts: number }>((s) => s`
  SELECT id, endpoint_id, event_type, attempts FROM webhook_deliveries
  WHERE delivered_at IS NULL AND abandoned_at IS NULL ORDER BY endpoint_id, event_type`)

describe("the outbox", () => {
  it("gives a whale trade to every endpoint subscribed to its type, and to followers' trade.followed endpoints, once", async () => {
    const events = outboxEventsOf({ _tag: "TradeRecorded", trade })
    expect(events.map((e) => e.type)).toEqual(["trade.whale", "trade.followed"])
    await run(WebhookDeliveries.enqueue(events, clock.now()))
    await run(WebhookDeliveries.enqueue(events, clock.now())) // again: nothing new
    const rows = await pending()
    expect(rows.map((r) => [r.endpoint_id, r.event_type])).toEqual(
      [[all.id, "trade.whale"], [follower.id, "trade.followed"]].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    )
    expect(rows.find((r) => r.endpoint_id === all.id)?.id).toBe(deliveryIdOf(all.id, `trade.whale:${trade.id}`))
  })

  it("builds nothing for an event nobody subscribes to (who wants what is read from the endpoints and trader bots)", async () => {
    const interest = await run(WebhookDeliveries.interest())
    expect([...interest.types].sort()).toEqual(["*", "move.detected", "paper.order.filled", "trade.followed"])
    expect([...interest.followed]).toEqual([trade.trader])
    const recorded = { _tag: "TradeRecorded" as const, trade }
    expect(outboxEventsOf(recorded, { types: new Set(["move.detected"]), followed: new Set(), accounts: new Map() })).toEqual([])
    expect(outboxEventsOf(recorded, { types: new Set(["trade.whale"]), followed: new Set(), accounts: new Map() }).map((e) => e.type)).toEqual(["trade.whale"])
    expect(outboxEventsOf(recorded, { types: new Set(["trade.followed"]), followed: new Set([trade.trader as string]), accounts: new Map() }).map((e) => e.type))
      .toEqual(["trade.followed"])
  })

  it("sends each due delivery signed over the exact body, and a 2xx acknowledges it", async () => {
    posts.length = 0
    expect(await run(sendDue)).toBe(2)
    expect(posts.map((p) => p.url).sort()).toEqual([all.url, follower.url].sort())
    const toAll = posts.find((p) => p.url === all.url) as Post
    const nowSeconds = Math.floor(clock.now() / 1000)
    expect(verify(all.secret, toAll.headers["X-Service-Signature"] as string, toAll.body, nowSeconds)).toBe(true)
    expect(verify(follower.secret, toAll.headers["X-Service-Signature"] as string, toAll.body, nowSeconds)).toBe(false)
    expect(toAll.headers["X-Service-Event"]).toBe("trade.whale")
    expect(toAll.headers["X-Service-Delivery"]).toBe(deliveryIdOf(all.id, `trade.whale:${trade.id}`))
    expect(toAll.headers["content-type"]).toBe("application/json")
    const body = JSON.parse(toAll.body) as { id: string; type: string; createdAt: string; data: { id: string; usd: number } }
    expect(body).toMatchObject({ id: `trade.whale:${trade.id}`, type: "trade.whale", createdAt: new Date(trade.time).toISOString() })
    expect(body.data).toMatchObject({ id: trade.id, usd: trade.usd })
    expect(await pending()).toEqual([])
    posts.length = 0
    expect(await run(sendDue)).toBe(0)
    expect(posts).toEqual([])
  })

  it("retries a failure after 30 s × 2^(n−1) (a redirect is a failure) and abandons after the eighth attempt", async () => {
    const event: OutboxEvent = { key: "move.detected:m1", type: "move.detected", audience: { _tag: "everyone" }, body: '{"id":"move.detected:m1"}' }
    answers.set(movesOnly.url, 302)
    answers.set(all.url, 200)
    await run(WebhookDeliveries.enqueue([event], clock.now()))
    posts.length = 0
    await run(sendDue)
    expect(posts.map((p) => p.url).sort()).toEqual([all.url, movesOnly.url].sort())
    answers.set(movesOnly.url, 500)
    for (let failed = 1; failed < MAX_ATTEMPTS; failed++) {
      const wait = FIRST_RETRY_MS * 2 ** (failed - 1)
      clock.advance(wait - 1)
      posts.length = 0
      expect(await run(sendDue), `not due 1 ms before retry ${failed}`).toBe(0)
      clock.advance(1)
      expect(await run(sendDue), `retry ${failed}`).toBe(1)
      expect(posts.map((p) => p.url)).toEqual([movesOnly.url])
    }
    const [row] = await sql<{ attempts: number; abandoned: boolean; last_status: number; last_error: string }>((s) => s`
      SELECT attempts, abandoned_at IS NOT NULL AS abandoned, last_status, last_error FROM webhook_deliveries
      WHERE id = ${deliveryIdOf(movesOnly.id, "move.detected:m1")}`)
    expect(row).toEqual({ attempts: MAX_ATTEMPTS, abandoned: true, last_status: 500, last_error: "answered 500" })
    clock.advance(24 * 3_600_000)
    expect(await run(sendDue)).toBe(0)
  })

  it("ends an attempt whose answer has not completed within 10 s (a receiver trickling its body), as a failure", async () => {
    const delivery = { id: "whd_slow", eventType: "move.detected", body: "{}", attempts: 0, url: "https://slow.example/hook", secret: "s" }
    let cut = false
    const trickling: WebhookTransportService = { post: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (cut = true)))) }
    const outcome = await Effect.runPromise(Effect.gen(function* () {
      const running = yield* Effect.fork(attempt(delivery))
      yield* TestClock.adjust(Duration.millis(ATTEMPT_TIMEOUT_MS - 1))
      expect(running.unsafePoll()).toBeNull()
      yield* TestClock.adjust(Duration.millis(1))
      return yield* Fiber.join(running)
    }).pipe(Effect.provide(Layer.merge(TestContext.TestContext, Layer.succeed(WebhookTransport, trickling)))))
    expect(cut).toBe(true) // the request is torn down, not left open
    expect(outcome).toMatchObject({ id: "whd_slow", status: null, delivered: false, error: "no complete answer within 10 s" })
    expect(outcome.retryAt).not.toBeNull()
  })

  it("deleting an endpoint removes what is pending for it, also between attempts", async () => {
    const event: OutboxEvent = { key: "trade.followed:x", type: "trade.followed", audience: { _tag: "followers", trader: trade.trader as string }, body: "{}" }
    answers.set(follower.url, 503)
    await run(WebhookDeliveries.enqueue([event], clock.now()))
    expect(await run(sendDue)).toBe(1)
    expect((await pending()).map((r) => r.endpoint_id)).toEqual([follower.id])
    expect(await run(Webhooks.remove("wa2", follower.id))).toBe(true)
    expect(await pending()).toEqual([])
    clock.advance(FIRST_RETRY_MS)
    expect(await run(sendDue)).toBe(0)
  })

  it("gives account events to that account's subscribed endpoints only", async () => {
    const order = {
      id: "po_webhook", accountId: "wa3", seq: 1, idempotencyKey: null, requestHash: null, market: "venue_b:WEBHOOK-1",
      marketObject: { ref: "venue_b:WEBHOOK-1", contract: "venue_b:WEBHOOK-1", title: "Market", venue: "venue_b" as const, category: null, kind: null },
      outcome: "Yes", action: "buy" as const, contracts: 10, avgPrice: 0.41, cost: 4.1, fee: 0, unfilled: 0, filledAt: clock.now(),
      profit: null, source: "hand" as const, botId: null, botName: null, response: null, botFillId: null,
    }
    const events = accountEventsOf({ _tag: "OrderRecorded", order })
    expect(events.map((e) => [e.type, e.audience])).toEqual([["paper.order.filled", { _tag: "account", accountId: "wa3" }]])
    expect(JSON.parse(events[0]!.body).data).toMatchObject({ id: "po_webhook", action: "buy", contracts: 10, avgPrice: 0.41 })
    // A market bot's fill is no copy; a trader bot's is.
    expect(accountEventsOf({ _tag: "OrderRecorded", order: { ...order, source: "bot", botId: "market:b1", botName: "m" } })).toEqual([])
    expect(accountEventsOf({ _tag: "OrderRecorded", order: { ...order, source: "bot", botId: "b1", botName: "c" } }).map((e) => e.type))
      .toEqual(["copy.executed"])
    // A bot trade stored opened, then closed: two events, each once.
    const opened = { _tag: "BotTradeSaved" as const, accountId: "wa1", bot: { id: "b1", name: "c" }, tradeId: "b1#1", status: "open" as const, at: T0, row: { status: "open" } }
    const closed = { ...opened, status: "closed" as const, at: T0 + 1, row: { status: "closed" } }
    expect([...accountEventsOf(opened), ...accountEventsOf(closed)].map((e) => [e.key, e.type, JSON.parse(e.body).data]))
      .toEqual([["bot.trade:b1#1:open", "bot.trade", { bot: { id: "b1", name: "c" }, trade: { status: "open" } }],
        ["bot.trade:b1#1:closed", "bot.trade", { bot: { id: "b1", name: "c" }, trade: { status: "closed" } }]])
    // Nothing is built for an account none of whose endpoints takes the type.
    const interest = await run(WebhookDeliveries.interest())
    expect(accountEventsOf({ _tag: "OrderRecorded", order }, interest).map((e) => e.type)).toEqual(["paper.order.filled"])
    expect(accountEventsOf({ _tag: "OrderRecorded", order: { ...order, accountId: "wa2" } }, interest)).toEqual([])
    expect(accountEventsOf({ _tag: "OrderRecorded", order: { ...order, accountId: "nobody" } }, interest)).toEqual([])
    expect(accountEventsOf({ _tag: "OrderRecorded", order: { ...order, accountId: "wa1" } }, interest).map((e) => e.type)).toEqual(["paper.order.filled"])
    expect(accountEventsOf({ ...opened, accountId: "wa3" }, interest)).toEqual([])
    await run(WebhookDeliveries.enqueue(events, clock.now()))
    expect((await pending()).map((r) => [r.endpoint_id, r.event_type])).toEqual([[stranger.id, "paper.order.filled"]])
    answers.set(stranger.url, 204)
    expect(await run(sendDue)).toBe(1)
    expect(await pending()).toEqual([])
  })
})

describe("the send-time address check", () => {
  it("refuses a host that resolves to a non-public address, and an address literal that is not public", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicLookup("localhost", {}, (e) => resolve(e)))
    expect(error?.code).toBe("ENOTPUBLIC")
    const outcome = await db.runPromise(attempt({
      id: "whd_x", eventType: "trade.whale", body: "{}", attempts: 0, url: "https://127.0.0.1:9/hook", secret: "whsec_x",
    }))
    expect(outcome).toMatchObject({ delivered: false, status: null, error: "127.0.0.1 is not a public address" })
    expect(outcome.retryAt).not.toBeNull()
  })
})

describe("the webhooks layer", () => {
  /** The webhooks layer over the IntelBus, this file's store and its transport. */
  const webhooksRuntime = async () =>
    ManagedRuntime.make(makeWebhooksLayer({ pollMs: 50 }).pipe(
      Layer.provideMerge(IntelBus.layer),
      Layer.provide(Layer.succeedContext((await db.runtime()).context)),
      Layer.provide(Layer.succeed(WebhookTransport, transport)),
    ))

  it("builds an account's events once an endpoint made through this node is known, without waiting for the next look", async () => {
    const runtime = await webhooksRuntime()
    try {
      const sink = await runtime.runPromise(WebhookSink)
      // The first look (at start) has found no endpoint of this account.
      await new Promise((resolve) => setTimeout(resolve, 300))
      await sql((s) => s`INSERT INTO accounts (id, name, subscription_active) VALUES ('wa_new', 'new', true) RETURNING id`)
      const fresh = await endpoint("wa_new", "https://new.example.com/hook", ["paper.order.filled"])
      sink.endpointsChanged?.()
      posts.length = 0
      sink.publish([{ _tag: "OrderRecorded", order: {
        id: "po_fresh", accountId: "wa_new", seq: 1, idempotencyKey: null, requestHash: null, market: "venue_b:WEBHOOK-1",
        marketObject: { ref: "venue_b:WEBHOOK-1", contract: "venue_b:WEBHOOK-1", title: "Market", venue: "venue_b", category: null, kind: null },
        outcome: "Yes", action: "buy", contracts: 1, avgPrice: 0.4, cost: 0.4, fee: 0, unfilled: 0, filledAt: clock.now(),
        profit: null, source: "hand", botId: null, botName: null, botFillId: null,
      } }])
      // Well inside the 2 s between looks.
      const deadline = Date.now() + 1_500
      while (!posts.some((p) => p.url === fresh.url) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(posts.filter((p) => p.url === fresh.url).map((p) => JSON.parse(p.body).data.id)).toEqual(["po_fresh"])
    } finally {
      await runtime.dispose()
    }
  })

  it("follows the IntelBus and the accounts' sink into the outbox and sends at once", async () => {
    const runtime = await webhooksRuntime()
    try {
      answers.set(all.url, 200)
      posts.length = 0
      const move: IntelEvent = { _tag: "TradeRecorded", trade: { ...trade, id: `${trade.id}-live` } }
      await runtime.runPromise(Effect.flatMap(IntelBus, (bus) => PubSub.publish(bus, move)))
      const sink = await runtime.runPromise(WebhookSink)
      sink.publish([{ _tag: "HoldingSettled", accountId: "wa1", holding: {
        key: "k", ref: "venue_b:WEBHOOK-1", market: { ref: "venue_b:WEBHOOK-1", contract: "venue_b:WEBHOOK-1", title: "M", venue: "venue_b", category: null, kind: null },
        outcome: "Yes", source: "hand", bot: null, contracts: 10, cost: 4, openedAt: T0, status: "settled", result: "win", payout: 1, settledAt: T0 + 1,
      } }])
      const deadline = Date.now() + 10_000
      while (posts.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      const types = posts.map((p) => JSON.parse(p.body).type).sort()
      expect(types).toEqual(["paper.position.settled", "trade.whale"])
      const settled = JSON.parse(posts.find((p) => JSON.parse(p.body).type === "paper.position.settled")!.body)
      expect(settled.data).toMatchObject({ status: "settled", result: "win", price: 1, contracts: 10 })
    } finally {
      await runtime.dispose()
    }
  })
})
