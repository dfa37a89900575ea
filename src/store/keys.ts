// API keys and accounts: the service interface. The PostgreSQL implementation (`KeysLive`) stores
// only a hash of each key, compares in constant time, and never widens scopes on an existing key.
import { Context, type Effect, type Option } from "effect"
import type { Scope } from "../domain/enums.js"
import type { Principal } from "../domain/principal.js"

export interface CreatedKey {
  /** The key value, shown once. */
  readonly key: string
  readonly keyId: string
  readonly account: string
  readonly scopes: ReadonlyArray<Scope>
}

export interface KeyListing {
  readonly keyId: string
  readonly account: string
  readonly scopes: ReadonlyArray<Scope>
  readonly subscriptionActive: boolean
  readonly createdAt: string
  readonly revokedAt: string | null
}

export class Keys extends Context.Tag("whalewatch/Keys")<Keys, {
  /** The key's principal, or none when the token is unknown or revoked. */
  readonly authenticate: (token: string) => Effect.Effect<Option.Option<Principal>>
  readonly create: (input: {
    readonly account: string
    readonly scopes: ReadonlyArray<Scope>
    readonly subscription: boolean
  }) => Effect.Effect<CreatedKey>
  readonly list: () => Effect.Effect<ReadonlyArray<KeyListing>>
  /** True when a live key was revoked. */
  readonly revoke: (keyId: string) => Effect.Effect<boolean>
}>() {}
