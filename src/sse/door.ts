// The SSE door: GET /v2/stream on the HTTP door's server, as an HttpApi-level middleware that answers
// that one route before the HttpApi router (every other request passes through). Sitting inside the
// envelope middleware, it gets the same refusal of keys in the URL, the same error envelope and rate
// headers; authentication is the read-scope middleware itself (one request counted). Then it decodes
// the query (unknown parameters are VALIDATION), opens the session (operations/stream.ts) and streams.
//
// Transport: frames are written straight to the Node response from the fan-out's dispatch loop (no
// per-frame fiber hop), so a frame costs one filter call and one `write`. Backpressure: a connection's
// queue is Node's socket buffer, bounded at `maxBufferBytes` (1 MiB); a client that lets it fill is
// dropped (the socket destroyed) so it never slows the others.
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse, type HttpApp, type HttpRouter } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Deferred, Effect, Exit, Layer, ParseResult, Redacted, Schema, Scope, Stream } from "effect"
import type { ApiError } from "../domain/errors.js"
import { RequireRead } from "../http/auth.js"
import { classify, errorResponse } from "../http/envelope.js"
import { currentMeter, operationContext } from "../http/meter.js"
import { inputSchema } from "../operations/operation.js"
import { CONNECTED, makeStreamTicker, openStream, STREAM_ROUTE, StreamInput, type StreamOptions } from "../operations/stream.js"
import { Counters } from "../store/counters.js"
import { Fanout } from "./fanout.js"

export interface StreamDoorOptions extends StreamOptions {
  /** Bytes a connection may have unsent before it is dropped. */
  readonly maxBufferBytes?: number
}

const decodeQuery = Schema.decodeUnknown(inputSchema(StreamInput))

/** The query string as the Schema reads it: a key once → string, repeated → array. */
const queryOf = (url: string): Record<string, string | Array<string>> => {
  const at = url.indexOf("?")
  const out: Record<string, string | Array<string>> = {}
  if (at < 0) return out
  for (const [key, value] of new URLSearchParams(url.slice(at + 1))) {
    const known = out[key]
    out[key] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value]
  }
  return out
}

const isStreamRequest = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === STREAM_ROUTE.method && (request.url.split("?")[0] ?? "") === STREAM_ROUTE.path

const HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
}

const serveStream = (options: StreamDoorOptions, closing: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const auth = yield* RequireRead
    const principal = yield* auth.bearer(Redacted.make(""))
    const input = yield* decodeQuery(queryOf(request.url)).pipe(
      Effect.catchTag("ParseError", (e: ParseResult.ParseError) => Effect.flatMap(HttpApiDecodeError.fromParseError(e), Effect.fail)),
    )
    const counters = yield* Counters
    const fanout = yield* Fanout
    const ctx = operationContext(yield* currentMeter, principal, counters)
    // The session's slot and final charge live as long as the response body, not the handler.
    const scope = yield* Scope.make()
    const session = yield* openStream(input, ctx, options).pipe(
      Scope.extend(scope),
      Effect.onError(() => Scope.close(scope, Exit.void)),
    )
    const response = NodeHttpServerRequest.toServerResponse(request)
    const maxBuffer = options.maxBufferBytes ?? 1024 * 1024
    const live = Effect.gen(function* () {
      const dropped = yield* Deferred.make<void>()
      const write = (text: string) => {
        if (response.destroyed || response.writableEnded) return
        response.write(text)
        if (response.writableLength > maxBuffer) {
          response.destroy()
          Deferred.unsafeDone(dropped, Exit.void)
        }
      }
      write(CONNECTED)
      yield* fanout.subscribe({
        markets: session.markets,
        deliver: (event) => {
          const text = session.accept(event)
          if (text !== null) write(text)
        },
      })
      // The connection ends when the session does, when the client is dropped, or when the door closes
      // (a shutdown must not wait for every client to leave).
      const last = yield* Effect.raceAll([session.run({ write }), Effect.as(Deferred.await(dropped), null), Effect.as(Deferred.await(closing), null)])
      if (last !== null) write(last)
    }).pipe(Effect.scoped, Effect.provideService(Counters, counters), Effect.ensuring(Scope.close(scope, Exit.void)))
    return HttpServerResponse.stream(Stream.drain(Stream.fromEffect(live)), { headers: HEADERS })
  })

/**
 * The middleware: GET /v2/stream here, everything else to the HttpApi. Failures before the stream
 * opens become the error envelope (the outer envelope middleware adds the rate headers).
 */
export const streamMiddleware = (options: StreamDoorOptions = {}) =>
  Effect.gen(function* () {
    const [auth, counters, fanout] = yield* Effect.all([RequireRead, Counters, Fanout])
    // One ticker for every stream this door opens, for the door's life.
    const sessions: StreamDoorOptions = { ...options, ticker: yield* makeStreamTicker(options.tickMs) }
    // Done when the door closes (shutdown): every open stream ends, so the server's close does not wait on them.
    const closing = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.done(closing, Exit.void))
    return (app: HttpApp.Default): HttpApp.Default<never, HttpRouter.HttpRouter.Provided> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (!isStreamRequest(request)) return app
        return serveStream(sessions, closing).pipe(
          Effect.provideService(RequireRead, auth),
          Effect.provideService(Counters, counters),
          Effect.provideService(Fanout, fanout),
          Effect.catchAll((e: ApiError | HttpApiDecodeError) => Effect.succeed(errorResponse(classify(Cause.fail(e), request).error))),
        )
      })
  })

/** The door as a layer for `makeHttpServer(ops, listen, StreamDoorLive)`. */
export const makeStreamDoor = (options: StreamDoorOptions = {}): Layer.Layer<never, never, RequireRead | Counters | Fanout> =>
  HttpApiBuilder.middleware(streamMiddleware(options))

export const StreamDoorLive = makeStreamDoor()
