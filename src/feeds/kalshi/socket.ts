// Kalshi-family connection (venue_a, venue_d): subscribe commands, per-sid sequence checking and
// book resync, over the generic FeedSocket. It owns the conversation, not the wire shapes of data
// (../kalshi/decode.ts) nor the socket mechanics (../socket.ts).
//
// Resync (venues.md §3.3): `seq` counts per subscription (`sid`). On a gap in a book subscription,
// every book of that sid is untrusted: its deltas are dropped and one `update_subscription`
// `get_snapshot` asks for fresh snapshots of the sid's markets; each market's snapshot makes that
// market's deltas flow again. A delta for a market never snapshotted asks for that market's
// snapshot the same way. When a `get_snapshot` is refused (an error answering its id) or its
// snapshots have not come within SNAPSHOT_WAIT_MS of feed time, the book subscription is renewed
// instead (unsubscribe + subscribe: the new sid starts with a snapshot of every market; frames of the
// old sid are dropped). Error 25 (subscription buffer overflow) counts as a gap and renews the
// subscription it names, or every one when it names none. A refused subscribe leaves the connection
// without data: the session asks the socket to reconnect. A gap on a trade/ticker sid cannot be
// repaired (no history on the socket): it is counted only.
// After a reconnect everything restarts: new sids, fresh snapshots from the new subscription.
// The server keeps the connection alive with WS pings (answered by `ws`); 25 s of silence = dead.
import type { Venue } from "../../domain/enums.js"
import type { FeedEvent } from "../../domain/feed-events.js"
import type { FeedSink, Edge, Heartbeat, SessionOutput, StreamSession, Tap } from "../socket.js"
import { FeedSocket, NOTHING } from "../socket.js"
import { clear } from "../../arrays.js"
import { EMPTY, isRecord } from "../wire.js"
import { decodeKalshiDelta, type KalshiDecoder } from "./decode.js"
import { scanDelta } from "./scan.js"
import { SequenceTracker, sequenceOf } from "./sequence.js"
import { decodeVenueA } from "../venue_a/decode.js"
import { decodeVenueD } from "../venue_d/decode.js"

export type KalshiVenueId = Extract<Venue, "venue_a" | "venue_d">

export const KALSHI_HEARTBEAT: Heartbeat = { silenceMs: 25_000 }

export const KALSHI_DECODERS: Record<KalshiVenueId, KalshiDecoder> = { venue_a: decodeVenueA, venue_d: decodeVenueD }

/** Channels subscribed by default: the book, trades, ticker and lifecycle. */
export const KALSHI_DATA_CHANNELS = ["trade", "ticker", "market_lifecycle_v2"] as const

const BOOK_CHANNEL = "orderbook_delta"

/** How long (feed time) requested snapshots may take before the book subscription is renewed instead. */
export const SNAPSHOT_WAIT_MS = 10_000

export interface KalshiSessionOptions {
  readonly venue: KalshiVenueId
  /** Book markets to subscribe; omitted = every market (the simulator's reading of "no tickers"). */
  readonly markets?: ReadonlyArray<string>
}

const NO_REPLIES: ReadonlyArray<string> = Object.freeze([])

const DELTA_TYPE = "orderbook_delta"
const BOOK_TYPES: ReadonlySet<unknown> = new Set(["orderbook_snapshot", DELTA_TYPE])
const notBook = (event: FeedEvent): boolean => event._tag !== "BookDelta" && event._tag !== "BookSnapshot"
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
  /** Feed time of the oldest get_snapshot still unanswered (meaningful while `awaiting` is not empty). */
  askedAt: number
}

/** Commands remembered while their answer is awaited. */
const MAX_UNANSWERED = 1_024

/** A command sent whose answer matters: a refused one changes what the session does next. */
type Sent = { readonly kind: "snapshot"; readonly sid: number } | { readonly kind: "subscribe" }

const tickerOf = (frame: Record<string, unknown>): string | null => {
  const msg = frame["msg"]
  if (!isRecord(msg)) return null
  const ticker = msg["market_ticker"]
  return typeof ticker === "string" && ticker.length > 0 ? ticker : null
}

const integerOrNull = (value: unknown): number | null => (typeof value === "number" && Number.isInteger(value) ? value : null)

export const kalshiSession = (options: KalshiSessionOptions): StreamSession => {
  const venue = options.venue
  const decode = KALSHI_DECODERS[venue]
  const tracker = new SequenceTracker()
  const books = new Map<number, BookSid>()
  /** sid → channel, from the `subscribed` answers. */
  const channels = new Map<number, string>()
  /** Book sids this session unsubscribed: their late frames are dropped. */
  const retired = new Set<number>()
  const sent = new Map<number, Sent>()
  let nextId = 1

  const bookSid = (sid: number): BookSid => {
    let state = books.get(sid)
    if (state === undefined) {
      state = { markets: new Set(), trusted: new Set(), awaiting: new Set(), askedAt: 0 }
      books.set(sid, state)
    }
    return state
  }

  const command = (cmd: string, params: Record<string, unknown>, what?: Sent): string => {
    const id = nextId++
    if (what !== undefined) {
      sent.set(id, what)
      // A venue that never answers some commands must not grow this for a connection's life: oldest out.
      if (sent.size > MAX_UNANSWERED) sent.delete(sent.keys().next().value as number)
    }
    return JSON.stringify({ id, cmd, params })
  }

  const bookSubscribe = (): string => {
    const book: Record<string, unknown> = { channels: [BOOK_CHANNEL] }
    if (options.markets !== undefined) book["market_tickers"] = [...options.markets]
    return command("subscribe", book, { kind: "subscribe" })
  }

  /** This frame's counts and replies (reset per frame; replies copied out only when there are some). */
  let resyncs = 0
  let gaps = 0
  let reconnect: string | null = null
  const replies: Array<string> = []
  const takeReplies = (): ReadonlyArray<string> => (replies.length === 0 ? NO_REPLIES : replies.splice(0))

  /** Asks for snapshots of `markets` on `sid` (those not already asked for). */
  const requestSnapshots = (sid: number, state: BookSid, markets: Iterable<string>, at: number): boolean => {
    const fresh = [...markets].filter((m) => !state.awaiting.has(m)).sort()
    if (fresh.length === 0) return false
    if (state.awaiting.size === 0) state.askedAt = at
    for (const m of fresh) state.awaiting.add(m)
    replies.push(command("update_subscription", { sids: [sid], market_tickers: fresh, action: "get_snapshot" }, { kind: "snapshot", sid }))
    return true
  }

  /** A gap on a book sid: untrust all its books and ask for all of them again. */
  const resyncSid = (sid: number, state: BookSid, at: number): boolean => {
    state.trusted.clear()
    state.awaiting.clear()
    return requestSnapshots(sid, state, state.markets, at)
  }

  /** Renews a book subscription: its frames are dropped from now on, a new sid brings fresh snapshots. */
  const renewBook = (sid: number): void => {
    if (retired.has(sid)) return
    retired.add(sid)
    books.delete(sid)
    tracker.forget(sid)
    for (const [id, what] of sent) if (what.kind === "snapshot" && what.sid === sid) sent.delete(id)
    replies.push(command("unsubscribe", { sids: [sid] }), bookSubscribe())
    resyncs += 1
  }

  /** Renews a data subscription (trades, ticker, lifecycle): what it dropped is lost, what follows is not. */
  const renewData = (sid: number, channel: string): void => {
    channels.delete(sid)
    tracker.forget(sid)
    replies.push(command("unsubscribe", { sids: [sid] }), command("subscribe", { channels: [channel] }, { kind: "subscribe" }))
    resyncs += 1
  }

  /** Error 25: the subscription it names (or every one) dropped messages. */
  const overflow = (frame: Record<string, unknown>, msg: Record<string, unknown>): void => {
    gaps += 1
    const named = integerOrNull(frame["sid"]) ?? integerOrNull(msg["sid"])
    const sids = named !== null ? [named] : [...new Set([...books.keys(), ...channels.keys()])].sort((a, b) => a - b)
    for (const sid of sids) {
      const channel = channels.get(sid)
      if (books.has(sid) || channel === BOOK_CHANNEL) renewBook(sid)
      else if (channel !== undefined) renewData(sid, channel)
    }
  }

  /** An answer to one of our commands. */
  const answered = (type: unknown, frame: Record<string, unknown>): void => {
    const id = integerOrNull(frame["id"])
    const what = id === null ? undefined : sent.get(id)
    if (type === "subscribed" && isRecord(frame["msg"])) {
      const sid = integerOrNull(frame["msg"]["sid"])
      const channel = frame["msg"]["channel"]
      if (sid !== null && typeof channel === "string") channels.set(sid, channel)
    }
    if (what === undefined || id === null) return
    if (type === "ok" || type === "subscribed") sent.delete(id)
    if (type !== "error") return
    sent.delete(id)
    if (what.kind === "snapshot") renewBook(what.sid)
    else reconnect = "subscribe refused"
  }

  /**
   * Checks a sequenced frame's `seq`; for a book frame also its sid's trust (a gap untrusts the sid,
   * a snapshot trusts its market, a delta of an untrusted market asks for its snapshot). True when
   * the frame's deltas must be dropped.
   */
  const sequenced = (type: unknown, sid: number, seq: number, ticker: string | null, at: number): boolean => {
    if (retired.has(sid)) return BOOK_TYPES.has(type)
    const gap = tracker.check(sid, seq)._tag === "gap"
    if (gap) gaps += 1
    if (!BOOK_TYPES.has(type)) return false
    const state = bookSid(sid)
    if (ticker !== null) state.markets.add(ticker)
    if (type === "orderbook_delta" && state.awaiting.size > 0 && at - state.askedAt >= SNAPSHOT_WAIT_MS) {
      renewBook(sid) // the snapshots asked for are not coming
      return true
    }
    // A snapshot answering our own request re-baselines the sequence (venues.md §3.3); any other
    // frame after a gap means missed frames may have touched any market of this sid.
    const answersRequest = type === "orderbook_snapshot" && ticker !== null && state.awaiting.has(ticker)
    if (gap && !answersRequest) {
      if (resyncSid(sid, state, at)) resyncs += 1
    }
    if (ticker === null) return false
    if (type === "orderbook_snapshot") {
      state.awaiting.delete(ticker)
      state.trusted.add(ticker)
      return false
    }
    if (state.trusted.has(ticker)) return false
    if (requestSnapshots(sid, state, [ticker], at)) resyncs += 1
    return true
  }

  const output = (events: ReadonlyArray<FeedEvent>, rejected: SessionOutput["rejected"]): SessionOutput => {
    const out: SessionOutput = { events, rejected, replies: takeReplies(), resyncs, gaps }
    return reconnect === null ? out : { ...out, reconnect }
  }

  return {
    opened: () => {
      nextId = 1
      return [bookSubscribe(), command("subscribe", { channels: [...KALSHI_DATA_CHANNELS] }, { kind: "subscribe" })]
    },
    closed: () => {
      tracker.reset()
      books.clear()
      channels.clear()
      retired.clear()
      sent.clear()
    },
    frame: (text, receivedAt): SessionOutput => {
      resyncs = 0
      gaps = 0
      reconnect = null
      clear(replies)
      // Most frames: the common delta shape, read without JSON.parse (what follows is the general path
      // below for a delta: the sequence check, then the decoder's checks).
      const scanned = scanDelta(text)
      if (scanned !== null) {
        const ticker = scanned.market_ticker.length > 0 ? scanned.market_ticker : null
        const drop = sequenced(DELTA_TYPE, scanned.sid, scanned.seq, ticker, receivedAt)
        const decoded = decodeKalshiDelta(venue, scanned, receivedAt)
        if (decoded._tag === "FrameRejected") return output(EMPTY.events, [decoded])
        return output(drop ? EMPTY.events : [decoded], EMPTY.rejected)
      }
      let frame: unknown
      try {
        frame = JSON.parse(text)
      } catch {
        return { ...NOTHING, ...decode(text, receivedAt) } // the decoder names the rejection
      }
      if (!isRecord(frame)) return { ...NOTHING, ...decode(frame, receivedAt) }
      const type = frame["type"]

      if (CONTROL_TYPES.has(type)) {
        answered(type, frame)
        if (type === "error" && isRecord(frame["msg"]) && frame["msg"]["code"] === 25) overflow(frame, frame["msg"])
      }

      const at = CONTROL_TYPES.has(type) ? null : sequenceOf(frame)
      const dropBookEvents = at !== null &&
        sequenced(type, at.sid, at.seq, BOOK_TYPES.has(type) ? tickerOf(frame) : null, receivedAt)
      const decoded = decode(frame, receivedAt)
      const events: ReadonlyArray<FeedEvent> = dropBookEvents ? decoded.events.filter(notBook) : decoded.events
      return output(events, decoded.rejected)
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
