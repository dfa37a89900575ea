// The stored backfill time moves on with the live feed (the crash audit: a restart re-read everything since
// the previous start), but never past a venue's drop after the hand-over: that gap is the next start's.
import { describe, expect, it } from "vitest"
import { liveProgress, PROGRESS_LAG_MS } from "./live.js"

describe("liveProgress", () => {
  const handedOverAt = 1_000_000
  const at = handedOverAt + 3_600_000

  it("moves every unbroken venue to PROGRESS_LAG_MS before the flush", () => {
    expect(liveProgress(["venue_a", "venue_b"], handedOverAt, at, () => null)).toEqual([
      ["venue_a", at - PROGRESS_LAG_MS], ["venue_b", at - PROGRESS_LAG_MS],
    ])
  })

  it("a drop before the hand-over does not hold a venue back", () => {
    expect(liveProgress(["venue_a"], handedOverAt, at, () => handedOverAt - 1)).toEqual([["venue_a", at - PROGRESS_LAG_MS]])
  })

  it("a venue that dropped after the hand-over stays before its drop", () => {
    const dropped = handedOverAt + 60_000
    expect(liveProgress(["venue_a", "venue_d"], handedOverAt, at, (v) => (v === "venue_d" ? dropped : null))).toEqual([
      ["venue_a", at - PROGRESS_LAG_MS], ["venue_d", dropped - PROGRESS_LAG_MS],
    ])
  })
})
