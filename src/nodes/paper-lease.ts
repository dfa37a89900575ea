// The paper lease: among nodes on one PostgreSQL, exactly one runs the paper accounts and bots (and the
// exit rules and market alerts that sell and fire on them), ARCHITECTURE's "each bot and account actor is
// owned by exactly one node at a time". It is a row of `node_leases` (src/store/leases.ts):
//
// - At start a node takes the lease if nobody holds it, it has expired, or the node held it under the
//   same NODE_ID (a restart takes it back at once). The holder builds the actors (restoring every bot and
//   account from the store) before its doors open, and renews the lease every third of its time.
// - Every other node builds no actors; its `owned` operations (src/operations/owned.ts) are sent to the
//   holder (`forward`) and answered with the holder's answer, headers included. Each such node tries to
//   take the lease every third of its time, or when the holder's lease would expire if that is sooner,
//   and when it has expired (the holder died, or lost the store), takes it and builds the actors: from
//   then on it is the holder.
// - A holder that cannot renew stops holding two thirds of the way through its lease, before any other
//   node can take it: it forwards from then on and closes its actors (their finalizers store what they
//   hold), and tries to take the lease again like any other node. One that finds the lease taken does the
//   same at once. Shutting down gives the lease up before the doors close (`resign`), and says so on a
//   PostgreSQL channel the other nodes LISTEN on, so one of them takes it at once (or at its next try,
//   had it missed the notice); what is forwarded here meanwhile is answered `not-holder` and sent on.
//
// The services the operations see (Accounts, Bots, ExitRules, MarketAlerts) are stand-ins that pass each
// use to the actors while this node holds the lease; an operation reaching them on another node is a
// wiring bug (every one that needs them is `owned`, which the registry checks at compile time).
import { randomBytes } from "node:crypto"
import http from "node:http"
import https from "node:https"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Context, Duration, Effect, Exit, Layer, Option, Queue, Schedule, Schema, Scope, Stream } from "effect"
import { Accounts } from "../actors/accounts/registry.js"
import { MarketAlerts } from "../actors/alerts/market-alerts.js"
import { Bots } from "../actors/bots/bots-live.js"
import { ExitRules } from "../actors/exits/exit-rules.js"
import { LeaseLost, WriteFence, type WriteFenceService } from "../actors/write-fence.js"
import { API_ERRORS, type ApiError, UpstreamFailed } from "../domain/errors.js"
import { Principal } from "../domain/principal.js"
import { Health } from "../operations/health.js"
import type { Operation, OperationContext } from "../operations/operation.js"
import { PaperOwner, type PaperOwnerService } from "../operations/owned.js"
import type { PaperActors } from "../operations/registry.js"
import { type LeaseHolder, Leases, RELEASED_CHANNEL } from "../store/leases.js"
import { currentSchema, listen, othersNamed } from "../store/listen.js"
import { Settings } from "../store/settings.js"
import { ForwardAnswer, type ForwardRequest, NODE_ROUTE, SIGNATURE_HEADER, sign } from "./wire.js"

export const PAPER_LEASE = "paper"

export interface PaperLeaseOptions {
  readonly nodeId: string
  /** How long the lease lasts unrenewed. */
  readonly ttlMs: number
  /** Where the other nodes send operations; when unset, what `announce` gives once the server listens. */
  readonly url?: string
}

/** What main tells the lease; whether this node holds it is `PaperOwner.holds`. */
export interface PaperLeaseService {
  /** This node's address once its server listens (ignored when the options named one). */
  readonly announce: (url: string) => Effect.Effect<void>
  /**
   * Shutting down, before the doors close: stops the actors, gives the lease up (told to the other
   * nodes, which take it at once) and waits, up to RESIGN_WAIT_MS, until another node holds it (not at
   * all when no other node's connection listens for releases: a lone node stops at once). Calls
   * still sent here meanwhile are answered `not-holder` (the sender sends them on to the new holder),
   * rather than meeting a door that closes their connection under them. Never takes the lease again.
   */
  readonly resign: Effect.Effect<void>
}

/**
 * How long a resigning holder waits for another node to take the lease before its doors close: enough
 * for a listening node's take (tens of milliseconds here), and a bound on a lone node's shutdown.
 */
export const RESIGN_WAIT_MS = 2_000

/** How long a resigning holder keeps its doors open once another node has taken the lease. */
export const RESIGN_GRACE_MS = 250

/** How long a node that stops holding waits for the operations running on its actors to end. */
export const DEMOTE_DRAIN_MS = 10_000

/**
 * What the application_name of every connection listening for releases of the lease in `schema` starts
 * with (pg_stat_activity): the nodes that share this lease, not those of another schema on the server.
 */
export const listenerPrefix = (schema: string): string => `whalewatch:listen:${schema}:`

/** The application_name of a node's connection listening for releases. */
export const listenerName = (schema: string, nodeId: string): string => `${listenerPrefix(schema)}${nodeId}`

export class PaperLease extends Context.Tag("whalewatch/PaperLease")<PaperLease, PaperLeaseService>() {}

/** The nodes' shared secret that signs forwarded calls. */
export const nodeSecret: Effect.Effect<Uint8Array, never, Settings> = Effect.map(Settings.secret("nodes"), (hex) => Buffer.from(hex, "hex"))

/**
 * An object that passes every property read to the service `current()` gives: the same object to the
 * operations for the node's whole life, whatever actors stand behind it now.
 */
const standIn = <S extends object>(name: string, current: () => S | undefined): S =>
  new Proxy({} as S, {
    get: (_target, property) => {
      const service = current()
      if (service !== undefined) return Reflect.get(service, property)
      // Probes that look for optional protocols (a thenable, Effect's symbols) find nothing.
      if (typeof property === "symbol" || property === "then") return undefined
      throw new Error(`${name}: the paper actors run on the node that holds the paper lease, not this one`)
    },
  })

const decodeError = Schema.decodeUnknown(Schema.Union(...API_ERRORS))
const decodeAnswer = Schema.decodeUnknown(Schema.parseJson(ForwardAnswer))

type Post =
  | { readonly _tag: "Answer"; readonly answer: ForwardAnswer }
  /** The holder's address refused the connection: nothing was sent. */
  | { readonly _tag: "Refused" }
  /** The holder's node door refused the call (401: its signature, time or nonce): nothing ran. */
  | { readonly _tag: "Rejected"; readonly detail: string }
  /** Sent, but no usable answer came back: the call may or may not have run. */
  | { readonly _tag: "Lost"; readonly detail: string }

/**
 * Kept-alive connections to the holder (node:http: about a millisecond less a call than fetch here). One
 * idle for 2 s is closed here, before the holder's server closes it (Node's default keep-alive timeout,
 * 5 s): a call is never sent on a connection the holder is closing, which would fail it without an answer.
 */
const IDLE_MS = 2_000
const agents = { http: new http.Agent({ keepAlive: true, timeout: IDLE_MS }), https: new https.Agent({ keepAlive: true, timeout: IDLE_MS }) }

const post = (url: string, name: string, body: string, signature: string): Effect.Effect<Post> =>
  Effect.async<Post>((resume) => {
    const target = new URL(`${url}${NODE_ROUTE}${encodeURIComponent(name)}`)
    const secure = target.protocol === "https:"
    const request = (secure ? https : http).request(target, {
      method: "POST",
      agent: secure ? agents.https : agents.http,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), [SIGNATURE_HEADER]: signature },
      timeout: 60_000,
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", (error) => resume(Effect.succeed({ _tag: "Lost", detail: String(error) })))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        if (response.statusCode === 401) return resume(Effect.succeed({ _tag: "Rejected", detail: text.slice(0, 300) }))
        if (response.statusCode !== 200) return resume(Effect.succeed({ _tag: "Lost", detail: `HTTP ${response.statusCode}: ${text.slice(0, 200)}` }))
        resume(decodeAnswer(text).pipe(
          Effect.map((answer): Post => ({ _tag: "Answer", answer })),
          Effect.orElseSucceed((): Post => ({ _tag: "Lost", detail: `an answer that is not the node wire's: ${text.slice(0, 200)}` })),
        ))
      })
    })
    request.on("timeout", () => request.destroy(new Error("no answer within 60 s")))
    // Refused: the connection never opened, so nothing was sent.
    request.on("error", (error: Error & { code?: string }) =>
      resume(Effect.succeed(error.code === "ECONNREFUSED" ? { _tag: "Refused" } : { _tag: "Lost", detail: String(error) })))
    request.end(body)
    return Effect.sync(() => void request.destroy())
  })

/**
 * The paper actors (`actors`, built only while this node holds the lease) behind stand-ins, with the
 * PaperOwner the `owned` operations ask, and the lease itself.
 */
export const leasedPaperActors = <E, RIn>(
  actors: Layer.Layer<PaperActors, E, RIn>,
  options: PaperLeaseOptions,
): Layer.Layer<PaperActors | PaperOwner | PaperLease, never, RIn | SqlClient.SqlClient | Settings> =>
  Layer.scopedContext(Effect.gen(function* () {
    const outer = yield* Effect.context<RIn | SqlClient.SqlClient>()
    const secret = yield* nodeSecret
    const inStore = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Effect.provide(effect, outer)
    const ttl = options.ttlMs
    let url: string | null = options.url ?? null
    /** The epoch this node holds the lease at, per its last take or renewal. */
    let epoch: number | null = null
    /** When the last renewal that succeeded was sent (the Clock's ms). */
    let renewedAt = 0
    let running: { readonly context: Context.Context<PaperActors>; readonly scope: Scope.CloseableScope } | null = null
    /** The lease is surely this node's: taken or renewed less than two thirds of its time ago. */
    const fresh = (now: number) => epoch !== null && now - renewedAt < (ttl * 2) / 3
    /** Demoting: no operation starts here any more, and the actors close once those running here end. */
    let stopping = false
    /** Operations running here on the actors (runHere). */
    let inFlight = 0
    /**
     * This node runs the actors, is not stopping them, and its lease is surely its own. A holder frozen
     * past that (its queued requests overdue) makes its operations wait, as any node does for a holder,
     * until its keeper has renewed the lease or found it taken: they neither run here nor write meanwhile.
     */
    const holds: Effect.Effect<boolean> = Effect.map(Clock.currentTimeMillis, (now) => running !== null && !stopping && fresh(now))
    const runHere: PaperOwnerService["runHere"] = (self) =>
      Effect.flatMap(holds, (here) => {
        if (!here) return Effect.succeed(Option.none())
        inFlight++
        return Effect.ensuring(Effect.map(self, Option.some), Effect.sync(() => void inFlight--))
      })
    const changes = yield* Effect.makeSemaphore(1)

    /**
     * The actors write only while the lease is surely this node's: taken or renewed less than two thirds
     * of its time ago (by this node's Clock, from when the renewal was sent), the same bound at which the
     * keeper stops holding. A node frozen past it refuses the writes it had queued until the keeper has run.
     * Each write then checks the store at this epoch (src/actors/write-fence.ts).
     */
    const fence: WriteFenceService = {
      token: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        epoch !== null && fresh(now)
          ? Effect.succeed({ name: PAPER_LEASE, nodeId: options.nodeId, epoch, idleMs: ttl / 3 })
          : Effect.fail(new LeaseLost({ message: `paper lease: node ${options.nodeId} may no longer write the paper actors (the lease is not surely its own)` }))),
    }

    const promote = changes.withPermits(1)(Effect.gen(function* () {
      if (running !== null || epoch === null) return
      const scope = yield* Scope.make()
      const built = yield* Layer.buildWithScope(actors, scope).pipe(Effect.provide(Context.add(outer, WriteFence, fence)), Effect.exit)
      if (Exit.isFailure(built)) {
        yield* Scope.close(scope, Exit.void)
        yield* Effect.logError("paper lease: the paper actors failed to start; giving the lease up", built.cause)
        const held = epoch
        epoch = null
        yield* inStore(Leases.release({ name: PAPER_LEASE, nodeId: options.nodeId, epoch: held })).pipe(Effect.ignore)
        return
      }
      running = { context: built.value, scope }
      yield* Effect.logInfo(`paper lease: node ${options.nodeId} holds it (epoch ${epoch}); the paper accounts and bots run here`)
    }))

    /**
     * Stops holding: forwards from now on, lets the operations running here end (up to DEMOTE_DRAIN_MS; one
     * that reached the actors as they closed would fail), then closes the actors (they store what they
     * hold). The fence stays as it was meanwhile: on a lease given up they may still write, and on one
     * another node took the store refuses them.
     */
    const demote = (why: string) => changes.withPermits(1)(Effect.gen(function* () {
      const was = running
      if (was === null) {
        epoch = null
        return
      }
      stopping = true
      yield* Effect.logWarning(`paper lease: node ${options.nodeId} stops holding it (${why}); the paper actors stop here`)
      yield* Effect.sync(() => inFlight === 0).pipe(
        Effect.repeat({ until: (drained) => drained, schedule: Schedule.spaced(Duration.millis(5)) }),
        Effect.timeoutOption(Duration.millis(DEMOTE_DRAIN_MS)),
      )
      if (inFlight > 0) yield* Effect.logWarning(`paper lease: closing the paper actors with ${inFlight} operations still running on them`)
      running = null
      epoch = null
      stopping = false
      yield* Scope.close(was.scope, Exit.void)
    }))

    /** When the keeper runs next: a third of the lease, or sooner when the lease another node holds expires sooner. */
    let nextTryMs = ttl / 3
    const take = Effect.gen(function* () {
      const sentAt = yield* Clock.currentTimeMillis
      const taken = yield* inStore(Leases.acquire({ name: PAPER_LEASE, nodeId: options.nodeId, url, ttlMs: ttl })).pipe(
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("paper lease: could not ask the store for the lease", cause), null)),
      )
      if (taken === null) {
        // Held by another node: try again as soon as it would expire (a dead holder's lease is taken then,
        // not up to a third of the lease later). Its time left is the database's, so no clock is compared.
        const other = yield* inStore(Leases.holder(PAPER_LEASE)).pipe(Effect.orElseSucceed(() => null))
        if (other !== null && other.live) nextTryMs = Math.max(25, Math.min(ttl / 3, other.remainingMs + 25))
        return
      }
      epoch = taken
      renewedAt = sentAt
      yield* promote
    })

    const renew = Effect.gen(function* () {
      const held = epoch
      if (held === null) return
      const sentAt = yield* Clock.currentTimeMillis
      const renewed = yield* inStore(Leases.renew({
        name: PAPER_LEASE, nodeId: options.nodeId, epoch: held, ttlMs: ttl, ...(url === null ? {} : { url }),
      })).pipe(Effect.map(Option.some), Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("paper lease: renewal failed", cause), Option.none<boolean>())))
      if (Option.isSome(renewed) && renewed.value) {
        renewedAt = sentAt
        return
      }
      if (Option.isSome(renewed)) return yield* demote("another node took the lease")
      const now = yield* Clock.currentTimeMillis
      if (now - renewedAt >= (ttl * 2) / 3) yield* demote("the store did not confirm it for two thirds of its time")
    })

    /** The pool, on PostgreSQL: where this node listens for releases (below), on a connection named for the schema. */
    const pg = Context.getOption(outer, PgClient.PgClient)
    const schema = Option.isNone(pg) ? "" : yield* inStore(currentSchema).pipe(Effect.orElseSucceed(() => "public"))
    const myListener = listenerName(schema, options.nodeId)
    /** Shutting down: the keeper takes and renews nothing from now on. */
    let resigned = false
    /** One tick or resign at a time: a take still running when the node resigns would hold the lease after it. */
    const keeping = yield* Effect.makeSemaphore(1)
    const tick = keeping.withPermits(1)(Effect.suspend(() =>
      resigned ? Effect.void : epoch === null ? take : Effect.zipRight(renew, running === null ? promote : Effect.void)))
    const resign = keeping.withPermits(1)(Effect.gen(function* () {
      if (resigned) return
      resigned = true
      const held = epoch
      yield* demote("shutting down")
      if (held === null) return
      yield* inStore(Leases.release({ name: PAPER_LEASE, nodeId: options.nodeId, epoch: held })).pipe(Effect.ignore)
      // No other node listening for releases of this lease (none runs on this schema): nobody to wait for.
      const others = Option.isNone(pg) ? 1 : yield* inStore(othersNamed(listenerPrefix(schema), myListener)).pipe(Effect.orElseSucceed(() => 1))
      if (others === 0) return yield* Effect.logInfo(`paper lease: node ${options.nodeId} gave it up; no other node listens for it`)
      const taker = yield* inStore(Leases.holder(PAPER_LEASE)).pipe(
        Effect.filterOrFail((holder): holder is LeaseHolder => holder !== null && holder.live && holder.nodeId !== options.nodeId),
        Effect.retry(Schedule.spaced(Duration.millis(25))),
        Effect.timeoutOption(Duration.millis(Math.min(RESIGN_WAIT_MS, ttl / 3))),
        // The retry goes on through store errors too, so this is never reached; it types the error away.
        Effect.orElseSucceed(() => Option.none<LeaseHolder>()),
      )
      if (Option.isNone(taker)) return
      yield* Effect.logInfo(`paper lease: node ${taker.value.nodeId} took it over from ${options.nodeId} (epoch ${taker.value.epoch})`)
      // A call the taker sent here just before its take returned may still be on its way: it is answered
      // `not-holder` if it arrives before the doors close, and lost in flight if after.
      yield* Effect.sleep(Duration.millis(RESIGN_GRACE_MS))
    }))
    // Main resigns before its doors close; a scope closed without that (tests, a failed start) resigns here.
    yield* Effect.addFinalizer(() => resign)
    yield* take
    const announced = yield* Queue.sliding<string>(1)
    /** A release of the paper lease was told (on PostgreSQL, by LISTEN): the keeper tries at once. */
    const released = yield* Queue.sliding<void>(1)
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.raceAll([
        Effect.suspend(() => {
          const wait = nextTryMs
          nextTryMs = ttl / 3
          return Effect.sleep(Duration.millis(wait))
        }),
        Effect.flatMap(Queue.take(announced), (at) => Effect.sync(() => void (url = at))),
        Queue.take(released),
      ]),
      tick,
    )))
    // A holder shutting down gives the lease up and says so (Leases.release): listening, this node takes it
    // then, not at its next try (up to a third of the lease later), so a rolling restart stops the paper
    // actors for about as long as restoring them takes. The tries go on besides: a dead holder says nothing,
    // and a notice missed while the listening connection was down (it is opened again a second after it
    // breaks: src/store/listen.ts) costs only that wait.
    if (Option.isSome(pg)) {
      yield* Effect.forkScoped(Effect.forever(listen(pg.value.config, RELEASED_CHANNEL, myListener).pipe(
        Stream.filter((name) => name === PAPER_LEASE),
        Stream.runForEach(() => Queue.offer(released, undefined)),
        Effect.catchAllCause((cause) => Effect.logWarning("paper lease: listening for releases failed; trying again in a second", cause)),
        Effect.zipRight(Effect.sleep(Duration.seconds(1))),
      )))
    }

    /**
     * The holder as last read, for up to a third of the lease: a forwarded call does not ask the store each
     * time. Forgotten when the holder does not answer or says it holds the lease no more.
     */
    let known: { readonly holder: LeaseHolder | null; readonly at: number } | null = null
    const holderNow = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (known !== null && now - known.at < ttl / 3) return known.holder
      const holder = yield* inStore(Leases.holder(PAPER_LEASE)).pipe(Effect.orElseSucceed(() => null))
      known = { holder, at: now }
      return holder
    })

    const forward: PaperOwnerService["forward"] = <I, O>(op: Operation<I, O, any>, input: I, ctx: OperationContext, local: Effect.Effect<O, ApiError>) =>
      Effect.gen(function* () {
        const encodedInput = yield* Schema.encode(op.input)(input).pipe(Effect.orDie)
        const principal = Schema.encodeSync(Principal)(ctx.principal)
        // A dead holder's lease runs out within `ttl`, a node takes it at its next try (a third later) and
        // then restores the actors: a call waits that long, and a little more, before giving up.
        const deadline = (yield* Clock.currentTimeMillis) + ttl + ttl / 3 + 3_000
        let prepaid = 0
        let last = "no node holds the lease"
        for (;;) {
          const here = yield* runHere(local)
          if (Option.isSome(here)) return here.value
          // This node has the lease in the store and is starting its actors (or stopping them, or renewing
          // after a freeze): the call waits for them here. Sent to the node it took the lease from, it could
          // meet that node's doors closing under it.
          const holder = epoch !== null ? null : yield* holderNow
          if (epoch !== null) {
            last = `node ${options.nodeId} (this one) holds the lease but its paper actors are not running`
          } else if (holder !== null && holder.live && holder.url !== null && holder.nodeId !== options.nodeId) {
            const body = JSON.stringify({
              operation: op.name, sentAt: yield* Clock.currentTimeMillis, nonce: randomBytes(16).toString("hex"), principal, input: encodedInput, prepaid,
            } satisfies typeof ForwardRequest.Encoded)
            const sent = yield* post(holder.url, op.name, body, sign(secret, body))
            if (sent._tag === "Answer") {
              const answer = sent.answer
              if (answer.outcome === "done" || answer.outcome === "failed") {
                for (const [name, value] of answer.headers) yield* ctx.setHeader(name, value)
                if (answer.outcome === "done") return yield* Schema.decodeUnknown(op.output)(answer.output).pipe(Effect.orDie)
                return yield* Effect.flatMap(decodeError(answer.error).pipe(Effect.orDie), Effect.fail)
              }
              if (answer.outcome === "charge") {
                yield* ctx.charge(answer.units - prepaid)
                prepaid = answer.units
                continue
              }
              last = `node ${holder.nodeId} no longer holds the lease`
              known = null
            } else if (sent._tag === "Rejected") {
              // Nothing ran, and sending it again would be refused the same way (a misconfigured node: another
              // secret, or a clock more than a minute off).
              yield* Effect.logError(`paper lease: node ${holder.nodeId}'s node door refused ${op.name}: ${sent.detail}`)
              return yield* new UpstreamFailed({
                error: `The node that holds the paper accounts (${holder.nodeId}) refused this node's call, so nothing was carried out; ` +
                  "the nodes' shared secret or clocks disagree: retry shortly, or through another node",
              })
            } else if (sent._tag === "Lost" && op.method !== "GET") {
              known = null
              yield* Effect.logWarning(`paper lease: ${op.name} sent to node ${holder.nodeId} got no answer: ${sent.detail}`)
              return yield* new UpstreamFailed({
                error: `The node that holds the paper accounts (${holder.nodeId}) did not answer, so this request may or may not have been carried out; ` +
                  "send it again with the same Idempotency-Key, or read the account or bot to see",
              })
            } else {
              last = `node ${holder.nodeId} did not answer at ${holder.url}`
              known = null
            }
          } else if (holder !== null && holder.live && holder.url === null) {
            last = `node ${holder.nodeId} holds the lease but has not opened its doors yet`
            known = null
          } else {
            known = null
          }
          if ((yield* Clock.currentTimeMillis) > deadline) {
            return yield* new UpstreamFailed({ error: `The paper accounts are unavailable: ${last}; retry shortly` })
          }
          yield* Effect.sleep(Duration.millis(epoch !== null ? 25 : 100))
        }
      })

    // On GET /healthz: who holds the lease. Ready whatever the answer (a node that does not hold it
    // forwards, and one waiting for a takeover still serves everything else).
    const health = yield* Effect.serviceOption(Health)
    if (Option.isSome(health)) {
      const elsewhere = Effect.map(inStore(Leases.holder(PAPER_LEASE)).pipe(Effect.orElseSucceed(() => null)), (holder) => ({
        ready: true,
        detail: holder === null || !holder.live
          ? "held by no node (a node takes it within a third of the lease)"
          : `held by node ${holder.nodeId} (epoch ${holder.epoch}); this node, ${options.nodeId}, forwards to it`,
      }))
      yield* health.value.register("paper-lease", Effect.flatMap(holds, (here) =>
        here ? Effect.succeed({ ready: true, detail: `held by this node, ${options.nodeId} (epoch ${epoch})` }) : elsewhere))
    }

    const actorsNow = <S extends object>(tag: Context.Tag<any, S>) => () => (running === null ? undefined : Context.get(running.context, tag as never) as S)
    return Context.empty().pipe(
      Context.add(Accounts, standIn("Accounts", actorsNow(Accounts))),
      Context.add(Bots, standIn("Bots", actorsNow(Bots))),
      Context.add(ExitRules, standIn("ExitRules", actorsNow(ExitRules))),
      Context.add(MarketAlerts, standIn("MarketAlerts", actorsNow(MarketAlerts))),
      Context.add(PaperOwner, { holds, runHere, forward }),
      Context.add(PaperLease, {
        announce: (at) => (options.url !== undefined ? Effect.void : Queue.offer(announced, at).pipe(Effect.asVoid)),
        resign,
      }),
    )
  }))
