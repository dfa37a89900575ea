// venue_b_us connection (Polymarket US markets socket), over the generic FeedSocket. It owns the
// subscriptions (market data and trades, at most 100 market slugs per subscription) and relies on
// the venue's resync property: every `marketData` frame is a whole book, and a (re)subscription is
// answered with the current book of each market, so after a reconnect resubscribing is the resync.
// The server sends `{"heartbeat":{}}` frames; a long silence means a dead connection.
// Wire shapes stay in ./decode.ts and ./frames.ts.
import type { Venue } from "../../domain/enums.js"
import type { Edge, FeedSink, Heartbeat, SessionOutput, StreamSession, Tap } from "../socket.js"
import { FeedSocket, NOTHING } from "../socket.js"
import { decodeVenueBUs } from "./decode.js"

export const VENUE_B_US_HEARTBEAT: Heartbeat = { silenceMs: 30_000 }
export const VENUE_B_US_MAX_SLUGS = 100

const TYPES = [
  ["md", "SUBSCRIPTION_TYPE_MARKET_DATA"],
  ["tr", "SUBSCRIPTION_TYPE_TRADE"],
] as const

/** Subscribe frames for `slugs`; with no slugs at all, one subscription per type for every market. */
export const venueBUsSubscribe = (slugs: ReadonlyArray<string>): Array<string> => {
  const chunks: Array<ReadonlyArray<string> | null> = []
  if (slugs.length === 0) chunks.push(null)
  for (let i = 0; i < slugs.length; i += VENUE_B_US_MAX_SLUGS) chunks.push(slugs.slice(i, i + VENUE_B_US_MAX_SLUGS))
  const out: Array<string> = []
  for (const [prefix, subscriptionType] of TYPES) {
    chunks.forEach((chunk, i) => {
      const subscribe: Record<string, unknown> = { requestId: `${prefix}-${i + 1}`, subscriptionType }
      if (chunk !== null) subscribe["marketSlugs"] = chunk
      out.push(JSON.stringify({ subscribe }))
    })
  }
  return out
}

export interface VenueBUsSessionOptions {
  /** Market slugs to subscribe, read at every (re)connect; empty = every market. */
  readonly slugs: () => ReadonlyArray<string>
}

export const venueBUsSession = (options: VenueBUsSessionOptions): StreamSession => ({
  opened: () => venueBUsSubscribe(options.slugs()),
  closed: () => {},
  frame: (text, receivedAt): SessionOutput => {
    const decoded = decodeVenueBUs(text, receivedAt)
    return { ...NOTHING, events: decoded.events, rejected: decoded.rejected }
  },
})

export interface VenueBUsFeedOptions {
  readonly url: string
  readonly slugs?: ReadonlyArray<string>
  readonly sink: FeedSink
  readonly edge: Edge
  readonly tap?: (venue: Venue, connection: string) => Tap | undefined
  readonly heartbeat?: Heartbeat
}

export const startVenueBUsFeed = (options: VenueBUsFeedOptions): ReadonlyArray<FeedSocket> => {
  const connection = "market#0"
  const tap = options.tap?.("venue_b_us", connection)
  const slugs = [...(options.slugs ?? [])]
  const socket = new FeedSocket({
    venue: "venue_b_us", stream: "market", connection, url: options.url,
    heartbeat: options.heartbeat ?? VENUE_B_US_HEARTBEAT,
    session: venueBUsSession({ slugs: () => slugs }),
    sink: options.sink, edge: options.edge, ...(tap === undefined ? {} : { tap }),
  })
  socket.start()
  return [socket]
}
