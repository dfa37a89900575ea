// A paper-trading server for tests and the bench: the two paper operations on the HTTP door, over a
// real MarketRegistry fed by builder events (so books, statuses and settlements are the actors' own),
// the real accounts layer, and the suite's database. In-memory keys (or, with `keys: "store"`, the
// stored keys of KeysLive, made with `createKey`); counters in process.
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { Accounts, type AccountsOptions, makeAccountsLayer } from "../../src/actors/accounts/registry.js"
import { MarketBus, Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import type { Principal } from "../../src/domain/principal.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { getPaperAccount } from "../../src/operations/paper.js"
import { owned } from "../../src/operations/owned.js"
import { placePaperOrder } from "../../src/operations/paper-orders.js"
import { placePaperOrderV1 } from "../../src/operations/v1-aliases.js"
import { IntelBus } from "../../src/intel/intel-bus.js"
import { Counters } from "../../src/store/counters.js"
import { makeWebhooksLayer } from "../../src/webhooks/deliverer.js"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { WriteFence, type WriteFenceService } from "../../src/actors/write-fence.js"
import { TestDb } from "../support/db.js"
import { memoryKeys } from "../support/memory-keys.js"

export interface PaperServer {
  readonly url: string
  /** Feeds events to the market registry (listings, books, settlements), as one batch. */
  readonly feed: (...events: ReadonlyArray<FeedEvent>) => void
  readonly sql: <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) => Promise<ReadonlyArray<A>>
  /** A new server on the same database and markets (a restart: accounts rebuilt from the store). */
  readonly restart: () => Promise<PaperServer>
  /** A key stored in the database for the account named `account` (with `keys: "store"`). */
  readonly createKey: (account: string) => Promise<string>
  /** Runs an effect with the server's Accounts (bots' fills, in-progress marks). */
  readonly accounts: <A>(f: (accounts: Accounts["Type"]) => Effect.Effect<A> | A) => Promise<A>
  readonly close: () => Promise<void>
}

export const startPaperServer = async (
  tokens: Readonly<Record<string, Principal>>,
  options: {
    readonly counters?: Layer.Layer<Counters>
    readonly keys?: "memory" | "store"
    /** More operations on the same door, needing nothing (the bench's door-only route). */
    readonly operations?: ReadonlyArray<Operation<any, any, never>>
    /** The accounts layer's options (every start, restarts included). */
    readonly accounts?: AccountsOptions
    /** With the webhooks layer under the accounts, as the service runs (every order goes to its outbox writer). */
    readonly webhooks?: boolean
    /** The accounts' write fence, as the paper lease gives it (none: no check). */
    readonly fence?: WriteFenceService
  } = {},
): Promise<PaperServer> => {
  const dbRuntime = ManagedRuntime.make(TestDb)
  const db = await dbRuntime.runtime()
  const dbLayer = Layer.succeedContext(db.context)
  const bus = await Effect.runPromise(PubSub.sliding<MarketEvent>(MarketBus.capacity))
  const registry = new MarketRegistry((e) => void bus.unsafeOffer(e))
  const shared = Layer.mergeAll(dbLayer, Layer.succeed(MarketBus, bus), Layer.succeed(Markets, marketsOf(registry)))
  let current: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined

  const serve = async (): Promise<PaperServer> => {
    // The records as the registry serves them (`owned`: with no lease here, they run in this process).
    const layer = makeHttpServer([owned(placePaperOrder), owned(getPaperAccount), owned(placePaperOrderV1), ...(options.operations ?? [])], { port: 0, host: "127.0.0.1" }).pipe(
      Layer.provideMerge(makeAccountsLayer(options.accounts)),
      Layer.provide(options.fence === undefined ? Layer.empty : Layer.succeed(WriteFence, options.fence)),
      Layer.provide(options.webhooks === true ? makeWebhooksLayer().pipe(Layer.provide(IntelBus.layer)) : Layer.empty),
      Layer.provide([options.keys === "store" ? KeysLive : memoryKeys(tokens), options.counters ?? Counters.memory, Health.layer, CursorKey.layer("paper-cursor-secret")]),
      Layer.provide(shared),
    )
    const runtime = ManagedRuntime.make(layer)
    current = runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>
    const url = await runtime.runPromise(serverUrl)
    return {
      url,
      feed: (...events) => registry.deliver(events),
      accounts: (f) => runtime.runPromise(Effect.flatMap(Accounts, (a) => {
        const out = f(a)
        return Effect.isEffect(out) ? out : Effect.succeed(out)
      })),
      createKey: (account) =>
        Effect.runPromise(Effect.flatMap(Keys, (keys) => keys.create({ account, scopes: ["read", "write"], subscription: true })).pipe(
          Effect.map((created) => created.key),
          Effect.provide(KeysLive.pipe(Layer.provide(dbLayer))),
        )),
      sql: (query) => Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => query(sql)).pipe(Effect.provide(dbLayer), Effect.orDie)),
      restart: async () => {
        await runtime.dispose()
        return serve()
      },
      close: async () => {
        await current?.dispose()
        registry.stop()
        await dbRuntime.dispose()
      },
    }
  }
  return serve()
}
