// The load generator of the HTTP benches, on raw sockets: the same contract as load-worker.mjs (closed or
// open loop, keys, bodies, idempotency keys; latency from the scheduled departure in the open loop), but
// each request is one string written to a keep-alive socket and each answer is read by a small HTTP/1.1
// response reader (status line, Content-Length or chunked body). node:http's client makes a request
// object, a response stream and their listeners per request; on this 2-core machine the generator's own
// young-generation GCs and event-loop turns then showed up in every row's tail, the bare route's too.
// At most one request is in flight on a socket (no pipelining); idle sockets are reused last-in first-out,
// as node:http's Agent does; up to `connections` sockets are opened, as they are needed.
import { connect } from "node:net"
import { parentPort, workerData } from "node:worker_threads"
import { drive } from "./drive.mjs"

const CRLF2 = Buffer.from("\r\n\r\n")

/** Reads one HTTP/1.1 response at a time off a socket's bytes; `take` returns its status once complete. */
class ResponseReader {
  buffer = Buffer.alloc(0)
  /** The head's status and where the body ends (Content-Length), or -1 while chunked. */
  status = 0
  bodyEnd = -2
  chunked = false

  push(bytes) {
    this.buffer = this.buffer.length === 0 ? bytes : Buffer.concat([this.buffer, bytes])
  }

  /** The status of the complete response at the head of the buffer (and drops it), or 0. */
  take() {
    if (this.bodyEnd === -2) {
      const headEnd = this.buffer.indexOf(CRLF2)
      if (headEnd < 0) return 0
      const head = this.buffer.toString("latin1", 0, headEnd)
      this.status = Number(head.slice(9, 12))
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
      this.chunked = length === null && /\r\ntransfer-encoding:\s*chunked/i.test(head)
      this.buffer = this.buffer.subarray(headEnd + 4)
      this.bodyEnd = this.chunked ? -1 : Number(length?.[1] ?? 0)
    }
    if (!this.chunked) {
      if (this.buffer.length < this.bodyEnd) return 0
      this.buffer = this.buffer.subarray(this.bodyEnd)
      return this.done()
    }
    // Chunked: size line, data, CRLF, until the zero-size chunk and its trailing CRLF.
    let at = 0
    for (;;) {
      const lineEnd = this.buffer.indexOf("\r\n", at)
      if (lineEnd < 0) return 0
      const size = parseInt(this.buffer.toString("latin1", at, lineEnd), 16)
      if (size === 0) {
        const end = this.buffer.indexOf("\r\n", lineEnd + 2)
        if (end < 0) return 0
        this.buffer = this.buffer.subarray(end + 2)
        return this.done()
      }
      if (this.buffer.length < lineEnd + 2 + size + 2) return 0
      at = lineEnd + 2 + size + 2
    }
  }

  done() {
    const status = this.status
    this.bodyEnd = -2
    this.chunked = false
    return status
  }
}

const load = async (url, options) => {
  const target = new URL(url)
  const host = target.hostname
  const port = Number(target.port)
  const latencies = []
  const statuses = {}
  let issued = 0
  let done = 0
  let errors = 0
  const idle = []
  let open = 0
  /** Requests waiting for a socket: [request text, t0, resolve]. */
  const waiting = []

  const finish = (conn, status) => {
    const { t0, resolve } = conn.current
    conn.current = null
    latencies.push(performance.now() - t0)
    statuses[String(status)] = (statuses[String(status)] ?? 0) + 1
    done++
    resolve()
    release(conn)
  }
  const release = (conn) => {
    const next = waiting.shift()
    if (next === undefined) idle.push(conn)
    else send(conn, next)
  }
  const fail = (conn) => {
    if (conn.current !== null) {
      errors++
      conn.current.resolve()
      conn.current = null
    }
    open--
    const i = idle.indexOf(conn)
    if (i >= 0) idle.splice(i, 1)
    const next = waiting.shift()
    if (next !== undefined) dispatch(next)
  }
  const openSocket = () => {
    open++
    const socket = connect({ host, port, noDelay: true })
    const conn = { socket, reader: new ResponseReader(), current: null, closed: false }
    socket.on("data", (bytes) => {
      conn.reader.push(bytes)
      for (;;) {
        const status = conn.reader.take()
        if (status === 0) return
        if (conn.current !== null) finish(conn, status)
      }
    })
    const close = () => {
      if (conn.closed) return
      conn.closed = true
      fail(conn)
    }
    socket.on("error", close)
    socket.on("close", close)
    return conn
  }
  const send = (conn, request) => {
    conn.current = { t0: request.t0, resolve: request.resolve }
    conn.socket.write(request.text)
  }
  const dispatch = (request) => {
    const conn = idle.pop()
    if (conn !== undefined) send(conn, request)
    else if (open < options.connections) send(openSocket(), request)
    else waiting.push(request)
  }
  const one = (t0) =>
    new Promise((resolve) => {
      const n = issued++
      const body = options.bodies.length === 0 ? undefined : options.bodies[n % options.bodies.length]
      let text = `${options.method} ${options.path} HTTP/1.1\r\nhost: ${host}:${port}\r\nconnection: keep-alive\r\n` +
        `authorization: Bearer ${options.tokens[(options.firstToken + n) % options.tokens.length]}\r\n`
      if (options.idempotencyPrefix !== undefined) text += `idempotency-key: ${options.idempotencyPrefix}-${n}\r\n`
      text += body === undefined
        ? (options.method === "GET" ? "\r\n" : "content-length: 0\r\n\r\n")
        : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      dispatch({ text, t0, resolve })
    })

  const elapsedMs = await drive(options, one, () => issued)
  for (const conn of idle) conn.socket.destroy()
  return { done, errors, statuses, elapsedMs, latenciesMs: latencies }
}

load(workerData.url, workerData.options).then((r) => parentPort.postMessage(r))
