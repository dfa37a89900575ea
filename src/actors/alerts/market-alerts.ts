// The market alerts' watcher: every armed alert in memory by contract, fed the OrderedFeed's prices and
// market endings on feed time (so a replayed feed fires the same alerts at the same prices), with what
// stopped written to the store in one statement every 200 ms (as the bots' flush) and each fired alert
// told to the webhooks (`market.alert`). Rebuilt on start from the armed alerts stored; an alert that
// fired in memory but was not yet written when the process died is armed again and fires at the next
// price at or beyond its bound.
import type { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, PubSub, Queue } from "effect"
import { OrderedFeed, type OrderedEvent } from "../../intel/intel-bus.js"
import { replayFromMark, venueOfRef } from "../../intel/recent-feed.js"
import { Markets } from "../markets/market-bus.js"
import { ByContract } from "../by-contract.js"
import { type AlertOutcome, MarketAlertsStore, type StoredAlert } from "../../store/market-alerts.js"
import { webhookSink } from "../../webhooks/sink.js"
import { type Fenced, fencedTransaction } from "../write-fence.js"

/** The side's price from a contract's Yes price: the first side's is the Yes price, the second's 1 − it. */
export const sidePrice = (yesPrice: number, side: 0 | 1): number => (side === 0 ? yesPrice : Math.round((1 - yesPrice) * 1e6) / 1e6)

/** Whether `price` is at or beyond the alert's bound (above or below). */
export const fires = (alert: Pick<StoredAlert, "above" | "below">, price: number): boolean =>
  (alert.above !== null && price >= alert.above - 1e-9) || (alert.below !== null && price <= alert.below + 1e-9)

/**
 * Armed alerts by contract; `apply` says what one feed event stops. Each alert is armed after a feed time:
 * a price of its contract at or before it was reported before the alert was set (events still on their
 * way through the buses, a backfill's held live events), and does not fire it.
 */
export class AlertWatch {
  private readonly armed = new ByContract<{ readonly alert: StoredAlert; readonly after: number }>()

  arm(alert: StoredAlert, after: number | null = null): void {
    this.armed.add(alert.market, alert.id, { alert, after: after ?? Number.NEGATIVE_INFINITY })
  }

  disarm(ref: string, id: string): void {
    this.armed.remove(ref, id)
  }

  get size(): number {
    return this.armed.size
  }

  apply(event: OrderedEvent, out: Array<AlertOutcome>): void {
    if (event._tag !== "PriceChanged" && event._tag !== "MarketSettled" && event._tag !== "MarketVoided") return
    const armed = this.armed.on(event.ref)
    if (armed === undefined) return
    for (const { alert, after } of armed.values()) {
      if (event._tag !== "PriceChanged") {
        out.push({ _tag: "Ended", id: alert.id, at: event.ts })
      } else {
        if (event.ts <= after) continue
        const price = sidePrice(event.yesPrice, alert.side)
        if (!fires(alert, price)) continue
        out.push({ _tag: "Triggered", id: alert.id, at: event.ts, price })
      }
      armed.delete(alert.id)
    }
    this.armed.prune(event.ref)
  }
}

export interface MarketAlertsService {
  /** Starts watching a stored armed alert, set now: prices its market reported before now do not fire it. */
  readonly arm: (alert: StoredAlert) => void
  /** Stops watching an alert (deleted). */
  readonly disarm: (ref: string, id: string) => void
  /** Writes what stopped so far and tells the webhooks (tests, shutdown); waits for a flush already running. */
  readonly flush: Effect.Effect<void>
  /**
   * A write of this actor's state made by an operation (creating, changing or deleting one), in a
   * transaction fenced as the actor's own writes are (src/actors/write-fence.ts).
   */
  readonly fenced: Fenced
}

export class MarketAlerts extends Context.Tag("whalewatch/MarketAlerts")<MarketAlerts, MarketAlertsService>() {}

export const makeMarketAlertsLayer = (options: { readonly flushEveryMs?: number } = {}): Layer.Layer<MarketAlerts, never, OrderedFeed | Markets | SqlClient.SqlClient> =>
  Layer.scoped(
    MarketAlerts,
    Effect.gen(function* () {
      const sqlContext = yield* Effect.context<SqlClient.SqlClient>()
      const markets = yield* Markets
      // Subscribed before the store is read, so events published meanwhile wait in the subscription.
      const events = yield* PubSub.subscribe(yield* OrderedFeed)
      const watch = new AlertWatch()
      let stopped: Array<AlertOutcome> = []
      // Where nodes share the lease and a holder stored the bots' feed mark, the alerts catch up from it too.
      const caught = yield* replayFromMark
      // Re-armed after the market's newest stored price (what a restart restores), so a backfill's prices
      // from before the stop do not fire them and those after it do. One whose market ended meanwhile (a
      // settlement a backfill took while the service was down) ends at once. Catching up, each is armed
      // after the mark instead and given what this node's recent feed kept since: the prices and endings
      // that came while no node watched it (an alert still armed in the store had not fired, or its firing
      // was not stored).
      for (const alert of yield* MarketAlertsStore.armed) {
        const status = markets.status(alert.market)
        if (status === "settled" || status === "void") {
          stopped.push({ _tag: "Ended", id: alert.id, at: markets.record(alert.market)?.settledAt ?? alert.createdAt })
        } else watch.arm(alert, caught === null ? markets.yesPriceAt(alert.market) : caught.floor[venueOfRef(alert.market)] ?? null)
      }
      if (caught !== null) {
        const before = stopped.length
        for (const event of caught.missed) watch.apply(event, stopped)
        yield* Effect.logInfo(`market alerts: caught up on ${caught.missed.length} events of the recent feed after the bots' last stored flush; ${stopped.length - before} alerts stopped`)
      }
      const sink = yield* webhookSink
      // Where nodes share a lease, alerts are written only as its holder (write-fence.ts); a refused write
      // is kept for the next round like a failed one.
      const fenced = yield* fencedTransaction

      // One flush at a time, so a flush asked for (tests, shutdown) waits for one already writing.
      const writing = yield* Effect.makeSemaphore(1)
      const flush = Effect.uninterruptible(writing.withPermits(1)(Effect.suspend(() => {
        const batch = stopped
        if (batch.length === 0) return Effect.void
        stopped = []
        return fenced(MarketAlertsStore.record(batch)).pipe(
          Effect.flatMap((changed) => MarketAlertsStore.byIds(changed)),
          Effect.tap((alerts) => Effect.sync(() => {
            if (Option.isNone(sink)) return
            sink.value.publish(alerts.filter((a) => a.status === "triggered").map((alert) => ({ _tag: "MarketAlertFired" as const, alert })))
          })),
          Effect.asVoid,
          Effect.catchAllCause((cause) =>
            Effect.zipRight(
              Effect.sync(() => void (stopped = [...batch, ...stopped])),
              Effect.logError("market alerts: recording fired alerts failed; retrying next round", cause),
            )),
        )
      }))).pipe(Effect.provide(sqlContext))

      yield* Effect.addFinalizer(() => flush)
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.takeBetween(events, 1, 4_096), (chunk) =>
          Effect.sync(() => {
            for (const event of caught === null ? chunk : caught.replay.live(chunk)) watch.apply(event, stopped)
          })),
      ))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(options.flushEveryMs ?? 200)), flush)))
      yield* Effect.logInfo(`market alerts armed: ${watch.size}`)

      return {
        arm: (alert) => watch.arm(alert, markets.yesPriceAt(alert.market)),
        disarm: (ref, id) => watch.disarm(ref, id),
        flush,
        fenced,
      }
    }),
  )

/** The market alerts of a running service: needs OrderedFeed and SqlClient (WebhookSink when present). */
export const MarketAlertsLive = makeMarketAlertsLayer()
