// What is armed on contracts (market alerts, exit rules): by contract ref, then by id, so a price of one
// contract visits only what watches it.
export class ByContract<T> {
  private readonly byRef = new Map<string, Map<string, T>>()

  add(ref: string, id: string, item: T): void {
    const armed = this.byRef.get(ref)
    if (armed === undefined) this.byRef.set(ref, new Map([[id, item]]))
    else armed.set(id, item)
  }

  remove(ref: string, id: string): void {
    const armed = this.byRef.get(ref)
    armed?.delete(id)
    if (armed?.size === 0) this.byRef.delete(ref)
  }

  /** What is armed on `ref` (live: delete through `remove`, or delete and then `prune`). */
  on(ref: string): Map<string, T> | undefined {
    return this.byRef.get(ref)
  }

  /** Forgets `ref` once nothing is armed on it. */
  prune(ref: string): void {
    if (this.byRef.get(ref)?.size === 0) this.byRef.delete(ref)
  }

  get size(): number {
    let n = 0
    for (const armed of this.byRef.values()) n += armed.size
    return n
  }
}
