// The simulator's I/O edge: one HTTP server on 127.0.0.1 with a WebSocket per venue speaking that
// venue's protocol, the REST history, and the loopback-only control API. It owns the only wall clock
// of the simulator: with `speed` > 0 a timer steps the model to `start + elapsed × speed`; with
// speed 0 the caller steps it (`step`, or POST /control/clock). Every model event is encoded by its
// venue's encoder and sent to that venue's subscribers.
//
// Subscriptions (documented conventions where the real venue differs):
//   /ws/venue_b         Polymarket market channel. `{"assets_ids":[…],"type":"market","custom_feature_enabled":true}`;
//                       an empty list (or "*") = every market, including later listings. With
//                       custom features the server first sends `new_market` for every open market
//                       (discovery), then (unless `initial_dump: false`) one array frame of `book`
//                       snapshots of the subscribed tokens. `{"assets_ids":[…],"operation":"subscribe"|"unsubscribe"}`
//                       adjusts it. Text `PING` → `PONG`.
//   /ws/venue_b/trades  the trades feed: every Data-API `Trade` row as it happens, one row per frame;
//                       optionally `{"markets":[condition ids]}` to filter (empty = all). `PING` → `PONG`.
//   /ws/venue_a, /ws/venue_d  Kalshi v2. `{"id","cmd":"subscribe","params":{"channels":[…],"market_tickers"?}}`
//                       (no tickers = every market, including later listings); one `subscribed` ack and
//                       one sid per channel; `seq` counts per sid on book and trade frames (`ticker`
//                       and lifecycle frames carry none, as the real venue's). `orderbook_delta`
//                       starts with a snapshot per market; `market_lifecycle_v2` starts with `created`
//                       for every open market (discovery). `unsubscribe {sids}`, `update_subscription
//                       {sids, market_tickers, action: get_snapshot | add_markets | delete_markets}`,
//                       `list_subscriptions`. WebSocket ping every 10 s.
//   /ws/venue_b_us      Polymarket US. `{"subscribe":{"requestId","subscriptionType","marketSlugs"?}}`,
//                       no slugs = every market; MARKET_DATA starts with a `marketData` per market
//                       (with the `market` listing extension); TRADE streams trades. `{"unsubscribe":{"requestId"}}`.
//                       `{"heartbeat":{}}` every 10 s.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer, type WebSocket } from "ws"
import { VENUES, type Venue } from "../domain/enums.js"
import { controlRequest, isLoopback } from "./control.js"
import { encode } from "./encode.js"
import { historyRequest, type HttpAnswer } from "./history.js"
import { SimModel } from "./model.js"
import type { ModelEvent } from "./types.js"
import { KalshiClient } from "./kalshi/session.js"
import { VenueBClient, VenueBTradesClient } from "./venue_b/session.js"
import { VenueBUsClient } from "./venue_b_us/session.js"
import type { Encoded } from "./encoded.js"

export interface SimOptions {
  /** TCP port; 0 = any free port. */
  readonly port: number
  readonly seed: number
  readonly historyDays: number
  readonly host?: "127.0.0.1"
  /** Simulated seconds per wall second (default 1); 0 = manual stepping only. */
  readonly speed?: number
  /** Simulated time at start, epoch ms (default: the wall clock at start, to the second). */
  readonly start?: number
  /** Model step in simulated ms (default 250). */
  readonly stepMs?: number
  /** Heartbeat period in wall ms (Kalshi pings, venue_b_us heartbeats; default 10 000). */
  readonly heartbeatMs?: number
  /** Keep every published frame for `published()` (tests; off by default). */
  readonly record?: boolean
}

export interface Sim {
  readonly port: number
  /** `http://127.0.0.1:<port>`; sockets at `ws://127.0.0.1:<port>/ws/<venue>`. */
  readonly url: string
  readonly model: SimModel
  /** Steps the model `n` times and publishes what happened (any speed). */
  readonly step: (n?: number) => ReadonlyArray<ModelEvent>
  /** Every frame published since start, in order, when started with `record` (capped). */
  readonly published: () => ReadonlyArray<Encoded & { readonly venue: Venue }>
  readonly close: () => Promise<void>
}

/** A venue client connection: receives published frames and its own protocol messages. */
export interface SimClient {
  readonly deliver: (frames: ReadonlyArray<Encoded>) => void
  readonly message: (text: string) => void
  readonly heartbeat: () => void
  readonly closed: () => void
}

const MAX_RECORDED = 200_000

export const startSim = async (options: SimOptions): Promise<Sim> => {
  const host = options.host ?? "127.0.0.1"
  const speed = options.speed ?? 1
  const start = options.start ?? Math.floor(Date.now() / 1000) * 1000
  const model = new SimModel({ seed: options.seed, start, historyDays: options.historyDays, ...(options.stepMs === undefined ? {} : { stepMs: options.stepMs }) })
  const clients = new Map<Venue | "venue_b_trades", Set<SimClient>>([...VENUES, "venue_b_trades" as const].map((v) => [v, new Set<SimClient>()]))
  const recorded: Array<Encoded & { readonly venue: Venue }> = []

  const publish = (events: ReadonlyArray<ModelEvent>): void => {
    for (const event of events) {
      const venue = event.contract.venue
      const frames = encode(event)
      if (options.record === true && recorded.length < MAX_RECORDED) for (const f of frames) recorded.push({ ...f, venue })
      for (const client of clients.get(venue) ?? []) client.deliver(frames)
      if (venue === "venue_b") for (const client of clients.get("venue_b_trades") ?? []) client.deliver(frames)
    }
  }

  const step = (n = 1): ReadonlyArray<ModelEvent> => {
    const out: Array<ModelEvent> = []
    for (let i = 0; i < n; i++) {
      const events = model.step()
      publish(events)
      out.push(...events)
    }
    return out
  }

  const server = createServer((req, res) => {
    void handleHttp(req, res, model, publish, speed === 0 ? (n) => void step(n) : null)
  })
  // Clients page through history on keep-alive connections; a longer idle timeout than Node's 5 s keeps
  // the server from closing a connection a client is about to reuse (which it sees as ECONNRESET).
  server.keepAliveTimeout = 65_000
  const wss = new WebSocketServer({ noServer: true })
  server.on("upgrade", (req, socket, head) => {
    const path = (req.url ?? "").split("?")[0] ?? ""
    const m = /^\/ws\/(venue_a|venue_b|venue_b_us|venue_d)(\/trades)?\/?$/.exec(path)
    if (m === null || (m[2] !== undefined && m[1] !== "venue_b")) {
      socket.write("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n")
      socket.destroy()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const venue = m[1] as Venue
      const key = m[2] === undefined ? venue : "venue_b_trades"
      const client = makeClient(key, ws, model)
      clients.get(key)?.add(client)
      ws.on("message", (data, isBinary) => client.message(isBinary ? "" : data.toString()))
      ws.on("close", () => {
        clients.get(key)?.delete(client)
        client.closed()
      })
      ws.on("error", () => ws.terminate())
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  const heartbeat = setInterval(() => {
    for (const set of clients.values()) for (const c of set) c.heartbeat()
  }, options.heartbeatMs ?? 10_000)
  heartbeat.unref()

  let timer: ReturnType<typeof setInterval> | null = null
  if (speed > 0) {
    const wall0 = performance.now()
    timer = setInterval(() => {
      // Catch up in bounded bites so a stalled process does not block for long.
      const target = Math.min(start + (performance.now() - wall0) * speed, model.now + 600 * model.stepMs)
      while (model.now + model.stepMs <= target) publish(model.step())
    }, 100)
    timer.unref()
  }

  return {
    port,
    url: `http://${host}:${port}`,
    model,
    step,
    published: () => recorded,
    close: async () => {
      if (timer !== null) clearInterval(timer)
      clearInterval(heartbeat)
      for (const ws of wss.clients) ws.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const makeClient = (key: Venue | "venue_b_trades", ws: WebSocket, model: SimModel): SimClient => {
  const send = (text: string): void => {
    if (ws.readyState === ws.OPEN) ws.send(text)
  }
  switch (key) {
    case "venue_b": return new VenueBClient(model, send)
    case "venue_b_trades": return new VenueBTradesClient(send)
    case "venue_b_us": return new VenueBUsClient(model, send)
    case "venue_a":
    case "venue_d": return new KalshiClient(key, model, send, () => ws.ping("heartbeat"))
  }
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let size = 0
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > 1_000_000) {
        reject(new Error("body too large"))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString()))
    req.on("error", reject)
  })

const reply = (res: ServerResponse, answer: HttpAnswer): void => {
  const text = JSON.stringify(answer.body)
  res.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const handleHttp = async (
  req: IncomingMessage, res: ServerResponse, model: SimModel,
  publish: (events: ReadonlyArray<ModelEvent>) => void, step: ((n: number) => void) | null,
): Promise<void> => {
  try {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const method = req.method ?? "GET"
    if (url.pathname.startsWith("/control/")) {
      if (!isLoopback(req.socket.remoteAddress)) return reply(res, { status: 403, body: { error: "the control API answers loopback clients only" } })
      let body: unknown = undefined
      if (method === "POST") {
        const text = await readBody(req)
        try {
          body = text === "" ? {} : JSON.parse(text)
        } catch {
          return reply(res, { status: 400, body: { error: "body must be JSON" } })
        }
      }
      const answer = controlRequest({ model, publish, step }, method, url.pathname, url.searchParams, body)
      if (answer !== null) return reply(res, answer)
    }
    if (method === "GET") {
      const answer = historyRequest(model, url.pathname, url.searchParams)
      if (answer !== null) return reply(res, answer)
      if (url.pathname === "/" || url.pathname === "/health") {
        return reply(res, { status: 200, body: { data: { now: new Date(model.now).toISOString(), venues: VENUES, open: model.openContracts().length } } })
      }
    }
    reply(res, { status: 404, body: { error: `no simulator endpoint at ${method} ${url.pathname}` } })
  } catch (error) {
    reply(res, { status: 500, body: { error: `simulator failure: ${error instanceof Error ? error.message : "unknown"}` } })
  }
}
