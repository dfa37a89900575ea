// The replayer: reads a recording (./recording.ts) and runs every frame through the same sessions
// the live client uses — decoders, Kalshi sequence checks and resync filtering — with each frame's
// recorded receive time as `receivedAt`. Connection markers replay the cuts (sessions reset exactly
// where the live ones did). What the live client sent is ignored: the server's answers are in the
// recording. Two ways to run it:
//   full speed, synchronous:  for (const e of replay(file)) { clock.set(e.receivedAt); system.deliver(e) }
//   real time (or faster):    await replayTimed(lines, sink, { speed: 10 })
// It never reads the wall clock itself; real-time pacing sleeps through an injected `sleep`.
import { readFileSync } from "node:fs"
import type { Venue } from "../domain/enums.js"
import type { FeedEvent, FrameRejected } from "../domain/feed-events.js"
import { ConnectionCounters, venueHealth, type ConnectionHealth, type StreamName, type VenueHealth } from "./counters.js"
import { kalshiSession } from "./kalshi/socket.js"
import { parseRecording, type RecordedLine } from "./recording.js"
import type { FeedSink, StreamSession } from "./socket.js"
import { venueBReplaySession } from "./venue_b/socket.js"
import { venueBUsSession } from "./venue_b_us/socket.js"

/** The session a recorded connection replays through: the live one, minus its subscriptions. */
export const replaySession = (venue: Venue, stream: StreamName, connection: string): StreamSession => {
  switch (venue) {
    case "venue_b": return venueBReplaySession(stream, connection)
    case "venue_b_us": return venueBUsSession({ slugs: () => [] })
    case "venue_a":
    case "venue_d": return kalshiSession({ venue })
  }
}

export const readRecording = (path: string): Array<RecordedLine> => parseRecording(readFileSync(path, "utf8"))

/** One replayed frame: when it was received, on which connection, and what it decoded to. */
export interface ReplayedFrame {
  readonly t: number
  readonly venue: Venue
  readonly stream: StreamName
  readonly conn: string
  readonly events: ReadonlyArray<FeedEvent>
}

interface ReplayConnection {
  readonly session: StreamSession
  readonly counters: ConnectionCounters
  open: boolean
}

/** Runs recorded lines through fresh sessions, keeping the same counters a live socket keeps. */
export class Replayer {
  /** In first-seen order (health lists connections in that order). */
  private readonly sessions: Array<ReplayConnection> = []
  /** venue → stream → conn: no key string built per line (hot path: every frame). */
  private readonly byWhere = new Map<string, Map<string, Map<string, ReplayConnection>>>()

  constructor(private readonly log: (message: string) => void = () => {}) {}

  private connection(line: RecordedLine): ReplayConnection {
    let byStream = this.byWhere.get(line.venue)
    if (byStream === undefined) this.byWhere.set(line.venue, (byStream = new Map()))
    let byConn = byStream.get(line.stream)
    if (byConn === undefined) byStream.set(line.stream, (byConn = new Map()))
    let c = byConn.get(line.conn)
    if (c === undefined) {
      const counters = new ConnectionCounters(line.venue, line.stream, line.conn, (venue, connection, reason) =>
        this.log(`replay ${venue}/${connection}: rejected frame (${reason})`))
      c = { session: replaySession(line.venue, line.stream, line.conn), counters, open: false }
      byConn.set(line.conn, c)
      this.sessions.push(c)
    }
    return c
  }

  /** Feeds one line; returns the frame's events (none for markers and sent frames). */
  step(line: RecordedLine): ReplayedFrame | null {
    const c = this.connection(line)
    if ("event" in line) {
      if (line.event === "connected") {
        if (c.open) c.session.closed() // a cut the recorder missed: same reset as a disconnect
        c.open = true
        c.counters.opened(line.t)
        c.session.opened()
      } else if (c.open) {
        c.open = false
        c.counters.closed(line.t, line.reason)
        c.session.closed()
      }
      return null
    }
    if ("sent" in line) return null
    c.counters.frame(line.bytes ?? Buffer.byteLength(line.frame), line.t)
    const out = c.session.frame(line.frame, line.t)
    for (let i = 0; i < out.rejected.length; i++) c.counters.reject((out.rejected[i] as FrameRejected).reason)
    c.counters.resyncs += out.resyncs
    c.counters.gaps += out.gaps ?? 0
    c.counters.events += out.events.length
    return { t: line.t, venue: line.venue, stream: line.stream, conn: line.conn, events: out.events }
  }

  connections(): ReadonlyArray<ConnectionHealth> {
    return this.sessions.map((c) => c.counters.snapshot())
  }

  health(): ReadonlyArray<VenueHealth> {
    return venueHealth(this.connections())
  }
}

/** Every frame of a recording with its events, in recorded order. */
export function* replayFrames(lines: Iterable<RecordedLine>, replayer = new Replayer()): Generator<ReplayedFrame> {
  for (const line of lines) {
    const frame = replayer.step(line)
    if (frame !== null) yield frame
  }
}

/** Every FeedEvent of a recording, at full speed, in receive order. */
export function* replayLines(lines: Iterable<RecordedLine>, replayer = new Replayer()): Generator<FeedEvent> {
  for (const frame of replayFrames(lines, replayer)) yield* frame.events
}

/** Every FeedEvent of a recording file, at full speed: `for (const e of replay(file)) …`. */
export const replay = (path: string, replayer = new Replayer()): Generator<FeedEvent> =>
  replayLines(readRecording(path), replayer)

export interface TimedOptions {
  /** 1 = real time, 10 = ten times faster; Infinity = no waiting. */
  readonly speed?: number
  /** Waits `ms` of real time (the edge's timer; tests pass a fake). */
  readonly sleep?: (ms: number) => Promise<void>
  readonly replayer?: Replayer
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Replays into `sink` keeping the recorded gaps between receive times, divided by `speed`; the
 * sink gets one call per frame with events, as from a live socket.
 */
export const replayTimed = async (lines: Iterable<RecordedLine>, sink: FeedSink, options: TimedOptions = {}): Promise<Replayer> => {
  const speed = options.speed ?? 1
  const sleep = options.sleep ?? realSleep
  const replayer = options.replayer ?? new Replayer()
  let previous: number | null = null
  for (const frame of replayFrames(lines, replayer)) {
    if (previous !== null && Number.isFinite(speed) && speed > 0) {
      const wait = (frame.t - previous) / speed
      if (wait > 0) await sleep(wait)
    }
    previous = frame.t
    if (frame.events.length > 0) sink(frame.events)
  }
  return replayer
}
