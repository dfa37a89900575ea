// The live edge of the feed client: the wall clock, Math.random, real timers, `ws` and the console.
// The only such reads in feeds/; everything else gets them injected through `Edge` (./socket.ts).
import WebSocket from "ws"
import type { Dial, Edge } from "./socket.js"

/** A `Dial` over `ws`: text frames in, ws pings/pongs as proof of life (ws answers pings itself). */
export const wsDial: Dial = (url, on) => {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 })
  let closed = false
  const close = (reason: string) => {
    if (closed) return
    closed = true
    on.closed(reason)
  }
  ws.on("open", () => on.open())
  ws.on("message", (data, isBinary) => {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
    // Binary frames are not part of any venue protocol here; decode them as text and let the decoder reject.
    void isBinary
    on.message(buffer.toString("utf8"), buffer.length)
  })
  ws.on("ping", () => on.alive())
  ws.on("pong", () => on.alive())
  ws.on("error", (error) => close(`error: ${error.message}`))
  ws.on("close", (code, reason) => close(`closed ${code}${reason.length > 0 ? ` ${reason.toString("utf8")}` : ""}`))
  return {
    send: (text) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text)
    },
    terminate: () => {
      closed = true
      ws.terminate()
    },
  }
}

/** The live edge: wall clock, Math.random, real timers, `ws`, console. The only such reads in feeds/. */
export const liveEdge = (overrides: Partial<Edge> = {}): Edge => ({
  now: overrides.now ?? (() => Date.now()),
  random: overrides.random ?? (() => Math.random()),
  timers: overrides.timers ?? {
    setTimeout: (f, ms) => {
      return setTimeout(f, ms)
    },
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  },
  dial: overrides.dial ?? wsDial,
  log: overrides.log ?? ((message) => console.warn(message)),
})
