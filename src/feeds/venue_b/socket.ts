// venue_b connections (Polymarket CLOB market channel + the trades feed), over the generic
// FeedSocket. It owns the conversation: which assets each connection subscribes, the `PING`
// heartbeat, and resync — the market channel has no sequence numbers, so after every reconnect the
// connection simply resubscribes and the server answers with fresh `book` snapshots per asset.
// Wire shapes stay in ./decode.ts and ./frames.ts.
//
// Sharding: the venue caps a connection at 500 assets (observed), so assets are spread over as many
// market connections as needed (`market#0`, `market#1`, …). Only `market#0` asks for the custom
// features (`new_market`, `market_resolved`); listings are therefore delivered once. A newly listed
// market's two tokens are subscribed on the first connection with room (a new one when all are full).
// Without a starting list the feed runs one connection subscribed to "every market" (an empty
// `assets_ids`, our simulator's convention, which also announces every open market first).
//
// The trades feed (Data-API `Trade` rows: wallet, name/pseudonym, transaction hash) is a separate
// connection (`trades#0`) delivering `TradeAttributed`. Joining it to the market channel's
// `TradePrinted` (by `txId`) happens downstream: this module delivers both as they come.
import type { FeedEvent } from "../../domain/feed-events.js"
import type { Edge, FeedSink, Heartbeat, SessionOutput, StreamSession, Tap } from "../socket.js"
import { FeedSocket, NOTHING } from "../socket.js"
import type { StreamName } from "../counters.js"
import type { Venue } from "../../domain/enums.js"
import { decodeVenueB } from "./decode.js"

export const VENUE_B_HEARTBEAT: Heartbeat = { pingText: "PING", pingEveryMs: 10_000, silenceMs: 20_000 }
export const VENUE_B_MAX_ASSETS = 500

export const marketSubscribe = (assets: ReadonlyArray<string>, customFeatures: boolean): string =>
  JSON.stringify({ assets_ids: assets, type: "market", custom_feature_enabled: customFeatures })

export const marketSubscribeMore = (assets: ReadonlyArray<string>, operation: "subscribe" | "unsubscribe", customFeatures: boolean): string =>
  JSON.stringify({ assets_ids: assets, operation, custom_feature_enabled: customFeatures })

/** Listings and settlements are broadcast; only the primary connection passes them on. */
const BROADCAST: ReadonlySet<FeedEvent["_tag"]> = new Set(["MarketListed", "MarketSettled", "MarketVoided", "MarketClosed"])

export interface VenueBMarketSessionOptions {
  /** The assets this connection subscribes, read at every (re)connect. */
  readonly assets: () => ReadonlyArray<string>
  /** The connection that asks for custom features and delivers listings. */
  readonly primary: boolean
}

export const venueBMarketSession = (options: VenueBMarketSessionOptions): StreamSession => ({
  opened: () => [marketSubscribe(options.assets(), options.primary)],
  closed: () => {},
  frame: (text, receivedAt): SessionOutput => {
    const decoded = decodeVenueB(text, receivedAt)
    const events = options.primary ? decoded.events : decoded.events.filter((e) => !BROADCAST.has(e._tag))
    return { events, rejected: decoded.rejected, replies: NOTHING.replies, resyncs: 0 }
  },
})

export interface VenueBTradesSessionOptions {
  /** Frames sent after each connect (the trades feed's subscription, if it needs one). */
  readonly subscribe: () => ReadonlyArray<string>
}

export const venueBTradesSession = (options: VenueBTradesSessionOptions): StreamSession => ({
  opened: () => options.subscribe(),
  closed: () => {},
  frame: (text, receivedAt): SessionOutput => {
    const decoded = decodeVenueB(text, receivedAt)
    return { events: decoded.events, rejected: decoded.rejected, replies: NOTHING.replies, resyncs: 0 }
  },
})

/** The session a recorded venue_b connection replays through (assets do not matter offline). */
export const venueBReplaySession = (stream: StreamName, connection: string): StreamSession =>
  stream === "trades"
    ? venueBTradesSession({ subscribe: () => [] })
    : venueBMarketSession({ assets: () => [], primary: connection === "market#0" })

export interface VenueBFeedOptions {
  readonly marketUrl: string
  /** The trades feed's URL; omitted = no trades connection. */
  readonly tradesUrl?: string
  readonly tradesSubscribe?: () => ReadonlyArray<string>
  /**
   * Token ids to subscribe from the start (markets listed later are added as they come), or "all":
   * one connection with an empty asset list, which our simulator reads as every market, later
   * listings included (the real venue needs ids: pass them from the market list).
   */
  readonly assets: ReadonlyArray<string> | "all"
  readonly sink: FeedSink
  readonly edge: Edge
  readonly tap?: (venue: Venue, stream: StreamName, connection: string) => Tap | undefined
  readonly maxAssetsPerConnection?: number
  readonly heartbeat?: Heartbeat
  /** Subscribe the tokens of markets listed later (default true); false keeps to `assets`. */
  readonly followListings?: boolean
}

interface Shard {
  readonly assets: Set<string>
  readonly socket: FeedSocket
}

/** Market connections sharded by asset count, plus the trades connection. */
export class VenueBFeed {
  private readonly shards: Array<Shard> = []
  private readonly tokensOf = new Map<string, ReadonlyArray<string>>()
  private trades: FeedSocket | null = null
  private readonly cap: number
  private readonly all: boolean
  private readonly following: boolean

  constructor(private readonly options: VenueBFeedOptions) {
    this.cap = Math.max(1, options.maxAssetsPerConnection ?? VENUE_B_MAX_ASSETS)
    this.all = options.assets === "all"
    this.following = !this.all && options.followListings !== false
    const assets = options.assets === "all" ? [] : [...new Set(options.assets)]
    this.addShard()
    for (let i = 0; i < assets.length; i += this.cap) {
      const shard = this.shards[i / this.cap] ?? this.addShard()
      for (const a of assets.slice(i, i + this.cap)) shard.assets.add(a)
    }
    if (options.tradesUrl !== undefined) {
      const connection = "trades#0"
      const tap = options.tap?.("venue_b", "trades", connection)
      this.trades = new FeedSocket({
        venue: "venue_b", stream: "trades", connection, url: options.tradesUrl,
        heartbeat: options.heartbeat ?? VENUE_B_HEARTBEAT,
        session: venueBTradesSession({ subscribe: options.tradesSubscribe ?? (() => []) }),
        sink: options.sink, edge: options.edge, ...(tap === undefined ? {} : { tap }),
      })
    }
  }

  start(): void {
    for (const shard of this.shards) shard.socket.start()
    this.trades?.start()
  }

  stop(): void {
    for (const shard of this.shards) shard.socket.stop()
    this.trades?.stop()
  }

  sockets(): ReadonlyArray<FeedSocket> {
    return [...this.shards.map((s) => s.socket), ...(this.trades === null ? [] : [this.trades])]
  }

  /** Assets per market connection, in connection order (for tests and health). */
  assignment(): ReadonlyArray<ReadonlyArray<string>> {
    return this.shards.map((s) => [...s.assets])
  }

  private addShard(): Shard {
    const index = this.shards.length
    const connection = `market#${index}`
    const assets = new Set<string>()
    const tap = this.options.tap?.("venue_b", "market", connection)
    const primary = index === 0
    const socket = new FeedSocket({
      venue: "venue_b", stream: "market", connection, url: this.options.marketUrl,
      heartbeat: this.options.heartbeat ?? VENUE_B_HEARTBEAT,
      session: venueBMarketSession({ assets: () => [...assets], primary }),
      sink: (events) => this.delivered(events),
      edge: this.options.edge, ...(tap === undefined ? {} : { tap }),
    })
    const shard = { assets, socket }
    this.shards.push(shard)
    return shard
  }

  /** Passes events on, and follows listings: new tokens get subscribed, settled ones dropped. */
  private delivered(events: ReadonlyArray<FeedEvent>): void {
    if (this.following) {
      for (const e of events) {
        if (e._tag === "MarketListed") this.follow(e.contract, [e.outcomes[0].id, e.outcomes[1].id])
        else if (e._tag === "MarketSettled" || e._tag === "MarketVoided") this.unfollow(e.contract)
      }
    }
    this.options.sink(events)
  }

  private follow(contract: string, tokens: ReadonlyArray<string>): void {
    this.tokensOf.set(contract, tokens)
    const fresh = tokens.filter((t) => !this.shards.some((s) => s.assets.has(t)))
    if (fresh.length === 0) return
    let shard = this.shards.find((s) => s.assets.size + fresh.length <= this.cap)
    const started = shard !== undefined
    shard ??= this.addShard()
    for (const t of fresh) shard.assets.add(t)
    if (!started) shard.socket.start()
    else shard.socket.send(marketSubscribeMore(fresh, "subscribe", this.shards[0] === shard))
  }

  private unfollow(contract: string): void {
    const tokens = this.tokensOf.get(contract)
    if (tokens === undefined) return
    this.tokensOf.delete(contract)
    for (const shard of this.shards) {
      const mine = tokens.filter((t) => shard.assets.has(t))
      if (mine.length === 0) continue
      for (const t of mine) shard.assets.delete(t)
      shard.socket.send(marketSubscribeMore(mine, "unsubscribe", this.shards[0] === shard))
    }
  }
}
