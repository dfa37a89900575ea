// venue_b socket conversations of the simulator: the Polymarket market channel (subscribe by token
// ids, custom features, initial book dump, PING → PONG) and the trades feed. Conventions: see the
// top of ../server.ts. Holds per-connection subscription state only.
import { levelsOf } from "../book.js"
import type { Encoded } from "../encoded.js"
import type { SimModel } from "../model.js"
import type { SimClient } from "../server.js"
import { bookFrames, newMarket } from "./encode.js"

const stringList = (value: unknown): Array<string> | null =>
  Array.isArray(value) && value.every((x) => typeof x === "string") ? (value as Array<string>) : null

export class VenueBClient implements SimClient {
  private subscribed = false
  private all = false
  private custom = false
  private readonly assets = new Set<string>()

  constructor(private readonly model: SimModel, private readonly send: (text: string) => void) {}

  private open() {
    return this.model.openContracts().filter((c) => c.venue === "venue_b")
  }

  private wants(f: Encoded): boolean {
    if (f.channel !== "market") return false
    const type = (f.frame as { event_type?: string }).event_type
    if (type === "new_market" || type === "market_resolved") return this.custom
    if (this.all) return true
    if (f.asset !== undefined) return this.assets.has(f.asset)
    const c = this.model.contracts.get(`venue_b:${f.contract}`)
    return c !== undefined && c.outcomes.some((o) => this.assets.has(o.id))
  }

  private dump(assets: ReadonlySet<string> | null): void {
    const books = this.open().flatMap((c) => bookFrames(c, this.model.now, levelsOf(c.book, "bid"), levelsOf(c.book, "ask")))
      .filter((f) => assets === null || (f.asset !== undefined && assets.has(f.asset)))
      .map((f) => f.frame)
    if (books.length > 0) this.send(JSON.stringify(books))
  }

  message(text: string): void {
    if (text === "PING") return this.send("PONG")
    let m: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
      m = parsed as Record<string, unknown>
    } catch {
      return this.send("INVALID OPERATION")
    }
    const ids = stringList(m["assets_ids"] ?? m["asset_ids"] ?? [])
    if (ids === null) return this.send("INVALID OPERATION")
    const dump = m["initial_dump"] !== false
    const operation = m["operation"]
    if (operation === "unsubscribe") {
      if (this.all) for (const c of this.open()) for (const o of c.outcomes) this.assets.add(o.id)
      this.all = false
      for (const id of ids) this.assets.delete(id)
      return
    }
    if (operation === "subscribe") {
      if (m["custom_feature_enabled"] === true) this.custom = true
      const fresh = new Set(ids.filter((id) => !this.assets.has(id)))
      for (const id of fresh) this.assets.add(id)
      if (ids.includes("*")) this.all = true
      if (dump && !this.all) this.dump(fresh)
      return
    }
    if (m["type"] !== undefined && m["type"] !== "market") return this.send("INVALID OPERATION")
    this.subscribed = true
    this.custom = m["custom_feature_enabled"] === true
    this.assets.clear()
    this.all = ids.length === 0 || ids.includes("*")
    for (const id of ids) this.assets.add(id)
    if (this.custom) {
      const listings = this.open().map((c) => newMarket(c, this.model.now).frame)
      if (listings.length > 0) this.send(JSON.stringify(listings))
    }
    if (dump) this.dump(this.all ? null : this.assets)
  }

  deliver(frames: ReadonlyArray<Encoded>): void {
    if (!this.subscribed) return
    for (const f of frames) if (this.wants(f)) this.send(JSON.stringify(f.frame))
  }

  heartbeat(): void {}

  closed(): void {}
}

/** The trades feed: every Data-API row as it happens, optionally only for some condition ids. */
export class VenueBTradesClient implements SimClient {
  private markets: ReadonlySet<string> | null = null

  constructor(private readonly send: (text: string) => void) {}

  message(text: string): void {
    if (text === "PING") return this.send("PONG")
    try {
      const m: unknown = JSON.parse(text)
      const list = typeof m === "object" && m !== null ? stringList((m as Record<string, unknown>)["markets"]) : null
      this.markets = list === null || list.length === 0 ? null : new Set(list)
    } catch {
      this.send("INVALID OPERATION")
    }
  }

  deliver(frames: ReadonlyArray<Encoded>): void {
    for (const f of frames) {
      if (f.channel === "trades" && (this.markets === null || this.markets.has(f.contract))) this.send(JSON.stringify(f.frame))
    }
  }

  heartbeat(): void {}

  closed(): void {}
}
