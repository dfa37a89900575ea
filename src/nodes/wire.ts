// What one node sends another to run an operation there (the paper lease's forwarding): the request and
// answer bodies of POST /internal/operations/<name>, and the signature that proves a node sent it. The
// nodes share a secret through the store (Settings, "nodes"); nothing else can call the route.
import { createHmac, timingSafeEqual } from "node:crypto"
import { Schema } from "effect"
import { Principal } from "../domain/principal.js"

export const NODE_ROUTE = "/internal/operations/"
export const SIGNATURE_HEADER = "x-whalewatch-node"

export const ForwardRequest = Schema.Struct({
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
