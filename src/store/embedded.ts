// The embedded default: PGlite on DATA_DIR/pg, hosted in a worker thread and served on a local socket, and
// the lock file DATA_DIR/whalewatch.lock that keeps a second process from opening the same dir (two
// processes writing one PGlite dir corrupt it). The server hosts the dir; the CLI connects through the
// socket named in a live lock and hosts the dir itself only when no live lock exists.
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { Data, DateTime, Duration, Effect, Option, Schema, type Scope } from "effect"
import type { WorkerCommand, WorkerInput, WorkerOutput } from "./embedded-worker.js"

/** Where a pg client reaches the embedded server: a unix socket dir + port, or 127.0.0.1 + port. */
export interface EmbeddedAddress {
  readonly host: string
  readonly port: number
}

export type HostRole = "server" | "cli"

export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{ readonly dataDir: string; readonly pid: number }> {
  override get message() {
    return `DATA_DIR ${this.dataDir} is in use by whalewatch pid ${this.pid}; stop it first or use another DATA_DIR`
  }
}

export class EmbeddedFailed extends Data.TaggedError("EmbeddedFailed")<{ readonly dataDir: string; readonly reason: string }> {
  override get message() {
    return `embedded PostgreSQL in ${this.dataDir} failed: ${this.reason}`
  }
}

const LockFile = Schema.Struct({
  pid: Schema.Int,
  role: Schema.optional(Schema.Literal("server", "cli")),
  socket: Schema.optional(Schema.String),
  host: Schema.optional(Schema.String),
  port: Schema.optional(Schema.Int),
  startedAt: Schema.String,
})
type LockFile = typeof LockFile.Type
const decodeLock = Schema.decodeUnknownOption(Schema.parseJson(LockFile))

/** The port part of a pg unix socket name (`.s.PGSQL.<port>`); pg derives the file name from it. */
const SOCKET_PORT = 5432
/** sun_path holds 108 bytes with the NUL; stay clear of the edge. */
const MAX_SOCKET_PATH = 100
/** Above the service pool, the CLI's pool and a psql or two. */
const MAX_CONNECTIONS = 32
/**
 * How often the embedded host checkpoints: PostgreSQL's own checkpoint_timeout. Measured on PGlite alone
 * (paper-order-sized INSERTs): a CHECKPOINT after 30,000 of them took ~25 ms, after 120,000 ~70 ms, with
 * nothing written ~4 ms.
 */
const CHECKPOINT_EVERY = Duration.minutes(5)

export const lockPath = (dataDir: string): string => join(dataDir, "whalewatch.lock")

const socketPathFor = (absoluteDir: string): string | null => {
  const path = join(absoluteDir, `.s.PGSQL.${SOCKET_PORT}`)
  return Buffer.byteLength(path) < MAX_SOCKET_PATH ? path : null
}

const addressOf = (lock: LockFile): Option.Option<EmbeddedAddress> =>
  lock.socket !== undefined
    ? Option.some({ host: dirname(lock.socket), port: SOCKET_PORT })
    : lock.host !== undefined && lock.port !== undefined
      ? Option.some({ host: lock.host, port: lock.port })
      : Option.none()

/** Dirs this process hosts: a second open from the same process is refused like one from another. */
const hostedHere = new Set<string>()

/**
 * When the process `pid` started (epoch ms), from Linux's /proc (start ticks after boot, at the usual 100
 * ticks a second); null where that cannot be read.
 */
const processStartedAt = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces) in parentheses; starttime is field 22.
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1])
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : null
  } catch {
    return null
  }
}

/**
 * Whether the lock's process still runs. A pid the system gave to another process since (after a kill -9)
 * is not ours: one that is not node, or one that started after the lock was written.
 */
const processAlive = (pid: number, lockedAt: number): boolean => {
  if (pid === process.pid) return false // a lock naming us is a leftover (pid reuse after a restart)
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const started = processStartedAt(pid)
  // Two seconds of slack: boot time is whole seconds, start time is in ticks.
  if (started !== null && Number.isFinite(lockedAt) && started > lockedAt + 2_000) return false
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("node")
  } catch {
    return true
  }
}

type LockState =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Stale"; readonly raw: string }
  | { readonly _tag: "Live"; readonly lock: LockFile }

const readLock = (dataDir: string): LockState => {
  let raw: string
  try {
    raw = readFileSync(lockPath(dataDir), "utf8")
  } catch {
    return { _tag: "Absent" }
  }
  const lock = decodeLock(raw)
  if (Option.isNone(lock)) return { _tag: "Stale", raw }
  const absolute = resolve(dataDir)
  if (lock.value.pid === process.pid && hostedHere.has(absolute)) return { _tag: "Live", lock: lock.value }
  return processAlive(lock.value.pid, Date.parse(lock.value.startedAt)) ? { _tag: "Live", lock: lock.value } : { _tag: "Stale", raw }
}

/** Writes a whole file under a temporary name first, so a reader never sees half a lock. */
const writeWhole = (path: string, content: string, exclusive: boolean) => {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, content)
  try {
    if (exclusive) linkSync(temporary, path) // fails with EEXIST when another process got there first
    else renameSync(temporary, path)
  } finally {
    if (exclusive) unlinkSync(temporary)
  }
}

const removeIfOurs = (dataDir: string) => {
  const state = readLock(dataDir)
  if (state._tag === "Live" && state.lock.pid !== process.pid) return
  try {
    unlinkSync(lockPath(dataDir))
  } catch {
    // already gone
  }
}

const now = DateTime.now.pipe(Effect.map(DateTime.formatIso))

/**
 * Takes the lock or reports who holds it. A stale lock (dead pid) is taken over. A server that meets a
 * live CLI lock waits for the CLI to finish, since the CLI only holds the dir for one command.
 */
const acquireLock = (dataDir: string, role: HostRole) =>
  Effect.gen(function* () {
    const startedAt = yield* now
    const content = JSON.stringify({ pid: process.pid, role, startedAt } satisfies LockFile)
    const deadline = (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) + 30_000
    for (;;) {
      const taken = yield* Effect.try({
        try: () => {
          writeWhole(lockPath(dataDir), content, true)
          return true
        },
        catch: (error) => error as NodeJS.ErrnoException,
      }).pipe(
        Effect.catchIf((error) => error.code === "EEXIST", () => Effect.succeed(false)),
        Effect.mapError((error) => new EmbeddedFailed({ dataDir, reason: `cannot write the lock file: ${error.message}` })),
      )
      if (taken) return startedAt
      const state = readLock(dataDir)
      if (state._tag === "Stale") {
        // Remove it only if it is still the stale lock we read; another starter may have replaced it.
        const current = yield* Effect.sync(() => {
          try {
            return readFileSync(lockPath(dataDir), "utf8")
          } catch {
            return null
          }
        })
        if (current === state.raw) yield* Effect.sync(() => removeIfOurs(dataDir))
        continue
      }
      if (state._tag === "Live") {
        const waitForCli = role === "server" && state.lock.role === "cli" &&
          (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) < deadline
        if (!waitForCli) return yield* new DataDirInUse({ dataDir, pid: state.lock.pid })
      }
      yield* Effect.sleep(Duration.millis(100))
    }
  })

/** The tsx loader for the worker when it runs from TypeScript sources (bin/whalewatch.js, vitest). */
const tsxApi = (): string => {
  try {
    return import.meta.resolve("tsx/esm/api")
  } catch {
    const require = createRequire(import.meta.url)
    return pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href
  }
}

/** Workers that have exited: stopping one again must not wait for an exit that already happened. */
const exitedWorkers = new WeakSet<Worker>()

const spawnWorker = (input: WorkerInput): Worker => {
  const entry = new URL("./embedded-worker.ts", import.meta.url)
  // Workers do not inherit tsx's loader hooks on Node 20, so the worker registers tsx itself first.
  const bootstrap = `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${
    JSON.stringify(entry.href)
  }) })`
  const worker = new Worker(bootstrap, { eval: true, workerData: input })
  worker.once("exit", () => exitedWorkers.add(worker))
  return worker
}

const awaitListening = (worker: Worker, dataDir: string) =>
  Effect.async<EmbeddedAddress, EmbeddedFailed>((resume) => {
    const onMessage = (message: WorkerOutput) => {
      if (message.type === "listening") {
        resume(Effect.succeed("socket" in message
          ? { host: dirname(message.socket), port: SOCKET_PORT }
          : { host: message.host, port: message.port }))
      } else if (message.type === "failed") {
        resume(Effect.fail(new EmbeddedFailed({ dataDir, reason: message.message })))
      }
    }
    const onError = (error: Error) => resume(Effect.fail(new EmbeddedFailed({ dataDir, reason: error.message })))
    const onExit = (code: number) =>
      resume(Effect.fail(new EmbeddedFailed({ dataDir, reason: `worker exited with code ${code}` })))
    worker.on("message", onMessage)
    worker.on("error", onError)
    worker.on("exit", onExit)
    return Effect.sync(() => {
      worker.off("message", onMessage)
      worker.off("error", onError)
      worker.off("exit", onExit)
    })
  })

/** Asks the worker to close PGlite (which flushes the dir) and waits for it; terminates it if it hangs. */
const stopWorker = (worker: Worker) =>
  Effect.async<void>((resume) => {
    if (exitedWorkers.has(worker)) return resume(Effect.void)
    const onExit = () => resume(Effect.void)
    worker.once("exit", onExit)
    worker.postMessage({ type: "stop" } satisfies WorkerCommand)
    return Effect.sync(() => worker.off("exit", onExit))
  }).pipe(
    Effect.timeout(Duration.seconds(15)),
    Effect.catchAll(() => Effect.promise(() => worker.terminate())),
    Effect.asVoid,
  )

export interface HostOptions {
  readonly dataDir: string
  readonly role: HostRole
  /** A `dumpDataDir` tarball used when DATA_DIR/pg does not exist yet. */
  readonly template?: string
  /** How often the host checkpoints; CHECKPOINT_EVERY unless given (tests shorten it). */
  readonly checkpointEvery?: Duration.Duration
}

/**
 * Opens DATA_DIR itself: takes the lock, starts PGlite in a worker, writes the socket into the lock.
 * Closing the scope stops the worker cleanly and removes the lock.
 */
export const hostDataDir = (options: HostOptions): Effect.Effect<EmbeddedAddress, DataDirInUse | EmbeddedFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const { dataDir, role } = options
    const absolute = resolve(dataDir)
    if (hostedHere.has(absolute)) return yield* new DataDirInUse({ dataDir, pid: process.pid })
    yield* Effect.try({
      try: () => mkdirSync(absolute, { recursive: true }),
      catch: (error) => new EmbeddedFailed({ dataDir, reason: `cannot create it: ${(error as Error).message}` }),
    })
    const startedAt = yield* Effect.acquireRelease(acquireLock(dataDir, role), () =>
      Effect.sync(() => {
        hostedHere.delete(absolute)
        removeIfOurs(dataDir)
      }))
    hostedHere.add(absolute)
    const pgDir = join(absolute, "pg")
    const input: WorkerInput = {
      pgDir,
      socketPath: socketPathFor(absolute),
      maxConnections: MAX_CONNECTIONS,
      template: options.template ?? null,
      fresh: !existsSync(pgDir),
      checkpointEveryMs: Duration.toMillis(options.checkpointEvery ?? CHECKPOINT_EVERY),
    }
    const worker = yield* Effect.acquireRelease(Effect.sync(() => spawnWorker(input)), stopWorker)
    const address = yield* awaitListening(worker, dataDir)
    const lock: LockFile = input.socketPath !== null
      ? { pid: process.pid, role, socket: input.socketPath, startedAt }
      : { pid: process.pid, role, host: address.host, port: address.port, startedAt }
    yield* Effect.try({
      try: () => writeWhole(lockPath(dataDir), JSON.stringify(lock), false),
      catch: (error) => new EmbeddedFailed({ dataDir, reason: `cannot write the lock file: ${(error as Error).message}` }),
    })
    return address
  })

/**
 * For a client process (the CLI): the address of the live process that holds DATA_DIR, or, when none
 * does, a host of its own for the life of the scope.
 */
export const connectDataDir = (dataDir: string): Effect.Effect<EmbeddedAddress, DataDirInUse | EmbeddedFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const deadline = (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) + 60_000
    for (;;) {
      const state = readLock(dataDir)
      if (state._tag === "Live") {
        const address = addressOf(state.lock)
        if (Option.isSome(address)) return address.value
        // The holder is still starting (a fresh dir takes seconds to initialise); wait for its socket.
        if ((yield* Effect.clockWith((clock) => clock.currentTimeMillis)) > deadline) {
          return yield* new DataDirInUse({ dataDir, pid: state.lock.pid })
        }
        yield* Effect.sleep(Duration.millis(100))
        continue
      }
      const hosted = yield* hostDataDir({ dataDir, role: "cli" }).pipe(
        Effect.map(Option.some),
        // Someone took the lock between our read and our write: connect to them instead.
        Effect.catchTag("DataDirInUse", () => Effect.succeed(Option.none<EmbeddedAddress>())),
      )
      if (Option.isSome(hosted)) return hosted.value
    }
  })
