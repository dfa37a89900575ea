import { describe, expect, it } from "vitest"
import type { PaperOrder } from "../../domain/paper.js"
import { IDEMPOTENCY_RETENTION_MS } from "../../store/paper.js"
import { KeyIndex } from "./key-index.js"

const orderNamed = (id: string): PaperOrder => ({
  id, market: { ref: "venue_a:K", contract: "venue_a:K", title: "K", venue: "venue_a", category: null, kind: null },
  outcome: "Yes", action: "buy", contracts: 1, avgPrice: 0.5, cost: 0.5, unfilledContracts: 0, filledAt: "2026-01-01T00:00:00.000Z",
})
const held = (accountId: string, key: string, createdAt: number, requestHash = "h") =>
  ({ accountId, key, requestHash, response: orderNamed(`${accountId}/${key}`), createdAt })

describe("KeyIndex", () => {
  it("finds a key per account while it is at most 24 hours old, not one millisecond later", () => {
    const keys = new KeyIndex()
    keys.remember(held("a", "k", 1_000))
    expect(keys.find("a", "k", 1_000 + IDEMPOTENCY_RETENTION_MS)).toMatchObject({ requestHash: "h", response: { id: "a/k" } })
    expect(keys.find("a", "k", 1_001 + IDEMPOTENCY_RETENTION_MS)).toBeNull()
    expect(keys.find("b", "k", 1_000)).toBeNull()
    expect(keys.find("a", "other", 1_000)).toBeNull()
  })

  it("a key recorded again after it expired replaces the old one", () => {
    const keys = new KeyIndex()
    keys.remember(held("a", "k", 0, "old"))
    keys.remember(held("a", "k", IDEMPOTENCY_RETENTION_MS + 5, "new"))
    expect(keys.find("a", "k", IDEMPOTENCY_RETENTION_MS + 5)?.requestHash).toBe("new")
  })

  it("purge drops exactly the expired keys", () => {
    const keys = new KeyIndex()
    keys.remember(held("a", "old", 0))
    keys.remember(held("a", "edge", 10))
    keys.remember(held("b", "new", 20))
    expect(keys.purge(10 + IDEMPOTENCY_RETENTION_MS)).toBe(1)
    expect(keys.size).toBe(2)
    expect(keys.find("a", "edge", 10 + IDEMPOTENCY_RETENTION_MS)).not.toBeNull()
  })
})
