import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { IDEMPOTENCY_RETENTION_MS } from "../../store/paper.js"
import { KeyIndex } from "./key-index.js"

describe("KeyIndex", () => {
  it("holds a key per account while it is at most 24 hours old, not one millisecond later", () => {
    const keys = new KeyIndex()
    keys.remember("a", "k", 1_000)
    expect(keys.state("a", "k", 1_000 + IDEMPOTENCY_RETENTION_MS)).toBe("held")
    expect(keys.state("a", "k", 1_001 + IDEMPOTENCY_RETENTION_MS)).toBe("free")
    expect(keys.state("b", "k", 1_000)).toBe("free")
    expect(keys.state("a", "other", 1_000)).toBe("free")
  })

  it("a key recorded again after it expired is held from its new time", () => {
    const keys = new KeyIndex()
    keys.remember("a", "k", 0)
    keys.remember("a", "k", IDEMPOTENCY_RETENTION_MS + 5)
    expect(keys.state("a", "k", 2 * IDEMPOTENCY_RETENTION_MS + 5)).toBe("held")
    expect(keys.size).toBe(1)
  })

  it("purge drops exactly the expired keys", () => {
    const keys = new KeyIndex()
    keys.remember("a", "old", 0)
    keys.remember("a", "edge", 10)
    keys.remember("b", "new", 20)
    expect(keys.purge(10 + IDEMPOTENCY_RETENTION_MS)).toBe(1)
    expect(keys.size).toBe(2)
    expect(keys.state("a", "edge", 10 + IDEMPOTENCY_RETENTION_MS)).toBe("held")
  })

  it("holds at most its capacity: past it the oldest key goes, and a key it does not hold is for the store to answer", () => {
    const keys = new KeyIndex(2)
    keys.remember("a", "k1", 100)
    keys.remember("a", "k2", 200)
    expect(keys.state("a", "new", 300)).toBe("free")
    keys.remember("a", "k3", 300)
    expect(keys.size).toBe(2)
    expect(keys.state("a", "k2", 300)).toBe("held")
    expect(keys.state("a", "k3", 300)).toBe("held")
    expect(keys.state("a", "k1", 300)).toBe("ask-store")
    expect(keys.state("b", "never", 300)).toBe("ask-store")
    // Once what was dropped is older than 24 hours, a key not held here is free again.
    expect(keys.state("a", "k1", 100 + IDEMPOTENCY_RETENTION_MS)).toBe("ask-store")
    expect(keys.state("a", "k1", 101 + IDEMPOTENCY_RETENTION_MS)).toBe("free")
    expect(keys.state("a", "k3", 101 + IDEMPOTENCY_RETENTION_MS)).toBe("held")
  })

  it("told that keys were left in the store (a start that loaded only the newest), sends older keys to the store", () => {
    const keys = new KeyIndex(10)
    keys.dropped(500)
    keys.remember("a", "k", 600)
    expect(keys.state("a", "k", 700)).toBe("held")
    expect(keys.state("a", "other", 700)).toBe("ask-store")
    expect(keys.state("a", "other", 501 + IDEMPOTENCY_RETENTION_MS)).toBe("free")
  })

  it("refuses a capacity below one", () => {
    expect(() => new KeyIndex(0)).toThrow(/capacity/)
  })

  it("never answers free for a key held in the last 24 hours, whatever the capacity (property)", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.record({ key: fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), gap: fc.integer({ min: 0, max: IDEMPOTENCY_RETENTION_MS / 2 }) }), { maxLength: 40 }),
      fc.integer({ min: 0, max: IDEMPOTENCY_RETENTION_MS }),
      (capacity, records, after) => {
        const keys = new KeyIndex(capacity)
        const taken = new Map<string, number>()
        let at = 0
        for (const r of records) {
          at += r.gap
          // As the store does: a key is taken again only once it expired.
          const was = taken.get(r.key)
          if (was !== undefined && was >= at - IDEMPOTENCY_RETENTION_MS) continue
          keys.remember("acct", r.key, at)
          taken.set(r.key, at)
        }
        const now = at + after
        for (const key of ["a", "b", "c", "d", "e", "f", "g"]) {
          const was = taken.get(key)
          const state = keys.state("acct", key, now)
          if (was !== undefined && was >= now - IDEMPOTENCY_RETENTION_MS) expect(state).not.toBe("free")
          else expect(state).not.toBe("held")
        }
      },
    ))
  })
})
