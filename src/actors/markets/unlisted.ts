// Events of contracts not listed yet, held until the listing comes (a venue may send a book or a trade
// before, or without, announcing the market). Bounded both ways: at most `perContract` events per
// contract (the oldest dropped) and `contracts` contracts (the contract held longest dropped whole);
// every drop is counted. Plain and synchronous, owned by the registry.

export interface UnlistedCounters {
  held: number
  dropped: number
}

export class Unlisted<E> {
  private readonly byRef = new Map<string, Array<E>>()
  readonly counters: UnlistedCounters = { held: 0, dropped: 0 }

  constructor(private readonly perContract: number, private readonly contracts: number) {}

  hold(ref: string, event: E): void {
    let events = this.byRef.get(ref)
    if (events === undefined) {
      if (this.byRef.size >= this.contracts) {
        const oldest = this.byRef.keys().next()
        if (oldest.done !== true) {
          this.counters.dropped += this.byRef.get(oldest.value)?.length ?? 0
          this.byRef.delete(oldest.value)
        }
      }
      events = []
      this.byRef.set(ref, events)
    }
    if (events.length >= this.perContract) {
      events.shift()
      this.counters.dropped++
    }
    events.push(event)
    this.counters.held++
  }

  /** Removes and returns what was held for `ref`, oldest first. */
  release(ref: string): ReadonlyArray<E> {
    const events = this.byRef.get(ref)
    if (events === undefined) return []
    this.byRef.delete(ref)
    return events
  }

  /** Contracts with events held. */
  get size(): number {
    return this.byRef.size
  }
}
