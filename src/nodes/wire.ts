// What one node sends another to run an operation there (the paper lease's forwarding): the request and
// answer bodies of POST /internal/operations/<name>, and the signature that proves a node sent it. The
// nodes share a secret through the store (Settings, "nodes"); nothing else can call the route.
//
// A signed body names its operation, the time it was sent and a nonce, all under the signature: it runs
// that operation only, within REPLAY_WINDOW_MS of the receiving node's clock, and once (ReplayGuard). A
// body copied off the wire can be sent neither again nor to another operation (a signed getBot's
// `{id}` is also a deleteBot's input).
import { createHmac, timingSafeEqual } from "node:crypto"
import { Schema } from "effect"
import { Principal } from "../domain/principal.js"

export const NODE_ROUTE = "/internal/operations/"
export const SIGNATURE_HEADER = "x-whalewatch-node"

/** How far a call's `sentAt` may be from the receiving node's clock (the nodes' clocks must agree that well). */
export const REPLAY_WINDOW_MS = 60_000

export const ForwardRequest = Schema.Struct({
  /** The operation to run: the route's own name must match it. */
  operation: Schema.String,
  /** When the sending node sent it (its Clock, epoch ms). */
  sentAt: Schema.Number,
  /** Fresh for every call sent (a retry is a new call). */
  nonce: Schema.String.pipe(Schema.minLength(16), Schema.maxLength(64)),
  /** The caller as the forwarding node authenticated it. */
  principal: Principal,
  /** The operation's input, encoded with its input Schema. */
  input: Schema.Unknown,
  /** Units the forwarding node has already charged for this call (answers to `charge`). */
  prepaid: Schema.Int,
})
export type ForwardRequest = typeof ForwardRequest.Type

const Headers = Schema.Array(Schema.Tuple(Schema.String, Schema.String))

export const ForwardAnswer = Schema.Union(
  /** The output, encoded with the operation's output Schema, and the headers it set. */
  Schema.Struct({ outcome: Schema.Literal("done"), output: Schema.Unknown, headers: Headers }),
  /** Its ApiError (`_tag`, `error`, `retryAfter` for QUOTA_EXCEEDED). */
  Schema.Struct({ outcome: Schema.Literal("failed"), error: Schema.Unknown, headers: Headers }),
  /** It charges more than `prepaid`: charge `units` more where the caller is, then send it again. */
  Schema.Struct({ outcome: Schema.Literal("charge"), units: Schema.Int }),
  /** This node does not hold the lease (any more): ask the store who does. */
  Schema.Struct({ outcome: Schema.Literal("not-holder") }),
)
export type ForwardAnswer = typeof ForwardAnswer.Type

/** The signature of a request body: HMAC-SHA256 under the nodes' shared secret, hex. */
export const sign = (secret: Uint8Array, body: string): string => createHmac("sha256", secret).update(body).digest("hex")

export const signedBy = (secret: Uint8Array, body: string, signature: string): boolean => {
  const expected = Buffer.from(sign(secret, body), "hex")
  const given = Buffer.from(signature, "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * The calls a node has taken lately, by nonce: one is taken when its `sentAt` is within REPLAY_WINDOW_MS
 * of `now` and its nonce was not taken before. A nonce is remembered for at least twice the window (two
 * generations, the older dropped every two windows), longer than any `sentAt` it came with stays
 * acceptable (a sender's clock up to one window ahead included).
 */
export class ReplayGuard {
  private current = new Set<string>()
  private previous = new Set<string>()
  private rotatedAt: number | null = null

  constructor(private readonly windowMs: number = REPLAY_WINDOW_MS) {}

  admit(nonce: string, sentAt: number, now: number): "taken" | "stale" | "replayed" {
    if (this.rotatedAt === null) this.rotatedAt = now
    if (now - this.rotatedAt >= 2 * this.windowMs) {
      this.previous = this.current
      this.current = new Set()
      this.rotatedAt = now
    }
    if (!(Math.abs(now - sentAt) <= this.windowMs)) return "stale"
    if (this.current.has(nonce) || this.previous.has(nonce)) return "replayed"
    this.current.add(nonce)
    return "taken"
  }
}
