// Starts the HTTP door on 127.0.0.1 with an ephemeral port for a test or a bench, with in-memory Keys
// and (unless given) in-process Counters.
import { Layer, ManagedRuntime } from "effect"
import { Health } from "../../src/operations/health.js"
import type { Operation } from "../../src/operations/operation.js"
import { CursorKey } from "../../src/operations/paging.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { makeMcpDoor } from "../../src/mcp/door.js"
import { Counters } from "../../src/store/counters.js"
import type { Keys } from "../../src/store/keys.js"

export interface RunningServer {
  readonly url: string
  readonly close: () => Promise<void>
}

export const startServer = async (options: {
  readonly operations: ReadonlyArray<Operation<any, any, CursorKey>>
  readonly keys: Layer.Layer<Keys>
  readonly counters?: Layer.Layer<Counters>
  readonly health?: Layer.Layer<Health>
  readonly cursorSecret?: string
  /** Replaces the server's Clock (see manual-clock.ts). */
  readonly clock?: Layer.Layer<never>
  /** Mounts the MCP door (/mcp) over the same operations. */
  readonly mcp?: boolean
  readonly requestTimeoutMs?: number
}): Promise<RunningServer> => {
  const doors = options.mcp === true ? makeMcpDoor(options.operations) : Layer.empty
  const layer = makeHttpServer(options.operations, {
    port: 0, host: "127.0.0.1", ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  }, doors).pipe(
    Layer.provide([
      options.keys,
      options.counters ?? Counters.memory,
      options.health ?? Health.layer,
      CursorKey.layer(options.cursorSecret ?? "test-cursor-secret"),
    ]),
    Layer.provide(options.clock ?? Layer.empty),
  )
  const runtime = ManagedRuntime.make(layer)
  const url = await runtime.runPromise(serverUrl)
  return { url, close: () => runtime.dispose() }
}
