// The idempotency keys held now, in memory, on the node that owns the accounts (ARCHITECTURE, Scale:
// one node owns an account at a time): rebuilt from the orders holding keys on start and told of every key
// an order of this node records, so a keyed order looks its key up without a store round trip. It is
// the store's copy, never ahead of it: a key enters only once its order is durable. A key another node
// recorded (an ownership change in flight) is not here; the order placed with it here is then left out of
// the group commit by the key's unique index and answered from the store (src/operations/paper-orders.ts).
import { IDEMPOTENCY_RETENTION_MS, type HeldKey, type StoredKey } from "../../store/paper.js"

const idOf = (accountId: string, key: string): string => `${accountId}\u0000${key}`

export class KeyIndex {
  private readonly held = new Map<string, HeldKey>()

  /** Holds `key` from `createdAt` (a later record of the same key, after it expired, replaces it). */
  remember(key: HeldKey): void {
    this.held.set(idOf(key.accountId, key.key), key)
  }

  /** The key's first result while it is younger than 24 hours at `now`; else null. */
  find(accountId: string, key: string, now: number): StoredKey | null {
    const held = this.held.get(idOf(accountId, key))
    return held === undefined || held.createdAt < now - IDEMPOTENCY_RETENTION_MS ? null : held
  }

  /** Drops the keys older than 24 hours at `now`; how many. */
  purge(now: number): number {
    let dropped = 0
    for (const [id, held] of this.held) {
      if (held.createdAt < now - IDEMPOTENCY_RETENTION_MS) {
        this.held.delete(id)
        dropped++
      }
    }
    return dropped
  }

  get size(): number {
    return this.held.size
  }
}
