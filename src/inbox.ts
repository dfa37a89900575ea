// An inbox for one consumer fiber: producers add items without waiting, the consumer sleeps until there is
// something and then takes what is there. Items sit in a plain array that the consumer takes whole, not in
// an Effect Queue: a Queue keeps its items in linked nodes, and a node taken off keeps pointing at the next
// one, so once any node had been promoted to the old generation (an item in flight at a scavenge) every
// later node, and what each one held, was kept alive by the one before it through the next scavenge and
// promoted in turn, to die in old space (README: "What a young-generation GC keeps").
import { Effect } from "effect"

export interface Inbox<A> {
  /** Adds an item; never waits. */
  readonly offer: (item: A) => void
  /** Items waiting. */
  readonly size: () => number
  /**
   * Ends when at least one item is waiting (at once when one is). Interruptible; it takes nothing, so an
   * interruption here loses no item.
   */
  readonly ready: Effect.Effect<void>
  /**
   * The oldest items waiting, `max` at most, in the order they came (empty when none). Synchronous: the
   * consumer takes and handles a batch in one step that nothing interrupts between the two.
   */
  readonly take: (max: number) => ReadonlyArray<A>
}

export const makeInbox = <A>(): Inbox<A> => {
  let items: Array<A> = []
  let wake: (() => void) | null = null
  return {
    offer: (item) => {
      items.push(item)
      if (wake !== null) wake()
    },
    size: () => items.length,
    ready: Effect.async<void>((resume) => {
      if (items.length > 0) return resume(Effect.void)
      wake = () => {
        wake = null
        resume(Effect.void)
      }
      return Effect.sync(() => {
        wake = null
      })
    }),
    take: (max) => {
      if (items.length <= max) {
        const all = items
        items = []
        return all
      }
      return items.splice(0, max)
    },
  }
}
