// Operations on the paper accounts and bots run where those actors live: on the node that holds the
// "paper" lease (ARCHITECTURE, Scale: each bot and account actor is owned by exactly one node). An
// `owned` record runs its handler here when this node holds the lease, or when there is no lease at all
// (one node: the embedded default, tests); otherwise it hands the call to the holder (`PaperOwner.forward`)
// and answers with what the holder answered. Every door gets this from the record, so REST and MCP agree.
import { Context, Effect, Option } from "effect"
import type { ApiError } from "../domain/errors.js"
import type { Operation, OperationContext } from "./operation.js"

export interface PaperOwnerService {
  /**
   * True while this node holds the paper lease (its bots and accounts run here) and it is surely still its
   * own; false on a holder frozen past its lease until it has renewed it.
   */
  readonly holds: Effect.Effect<boolean>
  /**
   * Runs `self` here when this node holds the lease (as `holds` says), keeping the actors running until
   * it ends: a node that stops holding waits for what runs here before it closes them. None, without
   * running it, when this node does not hold the lease.
   */
  readonly runHere: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Option.Option<A>, E, R>
  /**
   * Runs the operation named `op.name` on the holder with this input and caller, and gives its output
   * (decoded with `op.output`) or its ApiError; the holder's extra charges go through `ctx.charge` here,
   * and the headers it set through `ctx.setHeader`. `local` is the call run here, for when this node
   * has become the holder meanwhile.
   */
  readonly forward: <I, O>(op: Operation<I, O, any>, input: I, ctx: OperationContext, local: Effect.Effect<O, ApiError>) => Effect.Effect<O, ApiError>
}

/** Present only where nodes share a lease (DATABASE_URL, `serve`): its absence means "this node owns everything". */
export class PaperOwner extends Context.Tag("whalewatch/PaperOwner")<PaperOwner, PaperOwnerService>() {}

/** A record whose handler needs the paper actors; `local` is its handler run here, for the holder's door. */
export type Owned<I, O, R> = Operation<I, O, R> & {
  readonly owner: "paper"
  readonly local: Operation<I, O, R>["run"]
}

export const owned = <I, O, R>(op: Operation<I, O, R>): Owned<I, O, R> => ({
  ...op,
  owner: "paper",
  local: op.run,
  run: (input, ctx) =>
    Effect.flatMap(Effect.serviceOption(PaperOwner), (owner) => {
      if (Option.isNone(owner)) return op.run(input, ctx)
      return Effect.flatMap(owner.value.runHere(op.run(input, ctx)), Option.match({
        onSome: Effect.succeed,
        onNone: () => Effect.flatMap(Effect.context<R>(), (context) => owner.value.forward(op, input, ctx, Effect.provide(op.run(input, ctx), context))),
      }))
    }),
})

export const isOwned = (op: Operation<any, any, any>): op is Owned<any, any, any> => "owner" in op && op.owner === "paper"
