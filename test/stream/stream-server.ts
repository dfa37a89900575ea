// Servers and clients for the stream tests: the HTTP door with the SSE door mounted, an IntelBus the
// test publishes to, and an SSE reader that collects frames. Loopback only; ephemeral ports.
import { Effect, Layer, ManagedRuntime, PubSub } from "effect"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { IntelBus, type IntelEvent } from "../../src/intel/intel-bus.js"
import { TradeAllowanceLimit } from "../../src/operations/allowance.js"
import { makeStreamDoor, type StreamDoorOptions } from "../../src/sse/door.js"
import { Fanout } from "../../src/sse/fanout.js"
import { Counters } from "../../src/store/counters.js"
import type { Keys } from "../../src/store/keys.js"
import type { Redis } from "../../src/store/redis.js"

export interface StreamServer {
  readonly url: string
  readonly publish: (event: IntelEvent) => Promise<void>
  readonly subscribers: () => number
  /** A counter of the server's Counters (allowance, rate window, stream slots). */
  readonly counter: (key: string) => Promise<number>
  readonly close: () => Promise<void>
}

export const startStreamServer = async (options: {
  readonly keys: Layer.Layer<Keys>
  readonly counters?: Layer.Layer<Counters>
  /** Fanout.redis() over this Redis instead of Fanout.local. */
  readonly redis?: Layer.Layer<Redis>
  readonly clock?: Layer.Layer<never>
  readonly door?: StreamDoorOptions
  readonly allowance?: number
}): Promise<StreamServer> => {
  const fanout = options.redis === undefined ? Fanout.local : Fanout.redis({ channel: "ww:test-intel-events" }).pipe(Layer.provide(options.redis))
  const base = Layer.mergeAll(IntelBus.layer, options.counters ?? Counters.memory)
  const server = makeHttpServer([], { port: 0, host: "127.0.0.1" }, makeStreamDoor({ tickMs: 50, ...options.door })).pipe(
    Layer.provideMerge(fanout),
    Layer.provide([options.keys, Health.layer, CursorKey.layer("test-cursor-secret")]),
    Layer.provideMerge(base),
    Layer.provide(options.clock ?? Layer.empty),
    Layer.provide(options.allowance === undefined ? Layer.empty : Layer.succeed(TradeAllowanceLimit, options.allowance)),
  )
  const runtime = ManagedRuntime.make(server)
  const url = await runtime.runPromise(serverUrl)
  return {
    url,
    publish: (event) => runtime.runPromise(Effect.flatMap(IntelBus, (bus) => PubSub.publish(bus, event))).then(() => undefined),
    subscribers: () => runtime.runSync(Effect.map(Fanout, (f) => f.size())),
    counter: (key) => runtime.runPromise(Effect.flatMap(Counters, (c) => c.get(key))),
    close: () => runtime.dispose(),
  }
}

export interface SseFrame {
  readonly event: string | null
  readonly data: string | null
  readonly comment: string | null
}

export interface SseClient {
  readonly status: number
  readonly headers: Headers
  /** Frames so far. */
  readonly frames: Array<SseFrame>
  /** JSON body when the answer was not a stream. */
  readonly json: () => Promise<any>
  readonly waitFor: (predicate: (frame: SseFrame) => boolean, ms?: number) => Promise<SseFrame>
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  readonly close: () => void
}

const parseFrame = (block: string): SseFrame => {
  let event: string | null = null
  let data: string | null = null
  let comment: string | null = null
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) comment = line.slice(1).trim()
    else if (line.startsWith("event:")) event = line.slice(6).trim()
    else if (line.startsWith("data:")) data = (data === null ? "" : `${data}\n`) + line.slice(5).trim()
  }
  return { event, data, comment }
}

export const openSse = async (url: string, token: string | null): Promise<SseClient> => {
  const controller = new AbortController()
  const headers: Record<string, string> = { accept: "text/event-stream" }
  if (token !== null) headers["authorization"] = `Bearer ${token}`
  const response = await fetch(url, { headers, signal: controller.signal })
  const frames: Array<SseFrame> = []
  const waiters = new Set<() => void>()
  const isStream = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  const ended = (async () => {
    if (!isStream || response.body === null) return
    const decoder = new TextDecoder()
    let buffer = ""
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let at: number
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          frames.push(parseFrame(buffer.slice(0, at)))
          buffer = buffer.slice(at + 2)
          for (const wake of waiters) wake()
        }
      }
    } catch {
      // aborted
    }
    for (const wake of waiters) wake()
  })()
  let done = false
  void ended.then(() => { done = true })
  return {
    status: response.status,
    headers: response.headers,
    frames,
    json: () => response.json(),
    ended,
    close: () => controller.abort(),
    waitFor: (predicate, ms = 5_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(predicate)
          if (found !== undefined) {
            waiters.delete(check)
            clearTimeout(timer)
            resolve(found)
          } else if (done) {
            waiters.delete(check)
            clearTimeout(timer)
            reject(new Error(`stream ended without the frame; frames: ${JSON.stringify(frames)}`))
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`timed out; frames: ${JSON.stringify(frames)}`))
        }, ms)
        waiters.add(check)
        check()
      }),
  }
}
