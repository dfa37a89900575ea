// Starts the HTTP door: the HttpApi of a list of operations, with auth, rate limit and envelopes,
// served by Node's http server. It composes; the logic lives in api.ts, auth.ts and envelope.ts.
//
// Usage from src/main.ts (the layers named are the ones main owns or wires):
//
//   import { makeHttpLive } from "./http/server.js"
//   import { registry } from "./operations/registry.js"
//   import { Health } from "./operations/health.js"
//   import { CursorKey } from "./operations/paging.js"
//   import { Counters } from "./store/counters.js"
//
//   const HttpLive = makeHttpLive(registry).pipe(      // listens on AppConfig.port (PORT), all interfaces
//     Layer.provide(KeysLive),                          // Keys (PostgreSQL)
//     Layer.provide(Counters.live),                     // Redis when REDIS_URL is set, else in process
//     Layer.provide(CursorKey.layer(secretFromSettings)) // or Layer.effect(CursorKey, ...) from Settings
//     Layer.provide(Health.layer),                      // the SAME Health.layer value every part uses
//     Layer.provide(servicesTheOperationsNeed),
//   )
//   Layer.launch(HttpLive).pipe(NodeRuntime.runMain)
//
// Tests and benches listen on an ephemeral port: `makeHttpServer(ops, { port: 0, host: "127.0.0.1" })`
// outputs HttpServer.HttpServer, and `serverUrl` reads "http://127.0.0.1:<port>" from it.
import { createServer, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import type { ConfigError } from "effect/ConfigError"
import type { ServeError } from "@effect/platform/HttpServerError"
import { AppConfig } from "../config.js"
import type { Health } from "../operations/health.js"
import type { AnyOperation, OperationsContext } from "../operations/operation.js"
import type { CursorKey } from "../operations/paging.js"
import type { Counters } from "../store/counters.js"
import type { Keys } from "../store/keys.js"
import { makeApiLive } from "./api.js"
import { AuthLive, type RequireRead, type RequireWrite } from "./auth.js"
import { envelopeMiddleware } from "./envelope.js"

/**
 * A request Node's parser refuses before any handler sees it (bad framing, an unknown method, headers past
 * Node's limit) gets the error envelope too, as a 400 VALIDATION, rather than Node's empty 400 or 431.
 */
const clientError = (requestTimeoutMs: number) => (error: Error & { readonly code?: string }, socket: Duplex): void => {
  // An answer already begun (its headers sent) cannot be followed by another one: the connection just ends.
  const answering = (socket as Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage?.headersSent === true
  if (error.code === "ECONNRESET" || !socket.writable || answering) {
    socket.destroy()
    return
  }
  const sentence = error.code === "HPE_HEADER_OVERFLOW"
    ? "The request headers are too large"
    : error.code === "HPE_INVALID_METHOD" ? "Unknown HTTP method"
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? `The request did not arrive in full within ${requestTimeoutMs / 1000} seconds`
    : "Malformed HTTP request"
  const body = JSON.stringify({ success: false, error: sentence, code: "VALIDATION" })
  socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
}

/** How long a request (headers and body) may take to arrive; Node's own default is 300 s. */
export const REQUEST_TIMEOUT_MS = 30_000

/**
 * Node's server: a request not received in full within `requestTimeoutMs` (a client that announced more
 * body than it sends, or trickles it) is answered 400 and its connection closed, checked every quarter of
 * the timeout. A response in progress (the stream) is not a request still arriving: it is not cut.
 */
const nodeServer = (requestTimeoutMs: number) => (): Server =>
  draining(createServer({
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.floor(requestTimeoutMs / 4)),
  }).on("clientError", clientError(requestTimeoutMs)))

/** How long a closing server lets the answers in progress finish before it ends every connection. */
export const DRAIN_MS = 10_000
const DRAIN_CHECK_MS = 100

/**
 * Closing the service: @effect/platform stops handing requests to the service, then calls `close`. Node's
 * `close` stops accepting connections but keeps serving the kept-alive ones until each sits idle for its
 * keep-alive timeout, so a client that goes on sending on one (a load balancer, another node) would meet
 * no handler at all: its request unanswered, the server never closed, the process never exiting.
 * Closing here, every answer not yet begun says `connection: close` (the client sends its next request
 * on a new connection, to a node that listens); a request that arrives when the service no longer takes
 * any is answered 500 INTERNAL (retryable) saying nothing was carried out; idle connections are closed
 * every 100 ms, and after DRAIN_MS whatever is still open is ended. (A request in the instant between the
 * server's listening and @effect/platform's attaching its handler, at start, gets the same 500; it used
 * to go unanswered.)
 */
const draining = (server: Server): Server => {
  let closing = false
  const sockets = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  /** The listener @effect/platform attaches while the service serves; ours comes first. */
  const serving = () => server.listenerCount("request") > 1
  server.on("request", (_request, response) => {
    if (!closing && serving()) return
    response.setHeader("connection", "close")
    if (serving()) return
    const body = JSON.stringify({
      success: false, error: "This node is not taking requests (it is shutting down, or not yet started), so nothing was carried out; send the request again (to another node, or shortly)", code: "INTERNAL",
    })
    response.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "retry-after": "1" }).end(body)
  })
  const close = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void): Server => {
    closing = true
    // An answer in progress whose headers are not yet written says `connection: close` too (Node's
    // current response of a connection is its `_httpMessage`, as in clientError above).
    for (const socket of sockets) {
      const current = (socket as Socket & { readonly _httpMessage?: ServerResponse })._httpMessage
      if (current !== undefined && current !== null && !current.headersSent) current.setHeader("connection", "close")
    }
    close(callback)
    server.closeIdleConnections()
    const idle = setInterval(() => server.closeIdleConnections(), DRAIN_CHECK_MS).unref()
    const all = setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref()
    server.once("close", () => {
      clearInterval(idle)
      clearTimeout(all)
    })
    return server
  }
  return server
}

/** What the HTTP door needs besides the operations' own services. */
export type HttpRequirements = Keys | Counters | CursorKey | Health

export interface Listen {
  readonly port: number
  readonly host?: string
  /** Default REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number
}

/** The door listening on `listen`; outputs the running HttpServer (for its address). */
export const makeHttpServer = <Ops extends ReadonlyArray<AnyOperation>, D = never>(
  operations: Ops,
  listen: Listen,
  /** Extra doors mounted as HttpApi middleware inside the envelope (the SSE door: src/sse/door.ts). */
  doors: Layer.Layer<never, never, D> = Layer.empty as Layer.Layer<never, never, D>,
): Layer.Layer<HttpServer.HttpServer, ServeError, HttpRequirements | OperationsContext<Ops> | Exclude<D, RequireRead | RequireWrite>> =>
  HttpApiBuilder.serve().pipe(
    // No span exporter is configured, so the server's per-request span would only cost time (its URL
    // parse and header redaction are ~7 % of a listing request): requests run untraced.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(HttpApiBuilder.middleware(envelopeMiddleware)),
    Layer.provide(doors),
    Layer.provide(makeApiLive(operations)),
    Layer.provide(AuthLive),
    Layer.provideMerge(NodeHttpServer.layer(nodeServer(listen.requestTimeoutMs ?? REQUEST_TIMEOUT_MS), listen.host === undefined ? { port: listen.port } : { port: listen.port, host: listen.host })),
    // No span exporter is configured, so per-request spans (the server's and each Effect.fn's) would
    // only cost time: requests run with the tracer off.
    Layer.provide(Layer.setTracerEnabled(false)),
    // The router's own limit on a path parameter (100 characters by default) answered "No route" for a
    // market ref the operation takes (up to 300): path parameters reach their operation, whose Schema
    // names the field when one is too long, as the MCP door does.
    Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: MAX_PATH_PARAM })),
  )

/**
 * As long as a request line can be: Node refuses headers (the request line included) past 16 KiB, so every
 * path parameter of a request Node takes reaches its operation.
 */
const MAX_PATH_PARAM = 16_384

/** The door on AppConfig.port, for main. */
export const makeHttpLive = <Ops extends ReadonlyArray<AnyOperation>>(operations: Ops): Layer.Layer<
  never,
  ConfigError | ServeError,
  HttpRequirements | OperationsContext<Ops>
> =>
  Layer.unwrapEffect(Effect.map(AppConfig, (config) => Layer.discard(makeHttpServer(operations, { port: config.port }))))

/** "http://host:port" of the running server (127.0.0.1 when it listens on all interfaces). */
export const serverUrl: Effect.Effect<string, never, HttpServer.HttpServer> = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  if (address._tag === "UnixAddress") return `http+unix://${address.path}`
  const host = address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`
})
