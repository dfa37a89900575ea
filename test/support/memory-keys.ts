// An in-memory Keys service for door tests: tokens map to principals; no database.
import { Effect, Layer, Option } from "effect"
import type { Principal } from "../../src/domain/principal.js"
import { Keys } from "../../src/store/keys.js"

let seq = 0

/** A principal with both scopes and an active subscription, unless overridden. */
export const aPrincipal = (overrides: Partial<Principal> = {}): Principal => {
  seq += 1
  return {
    keyId: `key_${process.pid}_${Date.now().toString(36)}_${seq}`,
    accountId: `acct_${seq}`,
    accountName: `account ${seq}`,
    scopes: ["read", "write"],
    subscriptionActive: true,
    ...overrides,
  }
}

export const memoryKeys = (tokens: Readonly<Record<string, Principal>>): Layer.Layer<Keys> =>
  Layer.succeed(Keys, {
    authenticate: (token) => Effect.succeed(Option.fromNullable(tokens[token])),
    create: () => Effect.dieMessage("memoryKeys.create is not implemented"),
    list: () => Effect.succeed([]),
    revoke: () => Effect.succeed(false),
  })
