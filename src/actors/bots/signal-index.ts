// Which signal bots a live trade is tested against, and the test: signal bots indexed by named trader
// (signals with `traders`) and by venue × category (`*` for any category), the signal prepared once
// (signal-match.ts). Each bucket keeps its bots in the order they were indexed, which is the order a
// trade reaches them (and so the order of their fills); an array copy is iterated, rebuilt only when the
// bucket changes. Knows nothing of bot state: the registry indexes a running bot and unindexes it.
import { VENUES } from "../../domain/enums.js"
import type { Signal } from "../../domain/signal.js"
import { type MatchTrade, type PreparedSignal, passesSignal, prepareSignal } from "./signal-match.js"

const ANY = "*"

interface Member {
  readonly id: string
  readonly signal: PreparedSignal
}

/** A bucket's members as arrays, their dollar and price bounds in typed arrays for a tight first pass. */
interface Members {
  readonly ids: ReadonlyArray<string>
  readonly signals: ReadonlyArray<PreparedSignal>
  /** [minUsd, maxUsd, priceMin, priceMax] per member. */
  readonly bounds: Float64Array
}

class Bucket {
  private readonly members = new Map<string, Member>()
  private list: Members | null = null

  add(member: Member): void {
    this.members.set(member.id, member)
    this.list = null
  }

  /** True when the bucket is empty afterwards. */
  delete(id: string): boolean {
    if (this.members.delete(id)) this.list = null
    return this.members.size === 0
  }

  all(): Members {
    if (this.list !== null) return this.list
    const members = [...this.members.values()]
    const bounds = new Float64Array(members.length * 4)
    members.forEach(({ signal }, i) => bounds.set([signal.minUsd, signal.maxUsd, signal.priceMin, signal.priceMax], i * 4))
    return (this.list = { ids: members.map((m) => m.id), signals: members.map((m) => m.signal), bounds })
  }
}

type Keys = { readonly traders: ReadonlyArray<string> } | { readonly buckets: ReadonlyArray<readonly [string, string]> }

export class SignalIndex {
  private readonly byTrader = new Map<string, Bucket>()
  /** venue → category (or `*`) → signal bots. */
  private readonly byVenue = new Map<string, Map<string, Bucket>>()
  private readonly keys = new Map<string, Keys>()

  add(id: string, signal: Signal): void {
    this.remove(id)
    const member: Member = { id, signal: prepareSignal(signal) }
    if (signal.traders !== undefined) {
      for (const trader of signal.traders) bucketIn(this.byTrader, trader).add(member)
      this.keys.set(id, { traders: [...signal.traders] })
      return
    }
    const venues: ReadonlyArray<string> = signal.venue !== undefined && signal.venue.length > 0 ? signal.venue : VENUES
    const categories: ReadonlyArray<string> = signal.category !== undefined && signal.category.length > 0 ? signal.category : [ANY]
    const buckets: Array<readonly [string, string]> = []
    for (const venue of venues) {
      let byCategory = this.byVenue.get(venue)
      if (byCategory === undefined) this.byVenue.set(venue, (byCategory = new Map()))
      for (const category of categories) {
        bucketIn(byCategory, category).add(member)
        buckets.push([venue, category])
      }
    }
    this.keys.set(id, { buckets })
  }

  remove(id: string): void {
    const keys = this.keys.get(id)
    if (keys === undefined) return
    this.keys.delete(id)
    if ("traders" in keys) {
      for (const trader of keys.traders) deleteIn(this.byTrader, trader, id)
      return
    }
    for (const [venue, category] of keys.buckets) {
      const byCategory = this.byVenue.get(venue)
      if (byCategory !== undefined) deleteIn(byCategory, category, id)
    }
  }

  /**
   * Appends to `hits` the signal bots whose signal `t` passes, in index order: those naming its trader,
   * then (whale trades) those of its venue and category, then those of its venue and any category.
   * Returns how many signals were tested.
   */
  match(t: MatchTrade, hits: Array<string>): number {
    if (t.action !== "buy") return 0
    const named = t.trader === null ? undefined : this.byTrader.get(t.trader)
    const byCategory = t.whale ? this.byVenue.get(t.venue) : undefined
    const sameCategory = t.category === null ? undefined : byCategory?.get(t.category)
    const anyCategory = byCategory?.get(ANY)
    if (named === undefined && sameCategory === undefined && anyCategory === undefined) return 0
    const title = t.title.toLowerCase()
    return test(named, t, title, hits) + test(sameCategory, t, title, hits) + test(anyCategory, t, title, hits)
  }
}

const test = (bucket: Bucket | undefined, t: MatchTrade, title: string, hits: Array<string>): number => {
  if (bucket === undefined) return 0
  const { ids, signals, bounds } = bucket.all()
  const usd = t.usd
  const price = t.price
  for (let i = 0; i < ids.length; i++) {
    const b = i * 4
    // The bounds alone turn most signals away; passesSignal tests them again with the rest.
    if (usd < (bounds[b] ?? 0) || usd > (bounds[b + 1] ?? 0) || price < (bounds[b + 2] ?? 0) || price > (bounds[b + 3] ?? 0)) continue
    const signal = signals[i]
    const id = ids[i]
    if (signal !== undefined && id !== undefined && passesSignal(signal, t, title)) hits.push(id)
  }
  return ids.length
}

const bucketIn = (map: Map<string, Bucket>, key: string): Bucket => {
  let bucket = map.get(key)
  if (bucket === undefined) map.set(key, (bucket = new Bucket()))
  return bucket
}

const deleteIn = (map: Map<string, Bucket>, key: string, id: string): void => {
  if (map.get(key)?.delete(id) === true) map.delete(key)
}
