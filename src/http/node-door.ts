// The node door: POST /internal/operations/<name>, where the holder of the paper lease runs the `owned`
// operations other nodes send it (src/nodes/paper-lease.ts forwards them). It is a door for nodes, not
// users: a call is taken only with the signature of the nodes' shared secret, carries the caller the
// sending node authenticated (that node counted the request), and is answered in the wire's shapes
// (src/nodes/wire.ts), never the user envelope. An HttpApi-level middleware, like the MCP door.
//
// - A body signed for another operation, sent more than a minute from this node's clock, or taken
//   before (its nonce): 401, and nothing runs (src/nodes/wire.ts, ReplayGuard).
// - Not the holder (any more): `not-holder`, and nothing runs.
// - The operation's extra charges (includes) are made by the sending node: a charge past what it has
//   paid answers `charge` with the units needed, and the call runs again when they are paid. An
//   operation charges before it changes anything, so the run that answered `charge` changed nothing.
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse, type HttpApp, type HttpRouter } from "@effect/platform"
import { Cause, Clock, Effect, Exit, type Layer, Option, Schema } from "effect"
import { API_ERRORS, Internal, isApiError, NotFound, Unauthorized } from "../domain/errors.js"
import { nodeSecret } from "../nodes/paper-lease.js"
import { ForwardRequest, type ForwardAnswer, NODE_ROUTE, REPLAY_WINDOW_MS, ReplayGuard, SIGNATURE_HEADER, signedBy } from "../nodes/wire.js"
import { type AnyOperation, inputSchema, type OperationContext, type OperationsContext } from "../operations/operation.js"
import { isOwned, PaperOwner } from "../operations/owned.js"
import type { Settings } from "../store/settings.js"
import { errorResponse } from "./envelope.js"

/** An operation charged past what the sending node paid: `units` in all. */
class ChargeNeeded {
  constructor(readonly units: number) {}
}

const encodeError = Schema.encodeSync(Schema.Union(...API_ERRORS))
const decodeRequest = Schema.decodeUnknown(Schema.parseJson(ForwardRequest))

const answer = (body: ForwardAnswer) => HttpServerResponse.unsafeJson(body)

export const nodeMiddleware = <Ops extends ReadonlyArray<AnyOperation>>(operations: Ops) =>
  Effect.gen(function* () {
    const found = yield* Effect.serviceOption(PaperOwner)
    if (Option.isNone(found)) return (app: HttpApp.Default): HttpApp.Default<never, HttpRouter.HttpRouter.Provided> => app
    const owner = found.value
    const secret = yield* nodeSecret
    // The operations' services, as the MCP door takes them: a middleware's requests run in the server's context.
    const services = yield* Effect.context<OperationsContext<Ops>>()
    const byName = new Map(operations.filter(isOwned).map((op) => [op.name, op] as const))
    const replays = new ReplayGuard()

    const serve = (request: HttpServerRequest.HttpServerRequest) => Effect.gen(function* () {
      const text = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
      const signature = request.headers[SIGNATURE_HEADER]
      if (signature === undefined || !signedBy(secret, text, signature)) {
        return errorResponse(new Unauthorized({ error: "Only the service's own nodes may call /internal routes" }))
      }
      const name = decodeURIComponent(request.url.slice(NODE_ROUTE.length).split("?")[0] ?? "")
      const op = byName.get(name)
      if (op === undefined) return errorResponse(new NotFound({ error: `No forwarded operation is named ${name}` }))
      const call = yield* decodeRequest(text).pipe(Effect.orDie)
      if (call.operation !== name) {
        return errorResponse(new Unauthorized({ error: `This call was signed for ${call.operation}, not ${name}` }))
      }
      const admitted = replays.admit(call.nonce, call.sentAt, yield* Clock.currentTimeMillis)
      if (admitted === "stale") {
        return errorResponse(new Unauthorized({
          error: `This call was signed at ${call.sentAt} ms (Unix time), more than ${REPLAY_WINDOW_MS / 1000} s from this node's clock: ` +
            "the nodes' clocks disagree, or the call is replayed",
        }))
      }
      if (admitted === "replayed") return errorResponse(new Unauthorized({ error: "This call was taken before (its nonce is spent)" }))
      const input = yield* Schema.decodeUnknown(inputSchema(op.input))(call.input).pipe(Effect.orDie)
      const headers: Array<readonly [string, string]> = []
      let charged = 0
      const ctx: OperationContext = {
        principal: call.principal,
        charge: (units) => Effect.suspend(() => {
          if (units <= 0) return Effect.void
          if (charged + units > call.prepaid) return Effect.die(new ChargeNeeded(charged + units))
          charged += units
          return Effect.void
        }),
        setHeader: (header, value) => Effect.sync(() => void headers.push([header.toLowerCase(), value])),
      }
      const ran = yield* owner.runHere(Effect.exit(Effect.provide(op.local(input, ctx), services)))
      if (Option.isNone(ran)) return answer({ outcome: "not-holder" })
      const exit = ran.value
      if (Exit.isSuccess(exit)) {
        return answer({ outcome: "done", output: yield* Schema.encode(op.output)(exit.value).pipe(Effect.orDie), headers })
      }
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure) && isApiError(failure.value)) return answer({ outcome: "failed", error: encodeError(failure.value), headers })
      const defect = Option.getOrUndefined(Cause.dieOption(exit.cause))
      if (defect instanceof ChargeNeeded) return answer({ outcome: "charge", units: defect.units })
      return yield* Effect.failCause(exit.cause)
    }).pipe(
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
        return Effect.as(
          Effect.logError(`${request.method} ${request.url} failed`, cause),
          answer({ outcome: "failed", error: encodeError(new Internal({ error: "Internal error" })), headers: [] }),
        )
      }),
    )

    return (app: HttpApp.Default): HttpApp.Default<never, HttpRouter.HttpRouter.Provided> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        request.method === "POST" && request.url.startsWith(NODE_ROUTE) ? serve(request) : app)
  })

/**
 * The door as a layer for `makeHttpServer(ops, listen, doors)`. It serves only where a PaperOwner is
 * (`serve` with DATABASE_URL: the paper lease); elsewhere every request passes through.
 */
export const makeNodeDoor = <Ops extends ReadonlyArray<AnyOperation>>(
  operations: Ops,
): Layer.Layer<never, never, Settings | OperationsContext<Ops>> =>
  HttpApiBuilder.middleware(nodeMiddleware(operations))
