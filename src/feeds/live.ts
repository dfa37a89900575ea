// The live feeds of a running service: the venue simulator in-process on loopback when no VENUES_URL is
// configured, then one feed client for every venue publishing decoded events on the FeedBus, each
// venue's connection state and counters registered as a readiness check of GET /healthz. `VenueFeeds`
// tells later parts (backfill) where the venues are and whether every feed is connected.
import { type ConfigError, Context, Effect, Layer, Option } from "effect"
import { FeedBus } from "../actors/bus.js"
import { AppConfig } from "../config.js"
import type { Venue } from "../domain/enums.js"
import { Health } from "../operations/health.js"
import { startSim } from "../sim/index.js"
import { registerFeedHealth, startFeeds } from "./client.js"
import { venueHealth } from "./counters.js"

export interface VenueFeedsService {
  /** `ws://…` of the venues. */
  readonly wsUrl: string
  /** `http://…` of the venues' REST history (same host and port). */
  readonly httpUrl: string
  readonly venues: ReadonlyArray<Venue>
  /** True when every connection of every venue is open. */
  readonly connected: () => boolean
  /** When a connection of the venue last dropped (its socket's clock), or null when none ever did. */
  readonly lastDisconnectAt: (venue: Venue) => number | null
}

export class VenueFeeds extends Context.Tag("whalewatch/VenueFeeds")<VenueFeeds, VenueFeedsService>() {}

/** `ws://…` of the venues: the configured one, or a simulator started (and stopped) with the scope. */
const venuesBaseUrl = Effect.gen(function* () {
  const config = yield* AppConfig
  if (Option.isSome(config.venuesUrl)) return config.venuesUrl.value
  const sim = yield* Effect.acquireRelease(
    Effect.promise(() => startSim({ port: config.simPort, seed: config.simSeed, historyDays: config.historyDays })),
    (sim) => Effect.promise(() => sim.close()),
  )
  yield* Effect.logInfo(`venue simulator (seed ${config.simSeed}) on ${sim.url}`)
  return `ws://127.0.0.1:${sim.port}`
})

export const FeedsLive: Layer.Layer<VenueFeeds, ConfigError.ConfigError, FeedBus | Health> = Layer.scoped(
  VenueFeeds,
  Effect.gen(function* () {
    const baseUrl = yield* venuesBaseUrl
    const sink = yield* FeedBus.sink
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => startFeeds({ baseUrl, sink })),
      (client) => Effect.sync(() => client.stop()),
    )
    yield* registerFeedHealth(client)
    return {
      wsUrl: baseUrl,
      httpUrl: baseUrl.replace(/^ws(s?):/, "http$1:"),
      venues: client.venues,
      connected: () => client.venues.every((venue) => venueHealth(client.sockets(venue).map((s) => s.counters.snapshot()))[0]?.connected === true),
      lastDisconnectAt: (venue) => {
        const times = client.sockets(venue).flatMap((s) => (s.counters.lastDisconnect === null ? [] : [s.counters.lastDisconnect.at]))
        return times.length === 0 ? null : Math.max(...times)
      },
    }
  }),
)
