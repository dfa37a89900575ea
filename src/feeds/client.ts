// The feed client: starts every venue's connections (one per venue, more where a venue caps
// subscriptions per connection), hands decoded FeedEvents to one sink, and reports each venue's
// connection state and counters (`health()`, and `registerFeedHealth` for GET /healthz). It holds
// no venue logic: each venue's socket.ts owns its conversation. Paths default to the simulator's
// layout (`<base>/ws/<venue>`, venue_b's trades feed at `<base>/ws/venue_b/trades`).
import { Effect } from "effect"
import type { Venue } from "../domain/enums.js"
import { VENUES } from "../domain/enums.js"
import { Health } from "../operations/health.js"
import { venueHealth, type ConnectionHealth, type StreamName, type VenueHealth } from "./counters.js"
import { startKalshiFeed } from "./kalshi/socket.js"
import { liveEdge } from "./edge.js"
import type { Edge, FeedSink, FeedSocket, Tap } from "./socket.js"
import { VenueBFeed } from "./venue_b/socket.js"
import { startVenueBUsFeed } from "./venue_b_us/socket.js"

export interface FeedMarkets {
  /** venue_b token ids to subscribe at start (later listings are followed automatically); omitted = every market. */
  readonly venue_b?: ReadonlyArray<string>
  /** venue_b_us market slugs; omitted or empty = every market. */
  readonly venue_b_us?: ReadonlyArray<string>
  /** Kalshi book tickers; omitted = every market. */
  readonly venue_a?: ReadonlyArray<string>
  readonly venue_d?: ReadonlyArray<string>
}

export interface FeedClientOptions {
  /** `ws://host:port` of the venues (the simulator in development). */
  readonly baseUrl: string
  readonly venues?: ReadonlyArray<Venue>
  readonly sink: FeedSink
  /** Clock, chance, timers, dialer and log; anything omitted comes from the live edge. */
  readonly edge?: Partial<Edge>
  /** Raw-frame tap per connection (the recorder). */
  readonly tap?: (venue: Venue, stream: StreamName, connection: string) => Tap | undefined
  readonly markets?: FeedMarkets
  /** Override a venue's URL (full ws URL). */
  readonly urls?: Partial<Record<Venue | "venue_b_trades", string>>
  /** venue_b connection cap (tests use a small one). */
  readonly maxAssetsPerConnection?: number
  /** venue_b with a token list: also subscribe markets listed later (default true). */
  readonly followListings?: boolean
}

export interface FeedClient {
  readonly venues: ReadonlyArray<Venue>
  readonly sockets: (venue?: Venue) => ReadonlyArray<FeedSocket>
  readonly connections: () => ReadonlyArray<ConnectionHealth>
  readonly health: () => ReadonlyArray<VenueHealth>
  /** Cuts every connection of a venue (they reconnect as after a network failure). */
  readonly cut: (venue: Venue) => void
  readonly stop: () => void
}

export const venueUrl = (baseUrl: string, venue: Venue | "venue_b_trades"): string => {
  const base = baseUrl.replace(/\/+$/, "")
  return venue === "venue_b_trades" ? `${base}/ws/venue_b/trades` : `${base}/ws/${venue}`
}

export const startFeeds = (options: FeedClientOptions): FeedClient => {
  const edge = liveEdge(options.edge)
  const venues = [...(options.venues ?? VENUES)]
  const url = (v: Venue | "venue_b_trades") => options.urls?.[v] ?? venueUrl(options.baseUrl, v)
  const byVenue = new Map<Venue, () => ReadonlyArray<FeedSocket>>()
  const stops: Array<() => void> = []
  for (const venue of venues) {
    switch (venue) {
      case "venue_b": {
        const feed = new VenueBFeed({
          marketUrl: url("venue_b"),
          tradesUrl: url("venue_b_trades"),
          assets: options.markets?.venue_b ?? "all",
          sink: options.sink,
          edge,
          ...(options.tap === undefined ? {} : { tap: options.tap }),
          ...(options.maxAssetsPerConnection === undefined ? {} : { maxAssetsPerConnection: options.maxAssetsPerConnection }),
          ...(options.followListings === undefined ? {} : { followListings: options.followListings }),
        })
        feed.start()
        byVenue.set(venue, () => feed.sockets())
        stops.push(() => feed.stop())
        break
      }
      case "venue_b_us": {
        const sockets = startVenueBUsFeed({
          url: url(venue),
          sink: options.sink,
          edge,
          ...(options.markets?.venue_b_us === undefined ? {} : { slugs: options.markets.venue_b_us }),
          ...(options.tap === undefined ? {} : { tap: (v, c) => options.tap?.(v, "market", c) }),
        })
        byVenue.set(venue, () => sockets)
        stops.push(() => sockets.forEach((s) => s.stop()))
        break
      }
      case "venue_a":
      case "venue_d": {
        const markets = options.markets?.[venue]
        const sockets = startKalshiFeed({
          venue,
          url: url(venue),
          sink: options.sink,
          edge,
          ...(markets === undefined ? {} : { markets }),
          ...(options.tap === undefined ? {} : { tap: (v, c) => options.tap?.(v, "market", c) }),
        })
        byVenue.set(venue, () => sockets)
        stops.push(() => sockets.forEach((s) => s.stop()))
        break
      }
    }
  }
  const sockets = (venue?: Venue): ReadonlyArray<FeedSocket> =>
    venue === undefined ? venues.flatMap((v) => byVenue.get(v)?.() ?? []) : byVenue.get(venue)?.() ?? []
  const connections = () => sockets().map((s) => s.counters.snapshot())
  return {
    venues,
    sockets,
    connections,
    health: () => venueHealth(connections()),
    cut: (venue) => sockets(venue).forEach((s) => s.cut("cut by request")),
    stop: () => stops.forEach((stop) => stop()),
  }
}

/** A venue's connection state and counters as one line for /healthz. */
export const describeVenue = (h: VenueHealth): string => {
  const rejected = Object.values(h.rejected).reduce((n, k) => n + k, 0)
  const states = h.connections.map((c) => `${c.connection} ${c.state}`).join(", ")
  return `${states}; frames ${h.frames}, bytes ${h.bytes}, events ${h.events}, reconnects ${h.reconnects}, ` +
    `resyncs ${h.resyncs}, gaps ${h.gaps}, rejected ${rejected}, last frame ${h.lastFrameAt === null ? "never" : new Date(h.lastFrameAt).toISOString()}`
}

/** Registers one readiness check per venue (`feed:<venue>`): ready when all its connections are open. */
export const registerFeedHealth = (client: FeedClient): Effect.Effect<void, never, Health> =>
  Effect.gen(function* () {
    const health = yield* Health
    for (const venue of client.venues) {
      yield* health.register(
        `feed:${venue}`,
        Effect.sync(() => {
          const h = venueHealth(client.sockets(venue).map((s) => s.counters.snapshot()))[0]
          return h === undefined
            ? { ready: false, detail: "no connection" }
            : { ready: h.connected, detail: describeVenue(h) }
        }),
      )
    }
  })

/** A plain snapshot of every venue's counters (what /healthz shows, as data). */
export const feedHealth = (client: FeedClient): ReadonlyArray<VenueHealth> => client.health()
