// Runs the real feed client against the real simulator on simulated time: the simulator steps by
// hand (speed 0) and the client's clock and timers (heartbeats, backoff, watchdog) follow the
// model's clock, so a run is a function of the seed and the steps. Frames travel over real
// loopback sockets; after each step the harness waits until every connection is quiet. Used by the
// feed tests, the resync property and the fixture recorder (./record-sim-fixtures.ts).
import type { Venue } from "../../src/domain/enums.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { startFeeds, type FeedClient, type FeedMarkets } from "../../src/feeds/client.js"
import { recordingTap } from "../../src/feeds/record.js"
import { wsDial } from "../../src/feeds/edge.js"
import type { Dial } from "../../src/feeds/socket.js"
import { Book } from "../../src/actors/markets/book.js"
import { levelsOf } from "../../src/sim/book.js"
import { startSim, type Sim } from "../../src/sim/server.js"
import type { SimContract } from "../../src/sim/types.js"
import { ManualTime } from "../feeds/harness.js"

/** A fixed simulated start (2026-01-15T12:00:00Z) so recordings do not depend on the day. */
export const SIM_START = Date.UTC(2026, 0, 15, 12, 0, 0)

export interface SimFeedOptions {
  readonly seed: number
  readonly venues: ReadonlyArray<Venue>
  readonly historyDays?: number
  /** Markets to subscribe (chosen from the started simulator); omitted = every market. */
  readonly markets?: (sim: Sim) => FeedMarkets
  /** Drops a received frame before the client sees it (a lost message); `n` counts the venue's frames from 0. */
  readonly drop?: (venue: Venue, text: string, n: number) => boolean
  readonly record?: boolean
}

export interface SimFeedRun {
  readonly sim: Sim
  readonly client: FeedClient
  readonly time: ManualTime
  /** Everything the sink got, in order. */
  readonly events: Array<FeedEvent>
  /**
   * Recording lines (when `record`). `stable` (default): sorted by time, then connection, each
   * connection's own order kept — byte-stable across runs; else in arrival order, as recorded live.
   */
  readonly recording: (order?: "stable" | "arrival") => Array<string>
  /** Steps the model `n` times, moving the client's clock with it and waiting for quiet after each. */
  readonly step: (n?: number) => Promise<void>
  readonly settle: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The first `k` open contracts of a venue, by id: a small, seed-determined subset. */
export const someContracts = (sim: Sim, venue: Venue, k: number) =>
  sim.model.openContracts().filter((c) => c.venue === venue).sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, k)

/** `markets` for a small subset of each venue's contracts. */
export const someMarkets = (k: number) => (sim: Sim): FeedMarkets => ({
  venue_a: someContracts(sim, "venue_a", k).map((c) => c.id),
  venue_d: someContracts(sim, "venue_d", k).map((c) => c.id),
  venue_b_us: someContracts(sim, "venue_b_us", k).map((c) => c.id),
  venue_b: someContracts(sim, "venue_b", k).flatMap((c) => c.outcomes.map((o) => o.id)),
})

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const startSimFeed = async (options: SimFeedOptions): Promise<SimFeedRun> => {
  const sim = await startSim({ port: 0, seed: options.seed, historyDays: options.historyDays ?? 0, speed: 0, start: SIM_START, heartbeatMs: 3_600_000 })
  const time = new ManualTime(sim.model.now)
  const events: Array<FeedEvent> = []
  const lines: Array<{ t: number; conn: string; line: string }> = []
  const counts = new Map<Venue, number>()
  const drop = options.drop
  const dial: Dial = drop === undefined ? wsDial : (url, on) => {
    const venue = (/\/ws\/(venue_[a-z_]+?)(?:\/trades)?$/.exec(url)?.[1] ?? "venue_a") as Venue
    return wsDial(url, {
      ...on,
      message: (text, bytes) => {
        const n = counts.get(venue) ?? 0
        counts.set(venue, n + 1)
        if (!drop(venue, text, n)) on.message(text, bytes)
      },
    })
  }
  const tap = options.record === true
    ? (venue: Venue, stream: "market" | "trades", conn: string) =>
      recordingTap((line) => lines.push({ t: time.now(), conn: `${venue}/${conn}`, line }))(venue, stream, conn)
    : undefined
  const base = sim.url.replace(/^http/, "ws")
  const client = startFeeds({
    baseUrl: base,
    venues: options.venues,
    sink: (batch) => void events.push(...batch),
    edge: { now: time.now, timers: time.timers, dial, random: () => 0.5, log: () => {} },
    ...(tap === undefined ? {} : { tap }),
    ...(options.markets === undefined ? {} : { markets: options.markets(sim), followListings: false }),
  })

  const settle = async (): Promise<void> => {
    let last = -1
    let quiet = 0
    for (let i = 0; i < 2000; i++) {
      await sleep(4)
      const sockets = client.sockets()
      const frames = sockets.reduce((n, s) => n + s.counters.frames, 0)
      const connecting = sockets.some((s) => s.counters.state === "connecting")
      if (frames === last && !connecting) quiet += 1
      else quiet = 0
      last = frames
      if (quiet >= 3) return
    }
    throw new Error("feed did not settle")
  }

  await settle()
  return {
    sim,
    client,
    time,
    events,
    recording: (order = "stable") => {
      // Stable order: by time, then connection, keeping each connection's own order.
      return lines
        .map((l, i) => ({ ...l, i }))
        .sort((a, b) => order === "arrival" ? a.i - b.i : a.t - b.t || (a.conn < b.conn ? -1 : a.conn > b.conn ? 1 : a.i - b.i))
        // The simulator's port changes per run; recordings name it neutrally.
        .map((l) => l.line.split(base).join("ws://sim"))
    },
    step: async (n = 1) => {
      for (let i = 0; i < n; i++) {
        sim.step(1)
        time.advance(sim.model.now - time.now())
        await settle()
      }
    },
    settle,
    close: async () => {
      client.stop()
      await sim.close()
    },
  }
}

/** Applies every book event to one `Book` per contract, as the market actors will. */
export const booksFrom = (events: ReadonlyArray<FeedEvent>, venue?: Venue): Map<string, Book> => {
  const books = new Map<string, Book>()
  for (const e of events) {
    if ((e._tag !== "BookSnapshot" && e._tag !== "BookDelta") || (venue !== undefined && e.venue !== venue)) continue
    let book = books.get(e.contract)
    if (book === undefined) {
      book = new Book()
      books.set(e.contract, book)
    }
    book.apply(e)
  }
  return books
}

type Side = ReadonlyArray<readonly [number, number]>

/** The simulator's own book of one outcome, as [thousandths, hundredths] best-first. */
const simSide = (c: SimContract, outcome: 0 | 1, side: "bid" | "ask"): Side => {
  // The canonical book is outcome 0's; outcome 1's bids are its asks at 1 − p and vice versa.
  const source = outcome === 0 ? side : side === "bid" ? "ask" : "bid"
  const levels = levelsOf(c.book, source).map((l) => [outcome === 0 ? l.price : 1000 - l.price, l.size] as const)
  return [...levels].sort((a, b) => (side === "bid" ? b[0] - a[0] : a[0] - b[0]))
}

const clientSide = (book: Book | undefined, outcome: string, side: "bid" | "ask"): Side =>
  (book?.levels(outcome, side) ?? []).map((l) => [Math.round(l.price * 1000), Math.round(l.size * 100)] as const)

/** Contracts whose client book differs from the simulator's, with the first difference. */
export const bookMismatches = (
  books: ReadonlyMap<string, Book>, contracts: ReadonlyArray<SimContract>,
): Array<string> => {
  const out: Array<string> = []
  for (const c of contracts) {
    for (const i of [0, 1] as const) {
      for (const side of ["bid", "ask"] as const) {
        const want = simSide(c, i, side)
        const got = clientSide(books.get(c.id), c.outcomes[i].id, side)
        if (JSON.stringify(want) !== JSON.stringify(got)) {
          out.push(`${c.ref} ${c.outcomes[i].id.slice(0, 12)} ${side}: sim ${JSON.stringify(want.slice(0, 4))} client ${JSON.stringify(got.slice(0, 4))}`)
        }
      }
    }
  }
  return out
}

/** The open contracts of `venue` the client subscribes to books of (all, or the chosen subset). */
export const watchedContracts = (run: SimFeedRun, venue: Venue, markets?: FeedMarkets): Array<SimContract> => {
  const open = run.sim.model.openContracts().filter((c) => c.venue === venue)
  const chosen = markets?.[venue]
  if (chosen === undefined) return [...open]
  const set = new Set(chosen)
  return open.filter((c) => set.has(c.id) || c.outcomes.some((o) => set.has(o.id)))
}
