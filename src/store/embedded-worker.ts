// The embedded PostgreSQL host: runs in a worker thread, opens PGlite on one data dir and serves it on a
// local socket through the bridge (pglite-bridge.ts). PGlite runs queries as synchronous WASM, so it must never share the
// service's event loop. It knows nothing of the lock file; `embedded.ts` owns that.
import { readFile, unlink } from "node:fs/promises"
import { parentPort, workerData } from "node:worker_threads"
import { PGlite } from "@electric-sql/pglite"
import { PgliteBridge } from "./pglite-bridge.js"

export interface WorkerInput {
  readonly pgDir: string
  /** A unix socket path, or TCP on 127.0.0.1 with an OS-assigned port when absent. */
  readonly socketPath: string | null
  readonly maxConnections: number
  /** A `dumpDataDir` tarball to start a data dir that does not exist yet (tests use it for speed). */
  readonly template: string | null
  readonly fresh: boolean
  /** How often the host checkpoints (PGlite has no checkpointer to do it on a timer). */
  readonly checkpointEveryMs: number
}

export type WorkerOutput =
  | { readonly type: "listening"; readonly socket: string }
  | { readonly type: "listening"; readonly host: string; readonly port: number }
  | { readonly type: "failed"; readonly message: string }
  | { readonly type: "stopped" }

export type WorkerCommand = { readonly type: "stop" }

const input = workerData as WorkerInput
const port = parentPort
if (port === null) throw new Error("embedded-worker must run in a worker thread")
const post = (message: WorkerOutput) => port.postMessage(message)

/**
 * PGlite's own start parameters and one more: `wal_init_zero=off`. PGlite runs PostgreSQL as a single
 * backend, with no checkpointer to create WAL segments ahead, so the statement whose record crosses into a
 * new 16 MB segment creates it. With the default (on) that statement writes the segment's 16 MB of zeros
 * through PGlite's filesystem: ~65 ms on this machine, once every ~24,000 paper orders, and every query
 * waiting behind it waits as long. Off, PostgreSQL writes the segment's last byte only (a sparse file).
 * What that gives up: the segment's disk space is not taken ahead, so on a full disk the WAL write that
 * finds no space stops PostgreSQL instead of a new segment's creation failing.
 */
const START_PARAMS: ReadonlyArray<string> = [...PGlite.defaultStartParams, "-c", "wal_init_zero=off"]

const open = async (): Promise<PGlite> => {
  const startParams = [...START_PARAMS]
  if (input.fresh && input.template !== null) {
    const bytes = await readFile(input.template)
    return PGlite.create({ dataDir: input.pgDir, loadDataDir: new Blob([bytes]), startParams })
  }
  return PGlite.create({ dataDir: input.pgDir, startParams })
}

const start = async () => {
  const db = await open()
  if (input.socketPath !== null) {
    // The caller holds the lock, so a socket file left here belongs to a dead process.
    await unlink(input.socketPath).catch(() => undefined)
  }
  const server = new PgliteBridge(db, {
    maxConnections: input.maxConnections,
    onError: (error) => console.error(`embedded PostgreSQL: ${describe(error)}`),
  })
  // PGlite runs PostgreSQL as one backend with no checkpointer, so nothing checkpoints on a timer: WAL
  // piles up to max_wal_size (1 GB) and the statement that crosses it checkpoints everything dirty since
  // the start; a crash replays all of it on the next open. A CHECKPOINT of our own, queued like a query,
  // bounds both (and lets PostgreSQL recycle the segments it no longer needs).
  const checkpoints = setInterval(() => server.maintain("CHECKPOINT"), input.checkpointEveryMs)
  checkpoints.unref()
  const address = await server.listen(input.socketPath)
  if (address.port === undefined) post({ type: "listening", socket: input.socketPath ?? String(address.path) })
  else post({ type: "listening", host: address.host ?? "127.0.0.1", port: address.port })
  let stopping = false
  port.on("message", (command: WorkerCommand) => {
    if (command.type !== "stop" || stopping) return
    stopping = true
    clearInterval(checkpoints)
    void (async () => {
      await server.close().catch(() => undefined)
      // close() checkpoints and flushes the data dir; skipping it is what corrupts a dir on exit.
      await db.close().catch(() => undefined)
      if (input.socketPath !== null) await unlink(input.socketPath).catch(() => undefined)
      post({ type: "stopped" })
      port.close()
    })()
  })
}

/** PGlite sometimes throws plain objects (an Emscripten exit status, an errno record). */
const describe = (error: unknown): string => {
  if (error instanceof Error) return error.message
  if (typeof error === "object" && error !== null) {
    if ("message" in error && typeof error.message === "string") return error.message
    try {
      return JSON.stringify(error)
    } catch {
      return String(error)
    }
  }
  return String(error)
}

start().catch((error: unknown) => {
  post({ type: "failed", message: describe(error) })
  // Ends this thread only; a half-opened PGlite would otherwise keep it alive.
  process.exit(1)
})
