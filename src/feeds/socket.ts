// One venue connection, whatever the venue: dial, subscribe, read text frames through the venue's
// session (decoder + sequence/resync logic), deliver FeedEvents to the sink, keep the heartbeat, and
// reconnect with exponential backoff and full jitter. It must not know any wire format: what to send
// on open, how a frame becomes events and what to send back on a gap all come from the `StreamSession`.
// Time, chance, timers and the transport are injected (`Edge`); ./edge.ts holds the live ones.
import type { Venue } from "../domain/enums.js"
import type { FeedEvent, FrameRejected } from "../domain/feed-events.js"
import { ConnectionCounters, type RejectionLog, type StreamName } from "./counters.js"

/** Where decoded events go (later the market actors). Called once per frame that yields events. */
export type FeedSink = (events: ReadonlyArray<FeedEvent>) => void

/** What one frame produced: events, rejections, frames to send back (a resync request) and how many
 * resyncs that started. */
export interface SessionOutput {
  readonly events: ReadonlyArray<FeedEvent>
  readonly rejected: ReadonlyArray<FrameRejected>
  readonly replies: ReadonlyArray<string>
  readonly resyncs: number
  /** Sequence gaps seen in this frame (Kalshi family), whether or not they cost a resync. */
  readonly gaps?: number
  /** Set when the conversation cannot go on (a refused subscribe): the socket reconnects, this the reason. */
  readonly reconnect?: string
}

/** A session output with nothing in it. */
export const NOTHING: SessionOutput = Object.freeze({ events: [], rejected: [], replies: [], resyncs: 0 })

/**
 * One stream's conversation with a venue, independent of any socket, so the replayer runs the very
 * same logic. `opened` is called after each (re)connect and returns the subscribe frames; `closed`
 * after each disconnect (sequence state is dropped: the next connection starts from snapshots).
 */
export interface StreamSession {
  readonly opened: () => ReadonlyArray<string>
  readonly frame: (text: string, receivedAt: number) => SessionOutput
  readonly closed: () => void
}

export interface Heartbeat {
  /** Text the client sends to keep the connection alive (Polymarket `PING`), if any. */
  readonly pingText?: string
  readonly pingEveryMs?: number
  /** No frame, ping or pong for this long ⇒ the connection is dead: drop it and reconnect. */
  readonly silenceMs: number
}

export interface Backoff {
  readonly baseMs: number
  readonly capMs: number
}
export const DEFAULT_BACKOFF: Backoff = { baseMs: 250, capMs: 30_000 }

/** Exponential backoff with full jitter: uniform in [0, min(cap, base·2^attempt)). */
export const backoffDelay = (attempt: number, random: () => number, backoff: Backoff = DEFAULT_BACKOFF): number => {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.min(attempt, 52))
  const r = random()
  return Math.floor(ceiling * (r >= 0 && r < 1 ? r : 0))
}

export interface Timers {
  readonly setTimeout: (f: () => void, ms: number) => unknown
  readonly clearTimeout: (handle: unknown) => void
}

/** The transport as the socket sees it; `wsDial` makes one over `ws`, tests make fakes. */
export interface Link {
  readonly send: (text: string) => void
  readonly terminate: () => void
}
export interface LinkEvents {
  readonly open: () => void
  readonly message: (text: string, bytes: number) => void
  /** A transport-level ping or pong: proof of life that carries no frame. */
  readonly alive: () => void
  readonly closed: (reason: string) => void
}
export type Dial = (url: string, on: LinkEvents) => Link

/** What the recorder sees: raw frames in and out, and where connections start and end. */
export type TapEntry =
  | { readonly kind: "frame"; readonly t: number; readonly text: string }
  | { readonly kind: "sent"; readonly t: number; readonly text: string }
  | { readonly kind: "connected"; readonly t: number; readonly url: string }
  | { readonly kind: "disconnected"; readonly t: number; readonly reason: string }
export type Tap = (entry: TapEntry) => void

export type Log = (message: string) => void

export interface Edge {
  readonly now: () => number
  readonly random: () => number
  readonly timers: Timers
  readonly dial: Dial
  readonly log: Log
}

export interface FeedSocketOptions {
  readonly venue: Venue
  readonly stream: StreamName
  readonly connection: string
  readonly url: string
  readonly heartbeat: Heartbeat
  readonly session: StreamSession
  readonly sink: FeedSink
  readonly edge: Edge
  readonly backoff?: Backoff
  readonly tap?: Tap
  /** The first connection attempt waits this long (0 = at once). */
  readonly startDelayMs?: number
}

export class FeedSocket {
  readonly counters: ConnectionCounters
  private link: Link | null = null
  /** Bumped on every dial and drop, so late events of a dropped link are ignored. */
  private generation = 0
  private attempt = 0
  private stopped = true
  private isOpen = false
  private lastActivity = 0
  private retryTimer: unknown = null
  private pingTimer: unknown = null
  private watchdog: unknown = null

  constructor(private readonly options: FeedSocketOptions) {
    const log = options.edge.log
    const logRejection: RejectionLog = (venue, connection, reason) =>
      log(`feed ${venue}/${connection}: rejected frame (${reason}); further frames with this reason are only counted`)
    this.counters = new ConnectionCounters(options.venue, options.stream, options.connection, logRejection)
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    const delay = this.options.startDelayMs ?? 0
    if (delay > 0) {
      this.counters.state = "backoff"
      this.retryTimer = this.options.edge.timers.setTimeout(() => this.dial(), delay)
    } else this.dial()
  }

  stop(): void {
    this.stopped = true
    this.clearTimers()
    this.drop("stopped")
    this.counters.state = "stopped"
  }

  /** Cuts the current connection as if the network did; the socket reconnects as usual. */
  cut(reason = "cut"): void {
    this.drop(reason)
  }

  /** Sends a frame on the open connection (false when none is open). */
  send(text: string): boolean {
    if (this.link === null || !this.isOpen) return false
    this.link.send(text)
    this.options.tap?.({ kind: "sent", t: this.options.edge.now(), text })
    return true
  }

  get open(): boolean {
    return this.isOpen
  }

  private dial(): void {
    this.retryTimer = null
    if (this.stopped) return
    const generation = ++this.generation
    const mine = (f: () => void) => () => {
      if (generation === this.generation) f()
    }
    this.counters.state = "connecting"
    this.isOpen = false
    this.touch()
    this.armWatchdog(generation)
    const { edge, url } = this.options
    const events: LinkEvents = {
      open: mine(() => this.opened()),
      message: (text, bytes) => {
        if (generation === this.generation) this.message(text, bytes)
      },
      alive: mine(() => this.touch()),
      closed: (reason) => {
        if (generation === this.generation) this.drop(reason)
      },
    }
    try {
      this.link = edge.dial(url, events)
    } catch (cause) {
      this.link = { send: () => {}, terminate: () => {} }
      this.drop(`dial failed: ${String(cause)}`)
    }
  }

  private opened(): void {
    const { edge, session, tap, heartbeat } = this.options
    const t = edge.now()
    this.isOpen = true
    this.counters.opened(t)
    this.touch()
    tap?.({ kind: "connected", t, url: this.options.url })
    for (const text of session.opened()) this.send(text)
    if (heartbeat.pingText !== undefined && heartbeat.pingEveryMs !== undefined) this.schedulePing(this.generation)
  }

  private message(text: string, bytes: number): void {
    const { edge, session, sink, tap } = this.options
    const receivedAt = edge.now()
    this.touch()
    this.counters.frame(bytes, receivedAt)
    tap?.({ kind: "frame", t: receivedAt, text })
    const out = session.frame(text, receivedAt)
    // A connection that delivers data is healthy again: the next failure starts the backoff over (a
    // server that answers with an error frame and closes keeps backing off).
    if (out.events.length > 0) this.attempt = 0
    for (const r of out.rejected) this.counters.reject(r.reason)
    this.counters.resyncs += out.resyncs
    this.counters.gaps += out.gaps ?? 0
    for (const reply of out.replies) this.send(reply)
    if (out.reconnect !== undefined) edge.log(`feed ${this.options.venue}/${this.options.connection}: reconnecting (${out.reconnect})`)
    if (out.events.length > 0) {
      this.counters.events += out.events.length
      try {
        sink(out.events)
      } catch (cause) {
        this.counters.reject("sink threw")
        edge.log(`feed ${this.options.venue}/${this.options.connection}: sink threw: ${String(cause)}`)
      }
    }
    if (out.reconnect !== undefined) this.drop(out.reconnect)
  }

  /** Ends the current link (if any) and, unless stopped, schedules the next dial. */
  private drop(reason: string): void {
    const { edge, session, tap } = this.options
    const hadLink = this.link !== null
    const wasOpen = this.isOpen
    this.generation += 1
    this.clearHeartbeat()
    const link = this.link
    this.link = null
    this.isOpen = false
    if (link !== null) {
      try {
        link.terminate()
      } catch {
        // Already gone: nothing to end.
      }
    }
    if (wasOpen) {
      const t = edge.now()
      this.counters.closed(t, reason)
      tap?.({ kind: "disconnected", t, reason })
      session.closed()
    }
    if (this.stopped || !hadLink) return
    const delay = backoffDelay(this.attempt, edge.random, this.options.backoff)
    this.attempt += 1
    this.counters.state = "backoff"
    this.retryTimer = edge.timers.setTimeout(() => this.dial(), delay)
  }

  private touch(): void {
    this.lastActivity = this.options.edge.now()
  }

  private armWatchdog(generation: number): void {
    const { edge, heartbeat } = this.options
    const check = () => {
      this.watchdog = null
      if (generation !== this.generation) return
      const quiet = edge.now() - this.lastActivity
      if (quiet >= heartbeat.silenceMs) this.drop(this.isOpen ? "heartbeat timeout" : "connect timeout")
      else this.watchdog = edge.timers.setTimeout(check, heartbeat.silenceMs - quiet)
    }
    this.watchdog = edge.timers.setTimeout(check, heartbeat.silenceMs)
  }

  private schedulePing(generation: number): void {
    const { edge, heartbeat } = this.options
    if (heartbeat.pingText === undefined || heartbeat.pingEveryMs === undefined) return
    const text = heartbeat.pingText
    this.pingTimer = edge.timers.setTimeout(() => {
      this.pingTimer = null
      if (generation !== this.generation || !this.isOpen) return
      this.send(text)
      this.schedulePing(generation)
    }, heartbeat.pingEveryMs)
  }

  private clearHeartbeat(): void {
    const { timers } = this.options.edge
    if (this.pingTimer !== null) timers.clearTimeout(this.pingTimer)
    if (this.watchdog !== null) timers.clearTimeout(this.watchdog)
    this.pingTimer = null
    this.watchdog = null
  }

  private clearTimers(): void {
    this.clearHeartbeat()
    if (this.retryTimer !== null) this.options.edge.timers.clearTimeout(this.retryTimer)
    this.retryTimer = null
  }
}
