// Kalshi sequence tracking: `seq` counts per subscription (`sid`), shared by every market in it; a
// gap means that subscription's books are untrusted and must be re-snapshotted. Pure bookkeeping
// (no I/O, no clock): the socket owns one tracker per connection and decides what a gap costs.
import { isRecord } from "../wire.js"

export type SequenceVerdict =
  | { readonly _tag: "first" }
  | { readonly _tag: "ok" }
  | { readonly _tag: "gap"; readonly expected: number; readonly got: number }

const FIRST: SequenceVerdict = { _tag: "first" }
const OK: SequenceVerdict = { _tag: "ok" }

export class SequenceTracker {
  private readonly last = new Map<number, number>()

  /**
   * Records `seq` for `sid` and says whether it follows the previous one. After a gap the tracker
   * re-baselines on `got`, so the frames after a resync's snapshot check out as `ok` again.
   * A repeated or older `seq` is a gap too (`got` < `expected`).
   */
  check(sid: number, seq: number): SequenceVerdict {
    const previous = this.last.get(sid)
    this.last.set(sid, seq)
    if (previous === undefined) return FIRST
    const expected = previous + 1
    return seq === expected ? OK : { _tag: "gap", expected, got: seq }
  }

  /** Forgets a subscription (unsubscribed, or resubscribing): its next `seq` is `first`. */
  forget(sid: number): void {
    this.last.delete(sid)
  }

  /** Forgets everything (new connection: sids restart). */
  reset(): void {
    this.last.clear()
  }
}

/** The envelope's `sid` and `seq` when both are integers (sequenced channels), else null. */
export const sequenceOf = (frame: unknown): { readonly sid: number; readonly seq: number } | null => {
  if (!isRecord(frame)) return null
  const sid = frame["sid"]
  const seq = frame["seq"]
  return typeof sid === "number" && Number.isInteger(sid) && typeof seq === "number" && Number.isInteger(seq)
    ? { sid, seq }
    : null
}
