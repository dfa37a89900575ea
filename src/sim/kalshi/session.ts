// Kalshi-family socket conversation of the simulator (venue_a, venue_d): subscribe / unsubscribe /
// update_subscription / list_subscriptions commands, one sid per channel, `seq` per sid on book and
// trade frames (the real venue's `ticker` and lifecycle frames carry none: venues.md §3.3, and the
// recorded ticker frames), an initial snapshot per market on `orderbook_delta` and `created` per open market on
// `market_lifecycle_v2`, WebSocket pings. Conventions: see the top of ../server.ts.
import type { Venue } from "../../domain/enums.js"
import { levelsOf } from "../book.js"
import type { Encoded } from "../encoded.js"
import type { SimModel } from "../model.js"
import type { SimClient } from "../server.js"
import type { SimContract } from "../types.js"
import { created, snapshot, type KalshiChannel, type KalshiMessage } from "./encode.js"

const CHANNELS: ReadonlySet<string> = new Set<KalshiChannel>(["orderbook_delta", "trade", "ticker", "market_lifecycle_v2"])
/** Channels whose frames carry `seq`. */
const SEQUENCED: ReadonlySet<KalshiChannel> = new Set<KalshiChannel>(["orderbook_delta", "trade"])

interface Subscription {
  readonly sid: number
  readonly channel: KalshiChannel
  tickers: Set<string> | null
  seq: number
}

export class KalshiClient implements SimClient {
  private nextSid = 1
  private readonly subs = new Map<number, Subscription>()

  constructor(
    private readonly venue: Venue,
    private readonly model: SimModel,
    private readonly send: (text: string) => void,
    private readonly ping: () => void,
  ) {}

  private emit(sub: Subscription, f: Encoded): void {
    const m = f.frame as KalshiMessage
    if (!SEQUENCED.has(sub.channel)) {
      this.send(JSON.stringify({ type: m.type, sid: sub.sid, msg: m.msg }))
      return
    }
    sub.seq += 1
    this.send(JSON.stringify({ type: m.type, sid: sub.sid, seq: sub.seq, msg: m.msg }))
  }

  private error(id: unknown, code: number, msg: string): void {
    this.send(JSON.stringify({ ...(typeof id === "number" ? { id } : {}), type: "error", msg: { code, msg } }))
  }

  private open(tickers: ReadonlySet<string> | null): Array<SimContract> {
    return this.model.openContracts().filter((c) => c.venue === this.venue && (tickers === null || tickers.has(c.id)))
  }

  private snapshots(sub: Subscription, tickers: ReadonlySet<string> | null): void {
    for (const c of this.open(tickers)) this.emit(sub, snapshot(c, levelsOf(c.book, "bid"), levelsOf(c.book, "ask")))
  }

  message(text: string): void {
    let m: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
      m = parsed as Record<string, unknown>
    } catch {
      return this.error(undefined, 1, "Unable to process message")
    }
    const id = m["id"]
    const params = (typeof m["params"] === "object" && m["params"] !== null ? m["params"] : {}) as Record<string, unknown>
    const tickerList = (): Array<string> | null => {
      const one = params["market_ticker"]
      const many = params["market_tickers"]
      if (typeof one === "string") return [one]
      if (Array.isArray(many) && many.every((t) => typeof t === "string")) return many as Array<string>
      return null
    }
    const sidsOf = (): Array<number> | null => {
      const sids = params["sids"]
      return Array.isArray(sids) && sids.length > 0 && sids.every((s) => Number.isInteger(s)) ? (sids as Array<number>) : null
    }
    switch (m["cmd"]) {
      case "subscribe": {
        const channels = params["channels"]
        if (!Array.isArray(channels) || channels.length === 0) return this.error(id, 3, "Channels required")
        const bad = channels.find((c) => typeof c !== "string" || !CHANNELS.has(c))
        if (bad !== undefined) return this.error(id, 8, `Unknown channel name: ${String(bad)}`)
        const list = tickerList()
        for (const channel of channels as Array<KalshiChannel>) {
          const sub: Subscription = { sid: this.nextSid++, channel, tickers: list === null ? null : new Set(list), seq: 0 }
          this.subs.set(sub.sid, sub)
          this.send(JSON.stringify({ ...(typeof id === "number" ? { id } : {}), type: "subscribed", msg: { channel, sid: sub.sid } }))
          if (channel === "orderbook_delta") this.snapshots(sub, sub.tickers)
          if (channel === "market_lifecycle_v2") for (const c of this.open(sub.tickers)) this.emit(sub, created(c))
        }
        return
      }
      case "unsubscribe": {
        const sids = sidsOf()
        if (sids === null) return this.error(id, 4, "Sids required")
        for (const sid of sids) {
          const sub = this.subs.get(sid)
          if (sub === undefined) {
            this.error(id, 7, "Unknown subscription ID")
            continue
          }
          this.subs.delete(sid)
          this.send(JSON.stringify({ ...(typeof id === "number" ? { id } : {}), sid, seq: sub.seq, type: "unsubscribed" }))
        }
        return
      }
      case "update_subscription": {
        const sids = sidsOf()
        if (sids === null || sids.length !== 1) return this.error(id, 12, "Exactly one subscription ID is required")
        const sub = this.subs.get(sids[0] as number)
        if (sub === undefined) return this.error(id, 7, "Unknown subscription ID")
        const action = params["action"]
        const list = tickerList()
        if (action === undefined) return this.error(id, 15, "Action required")
        if (list === null) return this.error(id, 14, "Market ticker required")
        if (action === "get_snapshot") {
          if (sub.channel !== "orderbook_delta") return this.error(id, 13, "Unsupported action for this channel")
          this.snapshots(sub, new Set(list))
        } else if (action === "add_markets") {
          if (sub.tickers !== null) for (const t of list) sub.tickers.add(t)
          if (sub.channel === "orderbook_delta") this.snapshots(sub, new Set(list))
        } else if (action === "delete_markets") {
          if (sub.tickers === null) sub.tickers = new Set(this.open(null).map((c) => c.id))
          for (const t of list) sub.tickers.delete(t)
        } else return this.error(id, 13, "Unsupported action")
        this.send(JSON.stringify({ ...(typeof id === "number" ? { id } : {}), sid: sub.sid, seq: sub.seq, type: "ok", msg: { market_tickers: list } }))
        return
      }
      case "list_subscriptions":
        this.send(JSON.stringify({
          ...(typeof id === "number" ? { id } : {}), type: "list_subscriptions",
          msg: [...this.subs.values()].map((s) => ({ channel: s.channel, sid: s.sid })),
        }))
        return
      default:
        return this.error(id, 5, "Unknown command")
    }
  }

  deliver(frames: ReadonlyArray<Encoded>): void {
    for (const f of frames) {
      for (const sub of this.subs.values()) {
        if (sub.channel === f.channel && (sub.tickers === null || sub.tickers.has(f.contract))) this.emit(sub, f)
      }
    }
  }

  heartbeat(): void {
    this.ping()
  }

  closed(): void {
    this.subs.clear()
  }
}
