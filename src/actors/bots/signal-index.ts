// Which signal bots a live trade is tested against, and the test: signal bots indexed by named trader
// (signals with `traders`) and by venue × category (`*` for any category), the signal prepared once
// (signal-match.ts). Each bucket keeps its bots in the order they were indexed, which is the order a
// trade reaches them (and so the order of their fills); an array copy is iterated, rebuilt only when the
// bucket changes. Knows nothing of bot state: the registry indexes a running bot and unindexes it.
//
// A venue × category bucket holds only signals naming that venue (or none) and that category (or none,
// in `*`), for whale trades only: there the test is the bounds, the entry and the keywords alone. Each
// distinct keyword is looked up in a trade's title once per trade, however many signals name it.
import { VENUES } from "../../domain/enums.js"
import type { Signal } from "../../domain/signal.js"
import { type MatchTrade, type PreparedSignal, passesSignal, prepareSignal } from "./signal-match.js"

const ANY = "*"

interface Member {
  readonly id: string
  readonly signal: PreparedSignal
  /** The signal's keywords as KeywordMemo ids; null without keywords. */
  readonly keywords: Int32Array | null
}

/** A bucket's members as arrays, their dollar and price bounds in typed arrays for a tight first pass. */
interface Members {
  readonly ids: ReadonlyArray<string>
  readonly signals: ReadonlyArray<PreparedSignal>
  readonly keywords: ReadonlyArray<Int32Array | null>
  /** [minUsd, maxUsd, priceMin, priceMax] per member. */
  readonly bounds: Float64Array
}

/** Lower-cased keywords as small ids, and whether the title of the trade under test holds each. */
class KeywordMemo {
  private readonly ids = new Map<string, number>()
  private readonly words: Array<string> = []
  /** Per keyword id: the trade (`round`) it was last looked up for, and the answer. */
  private rounds = new Uint32Array(64)
  private answers = new Uint8Array(64)
  private round = 0
  private title = ""

  idOf(keyword: string): number {
    let id = this.ids.get(keyword)
    if (id === undefined) {
      id = this.words.length
      this.ids.set(keyword, id)
      this.words.push(keyword)
      if (id >= this.rounds.length) {
        const rounds = new Uint32Array(this.rounds.length * 2)
        rounds.set(this.rounds)
        this.rounds = rounds
        const answers = new Uint8Array(this.answers.length * 2)
        answers.set(this.answers)
        this.answers = answers
      }
    }
    return id
  }

  /** Starts a trade: its lower-cased title. */
  next(title: string): void {
    this.title = title
    this.round = (this.round + 1) >>> 0
    if (this.round === 0) {
      this.rounds.fill(0)
      this.round = 1
    }
  }

  /** The title holds one of these keywords. */
  any(ids: Int32Array): boolean {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number
      if (this.rounds[id] !== this.round) {
        this.rounds[id] = this.round
        this.answers[id] = this.title.includes(this.words[id] as string) ? 1 : 0
      }
      if (this.answers[id] === 1) return true
    }
    return false
  }
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
    return (this.list = { ids: members.map((m) => m.id), signals: members.map((m) => m.signal), keywords: members.map((m) => m.keywords), bounds })
  }
}

type Keys = { readonly traders: ReadonlyArray<string> } | { readonly buckets: ReadonlyArray<readonly [string, string]> }

export class SignalIndex {
  private readonly byTrader = new Map<string, Bucket>()
  /** venue → category (or `*`) → signal bots. */
  private readonly byVenue = new Map<string, Map<string, Bucket>>()
  private readonly keys = new Map<string, Keys>()
  /** The signal each bot is indexed with (by reference). */
  private readonly given = new Map<string, Signal>()
  private readonly memo = new KeywordMemo()

  /** Signal bots indexed. */
  get size(): number {
    return this.keys.size
  }

  /**
   * Indexes a signal bot at the end of its buckets; one indexed with this very signal already stays where it
   * is (a command that changed nothing of it must not change the order trades reach bots in).
   */
  add(id: string, signal: Signal): void {
    if (this.given.get(id) === signal) return
    this.remove(id)
    this.given.set(id, signal)
    const prepared = prepareSignal(signal)
    const keywords = prepared.keywords === null ? null : Int32Array.from(prepared.keywords, (k) => this.memo.idOf(k))
    const member: Member = { id, signal: prepared, keywords }
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
    this.given.delete(id)
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
    this.memo.next(title)
    return testNamed(named, t, title, hits) + this.testWhale(sameCategory, t, hits) + this.testWhale(anyCategory, t, hits)
  }

  /** A venue × category bucket and a whale buy of that venue and category: bounds, entry, keywords. */
  private testWhale(bucket: Bucket | undefined, t: MatchTrade, hits: Array<string>): number {
    if (bucket === undefined) return 0
    const { ids, signals, keywords, bounds } = bucket.all()
    const usd = t.usd
    const price = t.price
    const entry = t.entry
    for (let i = 0; i < ids.length; i++) {
      if (!passesBounds(bounds, i * 4, usd, price)) continue
      const wanted = (signals[i] as PreparedSignal).entry
      if (wanted !== "all" && entry !== wanted) continue
      const words = keywords[i]
      if (words !== null && words !== undefined && !this.memo.any(words)) continue
      hits.push(ids[i] as string)
    }
    return ids.length
  }
}

/** passesSignal's bound test (an absent bound is infinite and so never fails, NaN included). */
const passesBounds = (bounds: Float64Array, b: number, usd: number, price: number): boolean =>
  !(usd < (bounds[b] as number) || usd > (bounds[b + 1] as number) || price < (bounds[b + 2] as number) || price > (bounds[b + 3] as number))

/** Signals naming traders: the whole test. */
const testNamed = (bucket: Bucket | undefined, t: MatchTrade, title: string, hits: Array<string>): number => {
  if (bucket === undefined) return 0
  const { ids, signals, bounds } = bucket.all()
  const usd = t.usd
  const price = t.price
  for (let i = 0; i < ids.length; i++) {
    // The bounds alone turn most signals away; passesSignal tests them again with the rest.
    if (!passesBounds(bounds, i * 4, usd, price)) continue
    if (passesSignal(signals[i] as PreparedSignal, t, title)) hits.push(ids[i] as string)
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
