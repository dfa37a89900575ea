// Several real service nodes (`bin/whalewatch.js serve` child processes) on one PostgreSQL schema, fed
// by one `whalewatch sim` child: the two-node tests and `bench/nodes.ts`. Needs DATABASE_URL.
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import pg from "pg"
import { Effect, Layer } from "effect"
import { dbLayerOn } from "../../src/store/db.js"
import { Keys } from "../../src/store/keys.js"
import { KeysLive } from "../../src/store/keys-live.js"
import { waitFor } from "./service.js"

const root = join(import.meta.dirname, "..", "..")

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

interface Child {
  readonly process: ChildProcess
  readonly output: () => string
}

const spawnChild = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Child => {
  const child = spawn(process.execPath, ["bin/whalewatch.js", ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (c: Buffer) => { output += c.toString() })
  child.stderr?.on("data", (c: Buffer) => { output += c.toString() })
  return { process: child, output: () => output }
}

const stopChild = async (child: Child | undefined, signal: NodeJS.Signals) => {
  if (child === undefined || child.process.exitCode !== null || child.process.signalCode !== null) return
  const exited = new Promise((r) => child.process.once("exit", r))
  child.process.kill(signal)
  await exited
}

/** One statement on its own connection (schemas, reading rows behind the service's back). */
export const adminQuery = async (url: string, text: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

export interface ClusterNode {
  readonly url: string
  readonly port: number
  readonly output: () => string
}

export interface Cluster {
  /** `http://127.0.0.1:port` of the simulator (control API). */
  readonly sim: string
  /** A read,write key of account "cluster". */
  readonly token: string
  /** `keys` read,write keys (the first is `token`), each of its own account "cluster-<i>" but the first. */
  readonly tokens: ReadonlyArray<string>
  /** Starts node `id` (NODE_ID) on `port` (a free one when omitted) and waits until it listens. */
  readonly start: (id: string, port?: number) => Promise<ClusterNode>
  readonly node: (id: string) => ClusterNode
  readonly stop: (id: string, signal: NodeJS.Signals) => Promise<void>
  /** Sends node `id` a signal and goes on (SIGSTOP freezes it, SIGCONT resumes it). */
  readonly signal: (id: string, signal: NodeJS.Signals) => void
  /** The paper lease's row. */
  readonly holder: () => Promise<{ readonly nodeId: string; readonly epoch: number } | undefined>
  /** Kills everything and drops the schema. */
  readonly close: () => Promise<void>
}

/**
 * A fresh schema of DATABASE_URL, a simulator and the first node `first` (which migrates the schema);
 * then the key. `env` is added to every node's environment.
 */
export const startCluster = async (databaseUrl: string, first: string, env: Record<string, string> = {}, keys = 1): Promise<Cluster> => {
  const schema = `t_nodes_${process.pid}_${Date.now().toString(36)}`
  await adminQuery(databaseUrl, `CREATE SCHEMA ${schema}`)
  const parsed = new URL(databaseUrl)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  const schemaUrl = parsed.toString()
  const simPort = await freePort()
  const simChild = spawnChild(["sim"], { ...process.env, SIM_PORT: String(simPort), HISTORY_DAYS: "0" })
  const children = new Map<string, { child: Child; node: ClusterNode }>()
  const close = async () => {
    for (const { child } of children.values()) await stopChild(child, "SIGKILL")
    await stopChild(simChild, "SIGKILL")
    await adminQuery(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }
  try {
    const sim = await waitFor("the simulator", () => /on (http:\/\/127\.0\.0\.1:\d+)/.exec(simChild.output())?.[1], 30_000, simChild.output)
    const start = async (id: string, port?: number): Promise<ClusterNode> => {
      const listen = port ?? await freePort()
      const nodeEnv: NodeJS.ProcessEnv = {
        ...process.env, DATABASE_URL: schemaUrl, PORT: String(listen), HOST: "127.0.0.1", VENUES_URL: `ws://127.0.0.1:${simPort}`,
        HISTORY_DAYS: "0", NODE_ID: id, LOG_LEVEL: "info", ...env,
      }
      delete nodeEnv["REDIS_URL"]
      if (env["REDIS_URL"] !== undefined) nodeEnv["REDIS_URL"] = env["REDIS_URL"]
      const child = spawnChild(["serve"], nodeEnv)
      const url = await waitFor(`node ${id} listening`, () => /listening on (http:\/\/\S+)/.exec(child.output())?.[1], 60_000, child.output)
      const node = { url, port: listen, output: child.output }
      children.set(id, { child, node })
      return node
    }
    await start(first)
    const tokens = await Effect.runPromise(Effect.gen(function* () {
      const store = yield* Keys
      const out: Array<string> = []
      for (let i = 0; i < keys; i++) {
        out.push((yield* store.create({ account: i === 0 ? "cluster" : `cluster-${i}`, scopes: ["read", "write"], subscription: true })).key)
      }
      return out
    }).pipe(
      Effect.provide(Layer.orDie(KeysLive.pipe(Layer.provideMerge(dbLayerOn({ _tag: "Url", url: schemaUrl }, { maxConnections: 1 }))))),
      Effect.orDie,
      Effect.scoped,
    ))
    const node = (id: string) => {
      const found = children.get(id)
      if (found === undefined) throw new Error(`node ${id} was never started`)
      return found.node
    }
    return {
      sim,
      token: tokens[0] as string,
      tokens,
      start,
      node,
      stop: (id, signal) => stopChild(children.get(id)?.child, signal),
      signal: (id, signal) => void children.get(id)?.child.process.kill(signal),
      holder: async () => {
        const row = (await adminQuery(schemaUrl, "SELECT node_id, epoch FROM node_leases WHERE name = 'paper'")).rows[0]
        return row === undefined ? undefined : { nodeId: String(row.node_id), epoch: Number(row.epoch) }
      },
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
