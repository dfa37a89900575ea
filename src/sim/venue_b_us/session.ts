// venue_b_us socket conversation of the simulator: market-data and trade subscriptions by request
// id (no slugs = every market), a `marketData` per market when a market-data subscription starts,
// `{"heartbeat":{}}` frames. Conventions: see the top of ../server.ts.
import { levelsOf } from "../book.js"
import type { Encoded } from "../encoded.js"
import type { SimModel } from "../model.js"
import type { SimClient } from "../server.js"
import { marketData } from "./encode.js"

const TYPES: ReadonlySet<unknown> = new Set(["SUBSCRIPTION_TYPE_MARKET_DATA", "SUBSCRIPTION_TYPE_TRADE"])

interface Subscription {
  readonly requestId: string
  readonly type: string
  readonly slugs: ReadonlySet<string> | null
}

export class VenueBUsClient implements SimClient {
  private readonly subs = new Map<string, Subscription>()

  constructor(private readonly model: SimModel, private readonly send: (text: string) => void) {}

  private emit(sub: Subscription, frame: unknown): void {
    this.send(JSON.stringify({ requestId: sub.requestId, subscriptionType: sub.type, ...(frame as object) }))
  }

  private error(requestId: unknown, error: string): void {
    this.send(JSON.stringify({ ...(typeof requestId === "string" ? { requestId } : {}), error }))
  }

  message(text: string): void {
    let m: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
      m = parsed as Record<string, unknown>
    } catch {
      return this.error(undefined, "message must be a JSON object")
    }
    const sub = m["subscribe"]
    const unsub = m["unsubscribe"]
    if (typeof sub === "object" && sub !== null) {
      const s = sub as Record<string, unknown>
      const requestId = s["requestId"]
      const type = s["subscriptionType"]
      const slugs = s["marketSlugs"]
      if (typeof requestId !== "string" || requestId === "") return this.error(undefined, "subscribe.requestId must be a non-empty string")
      if (!TYPES.has(type)) return this.error(requestId, "subscribe.subscriptionType must be SUBSCRIPTION_TYPE_MARKET_DATA or SUBSCRIPTION_TYPE_TRADE")
      if (slugs !== undefined && !(Array.isArray(slugs) && slugs.every((x) => typeof x === "string") && slugs.length <= 100)) {
        return this.error(requestId, "subscribe.marketSlugs must be a list of at most 100 market slugs")
      }
      const list = (slugs ?? []) as Array<string>
      const subscription: Subscription = { requestId, type: type as string, slugs: list.length === 0 ? null : new Set(list) }
      this.subs.set(requestId, subscription)
      if (subscription.type === "SUBSCRIPTION_TYPE_MARKET_DATA") {
        for (const c of this.model.openContracts()) {
          if (c.venue !== "venue_b_us" || (subscription.slugs !== null && !subscription.slugs.has(c.id))) continue
          this.emit(subscription, marketData(c, this.model.now, levelsOf(c.book, "bid"), levelsOf(c.book, "ask"), true).frame)
        }
      }
      return
    }
    if (typeof unsub === "object" && unsub !== null) {
      const requestId = (unsub as Record<string, unknown>)["requestId"]
      if (typeof requestId !== "string" || !this.subs.delete(requestId)) return this.error(requestId, "unsubscribe.requestId names no subscription")
      return
    }
    this.error(undefined, "message must be {subscribe} or {unsubscribe}")
  }

  deliver(frames: ReadonlyArray<Encoded>): void {
    for (const f of frames) {
      const isTrade = "trade" in (f.frame as object)
      for (const sub of this.subs.values()) {
        if ((sub.type === "SUBSCRIPTION_TYPE_TRADE") !== isTrade) continue
        if (sub.slugs === null || sub.slugs.has(f.contract)) this.emit(sub, f.frame)
      }
    }
  }

  heartbeat(): void {
    this.send(JSON.stringify({ heartbeat: {} }))
  }

  closed(): void {
    this.subs.clear()
  }
}
