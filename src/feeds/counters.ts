// Per-connection feed counters (frames, bytes, reconnects, resyncs, rejected frames by reason, last
// frame time) and the registry /healthz reads them from. Counting only: no sockets, no clocks — the
// socket passes the times in. A rejection reason is logged once per connection, the first time it is seen.
import type { Venue } from "../domain/enums.js"

export type StreamName = "market" | "trades"
export type ConnectionState = "idle" | "connecting" | "open" | "backoff" | "stopped"

/** A plain, immutable picture of one connection's counters. */
export interface ConnectionHealth {
  readonly venue: Venue
  readonly stream: StreamName
  /** Distinguishes several connections of one stream (Polymarket caps assets per connection). */
  readonly connection: string
  readonly state: ConnectionState
  readonly connects: number
  readonly reconnects: number
  readonly frames: number
  readonly bytes: number
  readonly events: number
  readonly resyncs: number
  readonly gaps: number
  readonly rejected: Readonly<Record<string, number>>
  readonly rejectedTotal: number
  readonly lastFrameAt: number | null
  readonly connectedAt: number | null
  readonly lastDisconnect: { readonly at: number; readonly reason: string } | null
}

/** All connections of one venue, summed, plus each connection. */
export interface VenueHealth {
  readonly venue: Venue
  /** True when every connection of the venue is open. */
  readonly connected: boolean
  readonly frames: number
  readonly bytes: number
  readonly events: number
  readonly reconnects: number
  readonly resyncs: number
  readonly gaps: number
  readonly rejected: Readonly<Record<string, number>>
  readonly lastFrameAt: number | null
  readonly connections: ReadonlyArray<ConnectionHealth>
}

export type RejectionLog = (venue: Venue, connection: string, reason: string) => void

/** Mutable counters of one connection; the socket is the only writer. */
export class ConnectionCounters {
  state: ConnectionState = "idle"
  connects = 0
  frames = 0
  bytes = 0
  events = 0
  resyncs = 0
  gaps = 0
  lastFrameAt: number | null = null
  connectedAt: number | null = null
  lastDisconnect: { at: number; reason: string } | null = null
  private readonly rejected = new Map<string, number>()

  constructor(
    readonly venue: Venue,
    readonly stream: StreamName,
    readonly connection: string,
    private readonly logRejection: RejectionLog = () => {},
  ) {}

  get reconnects(): number {
    return Math.max(0, this.connects - 1)
  }

  frame(bytes: number, at: number): void {
    this.frames += 1
    this.bytes += bytes
    this.lastFrameAt = at
  }

  /** Counts one rejected frame; logs the reason only the first time it is seen. */
  reject(reason: string): void {
    const seen = this.rejected.get(reason) ?? 0
    if (seen === 0) this.logRejection(this.venue, this.connection, reason)
    this.rejected.set(reason, seen + 1)
  }

  /** A connection opened; every reconnect re-subscribes and starts from snapshots, so it is a resync. */
  opened(at: number): void {
    if (this.connects > 0) this.resyncs += 1
    this.connects += 1
    this.connectedAt = at
    this.state = "open"
  }

  closed(at: number, reason: string): void {
    this.connectedAt = null
    this.lastDisconnect = { at, reason }
  }

  snapshot(): ConnectionHealth {
    const rejected: Record<string, number> = {}
    let rejectedTotal = 0
    for (const [reason, n] of [...this.rejected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      rejected[reason] = n
      rejectedTotal += n
    }
    return {
      venue: this.venue,
      stream: this.stream,
      connection: this.connection,
      state: this.state,
      connects: this.connects,
      reconnects: this.reconnects,
      frames: this.frames,
      bytes: this.bytes,
      events: this.events,
      resyncs: this.resyncs,
      gaps: this.gaps,
      rejected,
      rejectedTotal,
      lastFrameAt: this.lastFrameAt,
      connectedAt: this.connectedAt,
      lastDisconnect: this.lastDisconnect === null ? null : { ...this.lastDisconnect },
    }
  }
}

/** Sums connection pictures per venue, in a stable order (venue, then connection name). */
export const venueHealth = (connections: ReadonlyArray<ConnectionHealth>): ReadonlyArray<VenueHealth> => {
  const byVenue = new Map<Venue, Array<ConnectionHealth>>()
  for (const c of connections) byVenue.set(c.venue, [...(byVenue.get(c.venue) ?? []), c])
  return [...byVenue.keys()].sort().map((venue) => {
    const list = [...(byVenue.get(venue) ?? [])].sort((a, b) => (a.connection < b.connection ? -1 : 1))
    const rejected: Record<string, number> = {}
    for (const c of list) for (const [reason, n] of Object.entries(c.rejected)) rejected[reason] = (rejected[reason] ?? 0) + n
    const lastFrames = list.map((c) => c.lastFrameAt).filter((t): t is number => t !== null)
    return {
      venue,
      connected: list.length > 0 && list.every((c) => c.state === "open"),
      frames: sum(list, (c) => c.frames),
      bytes: sum(list, (c) => c.bytes),
      events: sum(list, (c) => c.events),
      reconnects: sum(list, (c) => c.reconnects),
      resyncs: sum(list, (c) => c.resyncs),
      gaps: sum(list, (c) => c.gaps),
      rejected,
      lastFrameAt: lastFrames.length === 0 ? null : Math.max(...lastFrames),
      connections: list,
    }
  })
}

const sum = <A>(list: ReadonlyArray<A>, f: (a: A) => number): number => list.reduce((n, a) => n + f(a), 0)
