// A door over a test database and an Intel built from MarketEvents: the pipeline is fed the events,
// its changes persisted (named_trades, trader_positions, ...), and Intel answers from its memory.
// For the traders and positions door tests; loopback, ephemeral port.
import { Effect, Layer, ManagedRuntime } from "effect"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Intel } from "../../src/intel/live.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import { Health } from "../../src/operations/health.js"
import type { AnyOperation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { persistIntel } from "../../src/store/intel.js"
import type { Keys } from "../../src/store/keys.js"
import { TestDb } from "../support/db.js"
import { intelOf } from "../support/intel.js"

export interface IntelServer {
  readonly url: string
  readonly pipeline: IntelPipeline
  readonly close: () => Promise<void>
}

export const startIntelServer = async (options: {
  readonly operations: ReadonlyArray<AnyOperation>
  readonly events: ReadonlyArray<MarketEvent>
  readonly keys: Layer.Layer<Keys>
  readonly clock?: Layer.Layer<never>
  readonly extra?: Layer.Layer<never>
}): Promise<IntelServer> => {
  const pipeline = new IntelPipeline()
  pipeline.applyAll(options.events)
  const intel = intelOf(pipeline)
  const changes = pipeline.takeChanges()
  const layer = makeHttpServer(options.operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([options.keys, Counters.memory, Health.layer, CursorKey.layer("test-cursor-secret"), Layer.succeed(Intel, intel)]),
    Layer.provideMerge(TestDb),
    Layer.provide(options.clock ?? Layer.empty),
    Layer.provide(options.extra ?? Layer.empty),
  ) as Layer.Layer<import("@effect/platform").HttpServer.HttpServer>
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(persistIntel(changes, pipeline.takePositionChanges()).pipe(Effect.orDie) as Effect.Effect<void>)
  intel.trades.upsert(changes.trades)
  const url = await runtime.runPromise(serverUrl)
  return { url, pipeline, close: () => runtime.dispose() }
}
