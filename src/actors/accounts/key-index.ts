// Which idempotency keys are held now, in memory, on the node that owns the accounts (ARCHITECTURE, Scale:
// one node owns an account at a time): rebuilt from the orders holding keys on start and told of every key
// an order of this node records, so a keyed order with a new key looks nothing up in the store. It is the
// store's copy, never ahead of it: a key enters only once its order is durable. A key another node
// recorded (an ownership change in flight) is not here; the order placed with it here is then left out of
// the group commit by the key's unique index and answered from the store (src/operations/paper-orders.ts).
//
// It holds only when each key was taken, not what a replay answers: a replay (rare) reads its order and
// request hash from the store. And it holds at most `capacity` keys, dropping the oldest beyond that, so a
// node taking keyed orders around the clock keeps a bounded heap (a whole response per key was ~880
// bytes: at 50 keyed orders a second, 4.3 million keys and ~3.8 GB after a day). While a key younger than
// 24 hours has been dropped, a key not found here may still be held, and the answer is "ask the store".
import { IDEMPOTENCY_RETENTION_MS } from "../../store/paper.js"

const idOf = (accountId: string, key: string): string => `${accountId}\u0000${key}`

/** Keys held in memory at most, by default: ~180 bytes each with a 42-character key, ~36 MB in all. */
export const KEY_INDEX_CAPACITY = 200_000

/** What the index knows of a key at some moment: held (since when), free, or not known here. */
export type KeyState = "held" | "free" | "ask-store"

export class KeyIndex {
  /** When each key held was taken (epoch ms), oldest first (a key taken again moves to the end). */
  private readonly held = new Map<string, number>()
  /** The newest time among the keys dropped to stay within capacity (-Infinity while none was). */
  private droppedThrough = Number.NEGATIVE_INFINITY

  constructor(readonly capacity: number = KEY_INDEX_CAPACITY) {
    if (!(capacity >= 1)) throw new Error(`KeyIndex capacity must be at least 1, not ${capacity}`)
  }

  /**
   * Holds the key from `createdAt` (a later record of the same key, after it expired, replaces it). Keys
   * are remembered in the order their orders were recorded, so the first in the map is the oldest.
   */
  remember(accountId: string, key: string, createdAt: number): void {
    const id = idOf(accountId, key)
    this.held.delete(id)
    this.held.set(id, createdAt)
    while (this.held.size > this.capacity) {
      const [oldest, at] = this.held.entries().next().value as [string, number]
      this.held.delete(oldest)
      this.dropped(at)
    }
  }

  /** Marks that keys taken up to `createdAt` may be held in the store but not here. */
  dropped(createdAt: number): void {
    if (createdAt > this.droppedThrough) this.droppedThrough = createdAt
  }

  /** Whether the key is held at `now` (taken at most 24 hours before), free, or only the store knows. */
  state(accountId: string, key: string, now: number): KeyState {
    const since = now - IDEMPOTENCY_RETENTION_MS
    const at = this.held.get(idOf(accountId, key))
    if (at !== undefined && at >= since) return "held"
    return this.droppedThrough >= since ? "ask-store" : "free"
  }

  /** Drops the keys older than 24 hours at `now`; how many. */
  purge(now: number): number {
    const since = now - IDEMPOTENCY_RETENTION_MS
    let purged = 0
    for (const [id, at] of this.held) {
      if (at < since) {
        this.held.delete(id)
        purged++
      }
    }
    return purged
  }

  get size(): number {
    return this.held.size
  }
}
