// Who is calling: an API key of an account, with its scopes. Produced by authentication, read by doors
// and operations (ownership, scopes, per-key limits).
import { Schema } from "effect"
import { Scope } from "./enums.js"

export const Principal = Schema.Struct({
  keyId: Schema.String,
  accountId: Schema.String,
  accountName: Schema.String,
  scopes: Schema.Array(Scope),
  subscriptionActive: Schema.Boolean,
})
export type Principal = typeof Principal.Type
