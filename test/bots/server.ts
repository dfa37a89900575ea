// A server with only the bot operations, the real Bots layer over a TestDb, and markets from a real
// MarketRegistry the test feeds (books for fills; its market events go on to the bots' OrderedFeed, as
// IntelLive passes them on), plus `extra` operations. Keys are in memory: `write` and `read` of account A,
// `other` of account B. `known(ref, name)` stores a named trade so a trader exists.
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "@effect/sql"
import { Bots, makeBotsLayer, type BotsService } from "../../src/actors/bots/bots-live.js"
import { WriteFence, type WriteFenceService } from "../../src/actors/write-fence.js"
import { Markets, marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { carriedInOrder, OrderedFeed } from "../../src/intel/intel-bus.js"
import { createBot, deleteBot, getBot, listBots, updateBot } from "../../src/operations/bots.js"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { type AccountFact, WebhookSink } from "../../src/webhooks/sink.js"
import { TestDb } from "../support/db.js"
import { call } from "../support/http-client.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"

export interface BotsServer {
  readonly url: string
  readonly bots: BotsService
  readonly markets: MarketRegistry
  readonly feed: (...batch: ReadonlyArray<FeedEvent>) => void
  readonly known: (ref: string, name: string | null) => Promise<void>
  readonly as: (token: "write" | "read" | "other" | "fresh", path: string, o?: { method?: string; body?: unknown }) => ReturnType<typeof call>
  /** A query on the server's database. */
  readonly sql: <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) => Promise<ReadonlyArray<A>>
  readonly close: () => Promise<void>
}

let trades = 0

export const startBotsServer = async (
  extra: ReadonlyArray<Operation<any, any, any>> = [],
  /** When given, the bots' webhook facts are pushed here (a WebhookSink). */
  facts?: Array<AccountFact>,
  /** The bots' write fence, as the paper lease gives it (none: no check). */
  fence?: WriteFenceService,
): Promise<BotsServer> => {
  const a = aPrincipal()
  const tokens = {
    write: a, read: { ...a, keyId: `${a.keyId}_r`, scopes: ["read" as const] }, other: aPrincipal(), fresh: aPrincipal(),
  }
  let publish: (e: MarketEvent) => void = () => {}
  const markets = new MarketRegistry((e) => publish(e))
  const sink = facts === undefined ? Layer.empty : Layer.succeed(WebhookSink, { publish: (f) => void facts.push(...f) })
  const fenced = fence === undefined ? Layer.empty : Layer.succeed(WriteFence, fence)
  const base = Layer.mergeAll(Layer.succeed(Markets, marketsOf(markets)), OrderedFeed.layer, sink, fenced)
  const botsLayer = makeBotsLayer({ flushEveryMs: 50 }).pipe(Layer.provideMerge(base))
  const layer = makeHttpServer([createBot, listBots, getBot, updateBot, deleteBot, ...extra] as ReadonlyArray<Operation<any, any, never>>, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([memoryKeys(tokens), Counters.memory, Health.layer, CursorKey.layer("bots-cursor")]),
    Layer.provideMerge(botsLayer),
    Layer.provideMerge(TestDb),
  )
  const runtime = ManagedRuntime.make(layer)
  const url = await runtime.runPromise(serverUrl)
  const bots = await runtime.runPromise(Bots)
  const ordered = await runtime.runPromise(OrderedFeed)
  publish = (e) => {
    if (carriedInOrder(e)) ordered.unsafeOffer(e)
  }
  return {
    url, bots, markets,
    feed: (...batch) => {
      markets.deliver(batch)
    },
    known: (ref, name) =>
      runtime.runPromise(Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const n = ++trades
        yield* sql`
          INSERT INTO named_trades (id, seq, trade_id, time_ms, venue, trader, trader_name, market, contract, outcome, outcome_label,
            action, price, usd, contracts, whale, result)
          VALUES (${`nt${n}`}, ${n}, ${`t${n}`}, ${n}, ${ref.slice(0, ref.indexOf(":"))}, ${ref}, ${name}, 'venue_a:M', 'venue_a:M',
            'Yes', 'Yes', 'buy', 0.5, 100, 200, false, 'open')`
      }).pipe(Effect.orDie)),
    as: (token, path, o = {}) => call(url, path, { token, ...o }),
    sql: (query) => runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie)),
    close: () => runtime.dispose(),
  }
}
