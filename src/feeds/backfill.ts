// Backfill: pages through each venue's REST history (GET /history/<venue>/{markets|trades|settlements},
// simulator layout) and hands the rows, decoded by the SAME venue decoders as live frames, to a sink
// as FeedEvent batches, merged across venues and endpoints in time order (ties: listings, trades,
// settlements; then venue order). Each row's events get `receivedAt` = their venue time, so everything
// downstream measures feed time as on a replay. Listings are always read in full (a resumed backfill
// must know the markets its trades print on); trades and settlements only in [since, until] per venue.
// It reads no clock: `until` and `since` come from the caller, progress goes to a callback.
import type { Venue } from "../domain/enums.js"
import type { Decoded, FeedEvent } from "../domain/feed-events.js"
import { decodeVenueA } from "./venue_a/decode.js"
import { decodeVenueB } from "./venue_b/decode.js"
import { decodeVenueBUs } from "./venue_b_us/decode.js"
import { decodeVenueD } from "./venue_d/decode.js"

export type HistoryKind = "markets" | "trades" | "settlements"
const KINDS: ReadonlyArray<HistoryKind> = ["markets", "trades", "settlements"]

export const decoderOf = (venue: Venue): ((frame: unknown, receivedAt: number) => Decoded) => {
  switch (venue) {
    case "venue_a": return decodeVenueA
    case "venue_b": return decodeVenueB
    case "venue_b_us": return decodeVenueBUs
    case "venue_d": return decodeVenueD
  }
}

export interface BackfillProgress {
  readonly venue: Venue
  /** 0..1 of the venue's [since, until] covered. */
  readonly share: number
  /** Venue time reached (epoch ms). */
  readonly at: number
}

export interface BackfillOptions {
  /** `http://host:port` of the venues' REST history. */
  readonly baseUrl: string
  readonly venues: ReadonlyArray<Venue>
  /** Per venue: read trades and settlements from here (inclusive, epoch ms). */
  readonly since: (venue: Venue) => number
  /** Read up to here (inclusive, epoch ms). */
  readonly until: number
  /** Rows per page (1..1000). */
  readonly pageSize?: number
  /** Receives the events of each row, in merged time order; may wait (the caller persists meanwhile). */
  readonly sink: (batch: ReadonlyArray<FeedEvent>) => void | Promise<void>
  readonly progress?: (progress: ReadonlyArray<BackfillProgress>) => void
  /** Rows that did not decode (counted; a rejected row is skipped, as a live frame would be). */
  readonly rejected?: (venue: Venue, reason: string) => void
  readonly fetch?: typeof fetch
}

export interface BackfillResult {
  readonly rows: number
  readonly events: number
  readonly rejected: number
  readonly byVenue: ReadonlyMap<Venue, { readonly rows: number; readonly events: number }>
}

interface Row {
  readonly ts: number
  readonly events: ReadonlyArray<FeedEvent>
}

/** One paged listing, decoded a page at a time. */
class Stream {
  readonly #rows: Array<Row> = []
  #head = 0
  #cursor: string | null = null
  #done = false

  constructor(
    readonly venue: Venue,
    readonly kind: HistoryKind,
    readonly order: number,
    private readonly url: (cursor: string | null) => string,
    private readonly get: (url: string) => Promise<{ data: ReadonlyArray<unknown>; nextCursor: string | null }>,
    private readonly decode: (row: unknown) => Row | null,
  ) {}

  /** True when the buffer is empty and pages remain. */
  get hungry(): boolean {
    return this.#head >= this.#rows.length && !this.#done
  }

  /** Fetches pages until a row is buffered or the listing ends. */
  async fill(): Promise<void> {
    while (this.hungry) {
      const page = await this.get(this.url(this.#cursor))
      this.#rows.length = 0
      this.#head = 0
      for (const raw of page.data) {
        const row = this.decode(raw)
        if (row !== null) this.#rows.push(row)
      }
      this.#cursor = page.nextCursor
      if (page.nextCursor === null) this.#done = true
    }
  }

  /** The next buffered row (call `fill` first when hungry); null at the end. */
  current(): Row | null {
    return this.#rows[this.#head] ?? null
  }

  take(): void {
    this.#head++
  }
}

export const backfill = async (options: BackfillOptions): Promise<BackfillResult> => {
  const base = options.baseUrl.replace(/\/+$/, "").replace(/^ws(s?):/, "http$1:")
  const limit = options.pageSize ?? 1000
  const doFetch = options.fetch ?? fetch
  let rejected = 0
  // A page is retried on network failures and 5xx answers (a keep-alive connection the venue closed,
  // a restart): five tries, 100 ms doubling; other answers fail the backfill at once.
  const get = async (url: string, attempt = 0): Promise<{ data: ReadonlyArray<unknown>; nextCursor: string | null }> => {
    const retry = async (why: unknown) => {
      if (attempt >= 4) throw why instanceof Error ? why : new Error(String(why))
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
      return get(url, attempt + 1)
    }
    let response: Response
    try {
      response = await doFetch(url)
    } catch (error) {
      return retry(error)
    }
    if (response.status >= 500) return retry(new Error(`backfill: ${url} answered ${response.status}`))
    if (!response.ok) throw new Error(`backfill: ${url} answered ${response.status}`)
    return (await response.json()) as { data: ReadonlyArray<unknown>; nextCursor: string | null }
  }
  const streams: Array<Stream> = []
  for (const venue of options.venues) {
    const decode = decoderOf(venue)
    const since = options.since(venue)
    for (const [k, kind] of KINDS.entries()) {
      const query = (cursor: string | null) => {
        const params = new URLSearchParams({ until: String(options.until), limit: String(limit) })
        if (kind !== "markets") params.set("since", String(since))
        if (cursor !== null) params.set("cursor", cursor)
        return `${base}/history/${venue}/${kind}?${params.toString()}`
      }
      streams.push(new Stream(venue, kind, k, query, get, (raw) => {
        const out = decode(raw, 0)
        for (const r of out.rejected) {
          rejected++
          options.rejected?.(venue, r.reason)
        }
        if (out.events.length === 0) return null
        const events = out.events.map((e) => ({ ...e, receivedAt: e.ts }))
        const ts = Math.min(...events.map((e) => e.ts))
        // A trade or settlement before `since` is stored already (pages start at `since`; a listing
        // without a time takes the receipt time 0 and sorts first).
        return { ts, events }
      }))
    }
  }
  const byVenue = new Map<Venue, { rows: number; events: number }>(options.venues.map((v) => [v, { rows: 0, events: 0 }]))
  const reached = new Map<Venue, number>(options.venues.map((v) => [v, options.since(v)]))
  const report = () => options.progress?.(options.venues.map((venue) => {
    const since = options.since(venue)
    const at = reached.get(venue) ?? since
    const span = options.until - since
    return { venue, at, share: span <= 0 ? 1 : Math.max(0, Math.min(1, (at - since) / span)) }
  }))
  let rows = 0
  let events = 0
  report()
  for (;;) {
    let best: Stream | null = null
    let bestRow: Row | null = null
    for (const stream of streams) {
      if (stream.hungry) await stream.fill()
      const row = stream.current()
      if (row === null) continue
      if (bestRow === null || best === null || row.ts < bestRow.ts || (row.ts === bestRow.ts && stream.order < best.order)) {
        best = stream
        bestRow = row
      }
    }
    if (best === null || bestRow === null) break
    best.take()
    rows++
    events += bestRow.events.length
    const counts = byVenue.get(best.venue)
    if (counts !== undefined) {
      counts.rows++
      counts.events += bestRow.events.length
    }
    if (best.kind !== "markets") reached.set(best.venue, Math.max(reached.get(best.venue) ?? 0, bestRow.ts))
    const waited = options.sink(bestRow.events)
    if (waited !== undefined) await waited
    if (rows % 2_000 === 0) report()
  }
  for (const venue of options.venues) reached.set(venue, options.until)
  report()
  return { rows, events, rejected, byVenue }
}

/**
 * A terminal progress line for stderr: a carriage-return bar when it is a TTY, else one log line at
 * most every `everyMs` of the injected clock (and at 100 %).
 */
export const progressPrinter = (options: {
  readonly tty: boolean
  readonly write: (text: string) => void
  readonly now: () => number
  readonly everyMs?: number
}): { readonly update: (progress: ReadonlyArray<BackfillProgress>, extra?: string) => void; readonly done: (summary: string) => void } => {
  let lastLine = -Infinity
  const width = 30
  return {
    update: (progress, extra = "") => {
      const total = progress.length === 0 ? 1 : progress.reduce((t, p) => t + p.share, 0) / progress.length
      const venues = progress.map((p) => `${p.venue} ${Math.floor(p.share * 100)}%`).join("  ")
      if (options.tty) {
        const filled = Math.round(total * width)
        options.write(`\rbackfill [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.floor(total * 100)}%  ${venues}${extra === "" ? "" : `  ${extra}`}\x1b[K`)
        return
      }
      const now = options.now()
      if (now - lastLine < (options.everyMs ?? 5_000) && total < 1) return
      lastLine = now
      options.write(`backfill ${Math.floor(total * 100)}%: ${venues}${extra === "" ? "" : `; ${extra}`}\n`)
    },
    done: (summary) => options.write(`${options.tty ? "\r\x1b[K" : ""}backfill done: ${summary}\n`),
  }
}
