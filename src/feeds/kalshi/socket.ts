// Kalshi-family connection (venue_a, venue_d): subscribe commands, per-sid sequence checking and
// book resync, over the generic FeedSocket. It owns the conversation, not the wire shapes of data
// (../kalshi/decode.ts) nor the socket mechanics (../socket.ts).
//
// Resync (venues.md §3.3): `seq` counts per subscription (`sid`). On a gap in a book subscription,
// every book of that sid is untrusted: its deltas are dropped and one `update_subscription`
// `get_snapshot` asks for fresh snapshots of the sid's markets; each market's snapshot makes that
// market's deltas flow again. A delta for a market never snapshotted asks for that market's
// snapshot the same way. Error 25 (subscription buffer overflow) counts as a gap on every book sid.
// A gap on a trade/ticker sid cannot be repaired (no history on the socket): it is counted only.
// After a reconnect everything restarts: new sids, fresh snapshots from the new subscription.
// The server keeps the connection alive with WS pings (answered by `ws`); 25 s of silence = dead.
import type { Venue } from "../../domain/enums.js"
import type { FeedEvent } from "../../domain/feed-events.js"
import type { FeedSink, Edge, Heartbeat, SessionOutput, StreamSession, Tap } from "../socket.js"
import { FeedSocket, NOTHING } from "../socket.js"
import { isRecord } from "../wire.js"
import type { KalshiDecoder } from "./decode.js"
import { SequenceTracker, sequenceOf } from "./sequence.js"
import { decodeVenueA } from "../venue_a/decode.js"
import { decodeVenueD } from "../venue_d/decode.js"

export type KalshiVenueId = Extract<Venue, "venue_a" | "venue_d">

export const KALSHI_HEARTBEAT: Heartbeat = { silenceMs: 25_000 }

export const KALSHI_DECODERS: Record<KalshiVenueId, KalshiDecoder> = { venue_a: decodeVenueA, venue_d: decodeVenueD }

/** Channels subscribed by default: the book, trades, ticker and lifecycle. */
export const KALSHI_DATA_CHANNELS = ["trade", "ticker", "market_lifecycle_v2"] as const

export interface KalshiSessionOptions {
  readonly venue: KalshiVenueId
  /** Book markets to subscribe; omitted = every market (the simulator's reading of "no tickers"). */
  readonly markets?: ReadonlyArray<string>
  readonly decode?: KalshiDecoder
}

const NO_REPLIES: ReadonlyArray<string> = Object.freeze([])

const BOOK_TYPES: ReadonlySet<unknown> = new Set(["orderbook_snapshot", "orderbook_delta"])
/** Command responses repeat the sid's current `seq` (`ok`, `unsubscribed`) rather than advance it. */
const CONTROL_TYPES: ReadonlySet<unknown> = new Set(["subscribed", "unsubscribed", "ok", "list_subscriptions", "error"])

/** Per-sid book state of one connection. */
interface BookSid {
  /** Markets of this sid seen so far (snapshot or delta). */
  readonly markets: Set<string>
  /** Markets whose snapshot since the last gap has arrived. */
  readonly trusted: Set<string>
  /** Markets a get_snapshot was sent for and whose snapshot has not come yet. */
  readonly awaiting: Set<string>
}

const tickerOf = (frame: Record<string, unknown>): string | null => {
  const msg = frame["msg"]
  if (!isRecord(msg)) return null
  const ticker = msg["market_ticker"]
  return typeof ticker === "string" && ticker.length > 0 ? ticker : null
}

export const kalshiSession = (options: KalshiSessionOptions): StreamSession => {
  const venue = options.venue
  const decode = options.decode ?? KALSHI_DECODERS[venue]
  const tracker = new SequenceTracker()
  const books = new Map<number, BookSid>()
  let nextId = 1

  const bookSid = (sid: number): BookSid => {
    let state = books.get(sid)
    if (state === undefined) {
      state = { markets: new Set(), trusted: new Set(), awaiting: new Set() }
      books.set(sid, state)
    }
    return state
  }

  const command = (cmd: string, params: Record<string, unknown>): string => JSON.stringify({ id: nextId++, cmd, params })

  /** Asks for snapshots of `markets` on `sid` (those not already asked for). */
  const requestSnapshots = (sid: number, state: BookSid, markets: Iterable<string>, replies: Array<string>): boolean => {
    const fresh = [...markets].filter((m) => !state.awaiting.has(m)).sort()
    if (fresh.length === 0) return false
    for (const m of fresh) state.awaiting.add(m)
    replies.push(command("update_subscription", { sids: [sid], market_tickers: fresh, action: "get_snapshot" }))
    return true
  }

  /** A gap on a book sid: untrust all its books and ask for all of them again. */
  const resyncSid = (sid: number, state: BookSid, replies: Array<string>): boolean => {
    state.trusted.clear()
    state.awaiting.clear()
    return requestSnapshots(sid, state, state.markets, replies)
  }

  /** This frame's counts and replies (reset per frame; replies copied out only when there are some). */
  let resyncs = 0
  let gaps = 0
  const replies: Array<string> = []
  const takeReplies = (): ReadonlyArray<string> => (replies.length === 0 ? NO_REPLIES : replies.splice(0))

  /**
   * Checks a sequenced frame's `seq`; for a book frame also its sid's trust (a gap untrusts the sid,
   * a snapshot trusts its market, a delta of an untrusted market asks for its snapshot). True when
   * the frame's deltas must be dropped.
   */
  const sequenced = (type: unknown, sid: number, seq: number, ticker: string | null): boolean => {
    const gap = tracker.check(sid, seq)._tag === "gap"
    if (gap) gaps += 1
    if (!BOOK_TYPES.has(type)) return false
    const state = bookSid(sid)
    if (ticker !== null) state.markets.add(ticker)
    const resyncing = state.awaiting.size > 0
    if (gap && !(type === "orderbook_snapshot" && resyncing)) {
      // Missed frames may have touched any market of this sid (a snapshot that answers our
      // own request re-baselines the sequence instead).
      if (resyncSid(sid, state, replies)) resyncs += 1
    }
    if (ticker === null) return false
    if (type === "orderbook_snapshot") {
      state.awaiting.delete(ticker)
      state.trusted.add(ticker)
      return false
    }
    if (state.trusted.has(ticker)) return false
    if (requestSnapshots(sid, state, [ticker], replies)) resyncs += 1
    return true
  }

  return {
    opened: () => {
      nextId = 1
      const book: Record<string, unknown> = { channels: ["orderbook_delta"] }
      if (options.markets !== undefined) book["market_tickers"] = [...options.markets]
      return [command("subscribe", book), command("subscribe", { channels: [...KALSHI_DATA_CHANNELS] })]
    },
    closed: () => {
      tracker.reset()
      books.clear()
    },
    frame: (text, receivedAt): SessionOutput => {
      resyncs = 0
      gaps = 0
      replies.length = 0
      let frame: unknown
      try {
        frame = JSON.parse(text)
      } catch {
        return { ...NOTHING, ...decode(text, receivedAt) } // the decoder names the rejection
      }
      if (!isRecord(frame)) return { ...NOTHING, ...decode(frame, receivedAt) }
      const type = frame["type"]

      if (type === "error" && isRecord(frame["msg"]) && frame["msg"]["code"] === 25) {
        gaps += 1
        for (const [sid, state] of books) if (resyncSid(sid, state, replies)) resyncs += 1
      }

      const at = CONTROL_TYPES.has(type) ? null : sequenceOf(frame)
      const dropBookEvents = at !== null && sequenced(type, at.sid, at.seq, BOOK_TYPES.has(type) ? tickerOf(frame) : null)
      const decoded = decode(frame, receivedAt)
      const events: ReadonlyArray<FeedEvent> = dropBookEvents
        ? decoded.events.filter((e) => e._tag !== "BookDelta")
        : decoded.events
      return { events, rejected: decoded.rejected, replies: takeReplies(), resyncs, gaps }
    },
  }
}

export interface KalshiFeedOptions {
  readonly venue: KalshiVenueId
  /** ws URL of the venue's socket. */
  readonly url: string
  readonly sink: FeedSink
  readonly edge: Edge
  readonly tap?: (venue: Venue, connection: string) => Tap | undefined
  readonly markets?: ReadonlyArray<string>
  readonly heartbeat?: Heartbeat
}

/** One connection per Kalshi-family venue (no per-connection market cap applies here). */
export const startKalshiFeed = (options: KalshiFeedOptions): ReadonlyArray<FeedSocket> => {
  const connection = "market#0"
  const tap = options.tap?.(options.venue, connection)
  const session = kalshiSession({
    venue: options.venue,
    ...(options.markets === undefined ? {} : { markets: options.markets }),
  })
  const socket = new FeedSocket({
    venue: options.venue,
    stream: "market",
    connection,
    url: options.url,
    heartbeat: options.heartbeat ?? KALSHI_HEARTBEAT,
    session,
    sink: options.sink,
    edge: options.edge,
    ...(tap === undefined ? {} : { tap }),
  })
  socket.start()
  return [socket]
}
