// Kalshi sequence tracking against the real trade recording (sid 2: seq 10, then 48 … 56).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { SequenceTracker, sequenceOf } from "./sequence.js"

const REAL = new URL("../../../test/fixtures/feeds/real/", import.meta.url)
const lines = (name: string) => readFileSync(new URL(name, REAL), "utf8").split("\n").filter((l) => l.length > 0)

describe("SequenceTracker", () => {
  it("flags the real 10 → 48 jump as a gap and 48 … 56 as contiguous", () => {
    const tracker = new SequenceTracker()
    const verdicts = lines("ssmd-kalshi_trade.jsonl").map((line) => {
      const at = sequenceOf(JSON.parse(line))
      if (at === null) throw new Error("real trade frame without sid/seq")
      return tracker.check(at.sid, at.seq)
    })
    expect(verdicts[0]).toEqual({ _tag: "first" })
    expect(verdicts[1]).toEqual({ _tag: "gap", expected: 11, got: 48 })
    expect(verdicts.slice(2)).toEqual(Array(8).fill({ _tag: "ok" }))
  })

  it("tracks each sid on its own; a repeat or a step back is a gap; forget and reset restart", () => {
    const tracker = new SequenceTracker()
    expect(tracker.check(1, 1)._tag).toBe("first")
    expect(tracker.check(2, 7)._tag).toBe("first")
    expect(tracker.check(1, 2)._tag).toBe("ok")
    expect(tracker.check(2, 8)._tag).toBe("ok")
    expect(tracker.check(1, 2)).toEqual({ _tag: "gap", expected: 3, got: 2 })
    expect(tracker.check(1, 3)._tag).toBe("ok")
    tracker.forget(1)
    expect(tracker.check(1, 1)._tag).toBe("first")
    tracker.reset()
    expect(tracker.check(2, 1)._tag).toBe("first")
  })

  it("reads sid and seq from envelopes; unsequenced frames give null", () => {
    expect(sequenceOf({ type: "orderbook_delta", sid: 2, seq: 3, msg: {} })).toEqual({ sid: 2, seq: 3 })
    expect(sequenceOf({ type: "ticker", sid: 1, msg: {} })).toBeNull()
    expect(sequenceOf({ type: "trade", sid: "2", seq: 3 })).toBeNull()
    expect(sequenceOf([1, 2])).toBeNull()
    expect(sequenceOf(null)).toBeNull()
  })
})
