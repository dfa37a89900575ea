// A door over a test database and an Intel built from MarketEvents: the pipeline is fed the events,
// its changes persisted (named_trades, trader_positions, ...), and Intel answers from its memory.
// For the traders and positions door tests; loopback, ephemeral port.
import { Effect, Layer, ManagedRuntime } from "effect"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Intel, type IntelService } from "../../src/intel/live.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import { marketCall, marketFigures, winningPositionRows } from "../../src/intel/views.js"
import { Health } from "../../src/operations/health.js"
import type { AnyOperation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { persistIntel } from "../../src/store/intel.js"
import type { Keys } from "../../src/store/keys.js"
import { TestDb } from "../support/db.js"

export const intelOf = (pipeline: IntelPipeline): IntelService => ({
  pipeline,
  now: () => pipeline.now,
  market: (ref) => marketFigures(pipeline, ref),
  marketRefs: () => pipeline.marketRefs(),
  positions: Effect.sync(() => winningPositionRows(pipeline)),
  call: (ref) => Effect.sync(() => marketCall(pipeline, ref)),
  summary: (trader, category, kind) => pipeline.summary(trader, category, kind),
  record: (trader, category, kind) => pipeline.recordRow(trader, category, kind),
  backfill: () => ({ _tag: "done", rows: 0, ms: 0 }),
})

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
  const layer = makeHttpServer(options.operations, { port: 0, host: "127.0.0.1" }).pipe(
    Layer.provide([options.keys, Counters.memory, Health.layer, CursorKey.layer("test-cursor-secret"), Layer.succeed(Intel, intelOf(pipeline))]),
    Layer.provideMerge(TestDb),
    Layer.provide(options.clock ?? Layer.empty),
    Layer.provide(options.extra ?? Layer.empty),
  ) as Layer.Layer<import("@effect/platform").HttpServer.HttpServer>
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(persistIntel(pipeline.takeChanges(), pipeline.takePositionChanges()).pipe(Effect.orDie) as Effect.Effect<void>)
  const url = await runtime.runPromise(serverUrl)
  return { url, pipeline, close: () => runtime.dispose() }
}
