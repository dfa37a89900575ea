// The check the paper actors make at each write that moves money or a bot's state: where nodes share a
// lease (src/nodes/paper-lease.ts), a node writes them only as the lease's holder. Two checks, both needed:
//
// - Here, by this node's Clock: the lease was taken or renewed less than two thirds of its time ago. A
//   holder frozen past its lease (a stopped process, a paused VM) wakes with its timers overdue and its
//   queues full, and refuses what it had queued before its keeper has run.
// - In the store, in the write's own transaction: the lease row still names this node at this epoch,
//   locked FOR SHARE until the write commits (Leases.hold). A node taking the lease over must update
//   that row, so it waits for every write in flight, and once it has taken it no write of the old epoch
//   commits. The Clock check alone bounds nothing when clocks run at different rates; this one does not
//   depend on time at all.
//
// Absent (one node, tests), nothing is checked.
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Option } from "effect"
import { LeaseLost, type LeaseToken, Leases, lostMessage } from "../store/leases.js"

export { LeaseLost }

export interface WriteFenceService {
  /** The lease as this node holds it, while it is surely its own by this node's Clock; LeaseLost otherwise. */
  readonly token: Effect.Effect<LeaseToken, LeaseLost>
}

export class WriteFence extends Context.Tag("whalewatch/WriteFence")<WriteFence, WriteFenceService>() {}

/** A write and its transaction, fenced: what every write of the paper actors goes through. */
export type Fenced = <A, E, R>(write: Effect.Effect<A, E, R>) => Effect.Effect<A, E | LeaseLost | SqlError.SqlError, R | SqlClient.SqlClient>

/**
 * `write` in a transaction that first holds the lease at this node's epoch (where there is a fence); it
 * fails LeaseLost, writing nothing, when this node may not write.
 */
export const fencedTransaction: Effect.Effect<Fenced> = Effect.map(Effect.serviceOption(WriteFence), (fence): Fenced =>
  <A, E, R>(write: Effect.Effect<A, E, R>) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Option.isNone(fence)
        ? sql.withTransaction(write)
        : Effect.flatMap(fence.value.token, (token) =>
          sql.withTransaction(Effect.zipRight(
            Effect.flatMap(Effect.orDie(Leases.hold(token)), (held) =>
              held ? Effect.void : Effect.fail(new LeaseLost({ message: lostMessage(token) }))),
            write,
          )))))

/** The lease each write is to be checked against in the store, or none (no fence). */
export const writeFenceToken: Effect.Effect<Option.Option<Effect.Effect<LeaseToken, LeaseLost>>> = Effect.map(
  Effect.serviceOption(WriteFence),
  Option.map((fence) => fence.token),
)
