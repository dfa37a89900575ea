// Webhook deliveries (spec: Events → Webhook deliveries, Authentication 7): what happens is put in the
// outbox (store/webhook-deliveries.ts), one delivery per subscribed endpoint, and a sender fiber posts
// each due delivery, signed, until an endpoint answers 2xx or eight attempts have failed.
//
// - Sources: the IntelBus (live only, never backfilled history): `trade.whale` for each whale trade
//   recorded (the List Trades row), `trade.followed` for each trade (whale-size or not) by a trader one
//   of the account's trader bots follows (not ended), `move.detected` for each move (the List Moves
//   row); and the paper accounts (`WebhookSink`, ./sink.ts): `paper.order.filled` (a hand order),
//   `copy.executed` (a trader or signal bot's fill), `paper.position.settled` (a holding settled or voided);
//   and the bots (the same sink): `bot.trade` when a bot trade is stored opened, and again closed.
// - Body: `{ id, type, createdAt, data }` as JSON text, signed and sent byte for byte as stored. `id` is the
//   event's (the same on every endpoint); the delivery's own id is the `X-Service-Delivery` header.
// - Attempt: POST with `content-type: application/json`, `X-Service-Signature: t=<unix>,v1=<hmac>`,
//   `X-Service-Event`, `X-Service-Delivery`; 10 s at most; redirects are not followed (a 3xx is a
//   failure); the host is resolved again at send time and a non-public address refuses the attempt.
// - Any 2xx acknowledges. Otherwise the next attempt waits 30 s × 2^(n−1) after the n-th failure (30 s,
//   1 min, 2 min, … 32 min); the eighth failure abandons the delivery. Deleting an endpoint removes its
//   pending deliveries (the store cascades), also between two attempts.
// - At least once: a delivery claimed by a node that dies is sent again when its lease (5 min: longer than
//   a batch of 50 attempts, 8 at a time, each 10 s at most) runs out.
//   Delivered and abandoned deliveries are forgotten after 7 days.
// Times come from the Clock (the lease, the backoff, the signature's `t`).
import { request as httpsRequest } from "node:https"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, PubSub, Queue, Schedule } from "effect"
import { isMarketBot } from "../actors/accounts/account.machine.js"
import { SIGNATURE_HEADER, sign } from "../domain/webhook-signature.js"
import { IntelBus, type IntelEvent } from "../intel/intel-bus.js"
import { isoOf, moveRowOf, tradeRowOf } from "../intel/rows.js"
import { positionOf } from "../operations/paper.js"
import { paperOrderOf } from "../store/paper.js"
import { copyExecutionOf } from "../operations/v1-copy-log.js"
import { isPublicAddress } from "../operations/webhooks.js"
import { type AttemptOutcome, type Audience, type DueDelivery, type Interest, type OutboxEvent, WebhookDeliveries } from "../store/webhook-deliveries.js"
import { type AccountFact, WebhookSink } from "./sink.js"
import { marketAlertOf } from "../operations/v1-alerts.js"
import { makeInbox } from "../inbox.js"

export const MAX_ATTEMPTS = 8
export const FIRST_RETRY_MS = 30_000
export const LEASE_MS = 5 * 60_000
export const ATTEMPT_TIMEOUT_MS = 10_000
const KEEP_MS = 7 * 24 * 3_600_000
export const INTEREST_MS = 2_000
const BATCH = 50
const PARALLEL = 8

/** When to try again after the `attempts`-th failed attempt, or null to give up. */
export const retryAt = (now: number, attempts: number): number | null =>
  attempts >= MAX_ATTEMPTS ? null : now + FIRST_RETRY_MS * 2 ** (attempts - 1)

/** The delivery body: the event's id, type, time and data, as the JSON text that is signed and sent. */
export const bodyOf = (id: string, type: string, createdAt: number, data: unknown): string =>
  JSON.stringify({ id, type, createdAt: isoOf(createdAt), data })

const EVERYTHING: Interest = { types: new Set(["*"]), followed: new Set(), accounts: new Map() }
const wants = (interest: Interest, type: string): boolean => interest.types.has("*") || interest.types.has(type)

/** One outbox event: its key is `<type>:<id>`, which names it on every endpoint. */
const eventOf = (type: string, id: string, audience: Audience, at: number, data: unknown): OutboxEvent => {
  const key = `${type}:${id}`
  return { key, type, audience, body: bodyOf(key, type, at, data) }
}

/**
 * What the IntelBus event means for webhooks, given who wants what: no row is built and no JSON written
 * for an event nobody subscribes to (every named trade passes here). With no interest known yet,
 * `trade.followed` is still built for every named trade: the followers are only known from the store.
 */
export const outboxEventsOf = (event: IntelEvent, interest: Interest | null = null): ReadonlyArray<OutboxEvent> => {
  const known = interest ?? EVERYTHING
  switch (event._tag) {
    case "TradeRecorded": {
      const trade = event.trade
      const whale = trade.whale && wants(known, "trade.whale")
      const followed = trade.trader !== null && (interest === null || known.followed.has(trade.trader))
      if (!whale && !followed) return []
      const row = tradeRowOf(trade)
      const out: Array<OutboxEvent> = []
      if (whale) out.push(eventOf("trade.whale", trade.id, { _tag: "everyone" }, trade.time, row))
      if (followed) out.push(eventOf("trade.followed", trade.id, { _tag: "followers", trader: trade.trader as string }, trade.time, row))
      return out
    }
    case "MoveRecorded":
      return wants(known, "move.detected")
        ? [eventOf("move.detected", event.move.id, { _tag: "everyone" }, event.move.time, moveRowOf(event.move))]
        : []
    case "TradeSettled":
      return []
  }
}

/** Whether an endpoint of `accountId` takes `type`; anything while who wants what is not known (null). */
const accountWants = (interest: Interest | null, accountId: string, type: string): boolean => {
  if (interest === null) return true
  const types = interest.accounts.get(accountId)
  return types !== undefined && (types.has("*") || types.has(type))
}

/**
 * What a paper account's or a bot's fact means for webhooks (market bots' fills are not copies: none).
 * Nothing is built for an account none of whose endpoints takes the event's type (`interest`; most
 * accounts have no endpoint, and every order is a fact).
 */
export const accountEventsOf = (fact: AccountFact, interest: Interest | null = null): ReadonlyArray<OutboxEvent> => {
  if (fact._tag === "BotTradeSaved") {
    if (!accountWants(interest, fact.accountId, "bot.trade")) return []
    const audience = { _tag: "account", accountId: fact.accountId } as const
    return [eventOf("bot.trade", `${fact.tradeId}:${fact.status}`, audience, fact.at, { bot: fact.bot, trade: fact.row })]
  }
  if (fact._tag === "OrderRecorded") {
    const o = fact.order
    const audience = { _tag: "account", accountId: o.accountId } as const
    if (o.source === "hand") {
      return accountWants(interest, o.accountId, "paper.order.filled")
        ? [eventOf("paper.order.filled", o.id, audience, o.filledAt, paperOrderOf(o))]
        : []
    }
    if (!accountWants(interest, o.accountId, "copy.executed")) return []
    const copy = copyExecutionOf(o)
    if (isMarketBot(copy.bot)) return []
    return [eventOf("copy.executed", o.id, audience, o.filledAt, copy)]
  }
  if (fact._tag === "MarketAlertFired") {
    const a = fact.alert
    if (!accountWants(interest, a.accountId, "market.alert")) return []
    return [eventOf("market.alert", a.id, { _tag: "account", accountId: a.accountId }, a.triggeredAt ?? a.createdAt, marketAlertOf(a))]
  }
  const h = fact.holding
  if (isMarketBot(h.bot) || h.status !== "settled" || !accountWants(interest, fact.accountId, "paper.position.settled")) return []
  const id = `${fact.accountId}:${h.ref}:${h.outcome}:${h.bot === null ? "hand" : `bot:${h.bot.id}`}`
  return [eventOf("paper.position.settled", id, { _tag: "account", accountId: fact.accountId }, h.settledAt ?? h.openedAt, positionOf(h, h.payout))]
}

// Sending ----------------------------------------------------------------------------------------

export interface Answer {
  readonly status: number | null
  readonly error: string | null
}

export interface WebhookTransportService {
  /** POSTs `body` to `url` with `headers`; never fails: an attempt that got no answer has `error`. */
  readonly post: (url: string, headers: Readonly<Record<string, string>>, body: string) => Effect.Effect<Answer>
}

/**
 * Resolves like the system resolver but refuses a non-public address: the host is checked again at
 * send time (its DNS may have changed since registration), on the address actually connected to.
 */
export const publicLookup = (
  hostname: string,
  options: { readonly all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | ReadonlyArray<LookupAddress>, family?: number) => void,
): void => {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, found) => {
    if (error !== null) return callback(error, "")
    const refused = found.find((entry) => !isPublicAddress(entry.address))
    if (refused !== undefined || found.length === 0) {
      const reason = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? "nothing"}, not a public address`), { code: "ENOTPUBLIC" })
      return callback(reason, "")
    }
    if (options.all === true) return callback(null, found)
    const first = found[0] as LookupAddress
    callback(null, first.address, first.family)
  })
}

/** HTTPS, no redirects, 10 s, a public address only; the response body is read and dropped. */
const httpsTransport: WebhookTransportService = {
  post: (url, headers, body) =>
    Effect.async<Answer>((resume) => {
      let done = false
      const finish = (answer: Answer) => {
        if (!done) {
          done = true
          resume(Effect.succeed(answer))
        }
      }
      try {
        const parsed = new URL(url)
        if (parsed.protocol !== "https:") return finish({ status: null, error: "not an https URL" })
        const literal = parsed.hostname.replace(/^\[|\]$/g, "")
        if (/^[\d.]+$/.test(literal) || literal.includes(":")) {
          if (!isPublicAddress(literal)) return finish({ status: null, error: `${literal} is not a public address` })
        }
        const req = httpsRequest(parsed, {
          method: "POST",
          headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
          lookup: publicLookup as never,
          timeout: ATTEMPT_TIMEOUT_MS,
        }, (res) => {
          res.resume()
          res.on("end", () => finish({ status: res.statusCode ?? null, error: null }))
          res.on("error", (e) => finish({ status: res.statusCode ?? null, error: e.message }))
        })
        req.on("timeout", () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)))
        req.on("error", (e) => finish({ status: null, error: e.message }))
        req.end(body)
        return Effect.sync(() => req.destroy())
      } catch (e) {
        return finish({ status: null, error: e instanceof Error ? e.message : String(e) })
      }
    }),
}

/** How deliveries leave the service; tests provide their own with `Layer.succeed(WebhookTransport, …)`. */
export class WebhookTransport extends Context.Reference<WebhookTransport>()("whalewatch/WebhookTransport", {
  defaultValue: (): WebhookTransportService => httpsTransport,
}) {}

const is2xx = (status: number | null): boolean => status !== null && status >= 200 && status < 300

/** One attempt of one delivery: signed at the moment it is sent. */
export const attempt = (delivery: DueDelivery) =>
  Effect.gen(function* () {
    const transport = yield* WebhookTransport
    const seconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    // The whole attempt has ATTEMPT_TIMEOUT_MS, answer and body included: the socket's own timeout only
    // fires after that long without a byte, so a receiver trickling its answer would hold the attempt
    // (and the batch after it) open for as long as it liked.
    const answer = yield* transport.post(delivery.url, {
      "content-type": "application/json",
      "user-agent": "whalewatch-webhooks/0.1",
      [SIGNATURE_HEADER]: sign(delivery.secret, delivery.body, seconds),
      "X-Service-Event": delivery.eventType,
      "X-Service-Delivery": delivery.id,
    }, delivery.body).pipe(Effect.timeoutTo({
      duration: Duration.millis(ATTEMPT_TIMEOUT_MS),
      onTimeout: (): Answer => ({ status: null, error: `no complete answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` }),
      onSuccess: (a) => a,
    }))
    const now = yield* Clock.currentTimeMillis
    const attempts = delivery.attempts + 1
    const delivered = is2xx(answer.status)
    const outcome: AttemptOutcome = {
      id: delivery.id,
      status: answer.status,
      error: delivered ? null : (answer.error ?? `answered ${answer.status}`),
      delivered,
      retryAt: delivered ? null : retryAt(now, attempts),
    }
    return outcome
  })

/** Sends what is due now (up to one batch); how many were attempted. */
export const sendDue = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const due = yield* WebhookDeliveries.claim(now, LEASE_MS, BATCH)
  yield* Effect.forEach(due, (delivery) =>
    Effect.flatMap(attempt(delivery), (outcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => WebhookDeliveries.record(outcome, at))), { concurrency: PARALLEL, discard: true })
  return due.length
})

// Sources ----------------------------------------------------------------------------------------

/**
 * The outbox writer, the IntelBus follower and the sender, as one layer; provides the WebhookSink.
 * `pollMs`: how often due deliveries are looked for (a new event wakes the sender at once).
 */
export const makeWebhooksLayer = (options: { readonly pollMs?: number } = {}): Layer.Layer<WebhookSink, never, IntelBus | SqlClient.SqlClient> =>
  Layer.scoped(
    WebhookSink,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // An Inbox, not a Queue: every order's event passes through it (src/inbox.ts).
      const pending = makeInbox<OutboxEvent>()
      const wake = yield* Queue.sliding<void>(1)
      const withSql = Effect.provideService(SqlClient.SqlClient, sql)

      // Who wants what, looked up again every INTEREST_MS (an endpoint or a trader bot made just now on
      // another node may miss the events of those moments); until the first look, everything is built. An
      // endpoint made or deleted through this node is looked up at once (`endpointsChanged`), and until that
      // look ends everything is built again; a look that began before the change is not kept.
      let interest: Interest | null = null
      let changes = 0
      const changed = yield* Queue.sliding<void>(1)
      const lookUp = Effect.suspend(() => {
        const before = changes
        return withSql(WebhookDeliveries.interest()).pipe(
          Effect.tap((found) => Effect.sync(() => {
            if (changes === before) interest = found
          })),
          Effect.catchAllDefect((defect) => Effect.logError("webhook interest lookup failed", defect)),
        )
      })
      yield* Effect.forkScoped(Effect.forever(
        Effect.zipRight(lookUp, Effect.race(Effect.sleep(Duration.millis(INTEREST_MS)), Queue.take(changed))),
      ))

      // The IntelBus, in chunks (every recorded trade passes through it).
      const intel = yield* PubSub.subscribe(yield* IntelBus)
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.takeBetween(intel, 1, 4_096), (chunk) =>
          Effect.sync(() => {
            for (const event of chunk) for (const outbox of outboxEventsOf(event, interest)) pending.offer(outbox)
          })),
      ))

      // The outbox writer: what is waiting, one batch of statements at a time.
      yield* Effect.forkScoped(Effect.forever(
        Effect.gen(function* () {
          yield* pending.ready
          const events = pending.take(1_000)
          const now = yield* Clock.currentTimeMillis
          // A store that is briefly away (a restart of PostgreSQL) costs a few retries, not the events.
          yield* Effect.sandbox(withSql(WebhookDeliveries.enqueue(events, now))).pipe(
            Effect.retry(Schedule.intersect(Schedule.exponential(Duration.millis(200)), Schedule.recurs(5))),
            Effect.catchAll((cause) => Effect.logError("webhook outbox write failed 6 times; events dropped", cause)),
          )
          yield* Queue.offer(wake, undefined)
        }),
      ))

      // The sender: whenever woken or every pollMs, everything due (batch after batch).
      const sendAll: Effect.Effect<void> = Effect.flatMap(withSql(sendDue), (n) => (n >= BATCH ? sendAll : Effect.void))
      yield* Effect.forkScoped(Effect.forever(
        Effect.zipRight(
          Effect.race(Queue.take(wake), Effect.sleep(Duration.millis(options.pollMs ?? 1_000))),
          sendAll.pipe(Effect.catchAllDefect((defect) => Effect.logError("webhook sender failed", defect))),
        ),
      ))

      yield* Effect.forkScoped(Effect.repeat(
        Effect.flatMap(Clock.currentTimeMillis, (now) => withSql(WebhookDeliveries.purge(now - KEEP_MS))),
        Schedule.spaced(Duration.hours(1)),
      ))

      return {
        publish: (facts) => {
          for (const fact of facts) for (const event of accountEventsOf(fact, interest)) pending.offer(event)
        },
        endpointsChanged: () => {
          changes++
          interest = null
          Queue.unsafeOffer(changed, undefined)
        },
      }
    }),
  )

export const WebhooksLive = makeWebhooksLayer()
