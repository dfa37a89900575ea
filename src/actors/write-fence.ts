// The check the paper actors make before each write that moves money or a bot's state: where nodes share
// a lease (src/nodes/paper-lease.ts), a node may write them only while its lease is surely its own. A
// holder frozen past its lease (a stopped process, a paused VM) wakes with its timers overdue and its
// queues full; without this, what it had queued could be written after another node took over, before
// its own renewal found the lease gone. Absent (one node, tests), nothing is checked.
import { Context, Effect, Option } from "effect"

export interface WriteFenceService {
  /** Dies, writing nothing, when this node may no longer write the paper actors' state. */
  readonly check: Effect.Effect<void>
}

export class WriteFence extends Context.Tag("whalewatch/WriteFence")<WriteFence, WriteFenceService>() {}

/** The fence of the running actors, or no check at all. */
export const writeFence: Effect.Effect<Effect.Effect<void>> = Effect.map(
  Effect.serviceOption(WriteFence),
  Option.match({ onNone: () => Effect.void, onSome: (fence) => fence.check }),
)
