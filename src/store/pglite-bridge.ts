// Serves one PGlite session over the PostgreSQL wire protocol on a local socket, in the embedded worker
// (embedded-worker.ts). It replaced @electric-sql/pglite-socket, which ran each protocol message of a
// query (Parse, Bind, Describe, Execute, Sync) as its own PGlite call through a chain of promises and
// wrote each answer separately: per query it allocated enough that the worker's young-generation GCs
// ran every ~130 ms, copied ~2 MB each and paused the worker up to 14 ms, stalling every query waiting
// (bench in the README, "The embedded bridge").
//
// What it does:
// - Startup: SSLRequest and GSSENCRequest are answered 'N' (no encryption on a local socket), a
//   CancelRequest closes its connection (PGlite cannot cancel a query), the StartupMessage goes to PGlite
//   once the bridge has checked it (protocol 3, a user named): PGlite fails a startup it rejects in a way
//   that breaks every later startup, so it must never see one.
// - A length PostgreSQL would refuse (a message below 4 bytes, a startup packet outside 8..10,000) closes
//   the connection.
// - After startup a connection's messages run in units, each ONE PGlite call whose whole answer is ONE
//   write: a simple Query, or the extended-protocol messages up to and including a Sync or a Flush.
// - One PGlite session serves every connection, so the connection that leaves it inside a transaction
//   block, or inside an extended query (a unit ended by Flush), holds it: other connections' units wait
//   until it has finished. Otherwise units run in the order they arrived.
// - A connection that goes away while it holds the session has its work rolled back (ROLLBACK, which also
//   aborts an extended query's implicit transaction, then Sync), as a backend does for a dropped client.
// - The session is shared, so what a connection sets on it (SET, temporary tables, named prepared
//   statements) is seen by the others; the service's clients use none of these but named statements
//   (the paper-order writer's, each connection naming its own apart). The statements a connection
//   prepared (a named Parse that succeeded, not closed again) are deallocated when it goes away, as its
//   own backend's would be.
// - Terminate closes the connection; one over `maxConnections` gets an ErrorResponse and is closed.
// - `maintain(sql)` queues a simple query of the host's own (the worker's timed CHECKPOINT) as a unit with
//   no connection: it runs in its turn, never inside a session a connection holds, and an error in its
//   answer goes to `onError`.
// COPY is not supported (the service does not use it).
import { createServer, type Server, type Socket } from "node:net"
import type { PGlite } from "@electric-sql/pglite"

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
/** PostgreSQL's own bound on a startup packet. */
const MAX_STARTUP_PACKET = 10_000
const code = (c: string): number => c.charCodeAt(0)
/** Extended-protocol messages that wait for the Sync or Flush that ends their unit. */
const GATHERED = new Set([code("P"), code("B"), code("D"), code("E"), code("C")])
const FLUSH = code("H")
const PARSE = code("P")
const CLOSE = code("C")
const PARSE_COMPLETE = code("1")
const TERMINATE = code("X")

/** A frontend message: its type byte, then a length that counts itself. */
const message = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(5)
  head.write(type, 0, "latin1")
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
/** A simple Query message. */
const simpleQuery = (sql: string): Buffer => message("Q", Buffer.from(`${sql}\u0000`, "utf8"))
const SYNC = message("S", Buffer.alloc(0))
const ROLLBACK = simpleQuery("ROLLBACK")

/** An ErrorResponse (backend) with severity FATAL. */
const fatal = (sqlState: string, text: string): Buffer =>
  message("E", Buffer.from(`SFATAL\u0000VFATAL\u0000C${sqlState}\u0000M${text}\u0000\u0000`, "utf8"))

/**
 * Why PostgreSQL would refuse this StartupMessage (protocol 3 with a user named), or null. The packet:
 * length, protocol version (major << 16 | minor), then name/value pairs of C strings, then a NUL.
 */
const startupRefusal = (packet: Buffer): { readonly sqlState: string; readonly text: string } | null => {
  const version = packet.readInt32BE(4)
  if (version >> 16 !== 3) return { sqlState: "0A000", text: `unsupported frontend protocol ${version >> 16}.${version & 0xffff}` }
  const fields = packet.toString("utf8", 8, packet.length).split("\u0000")
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "user") return fields[i + 1] === "" ? { sqlState: "28000", text: "no PostgreSQL user name specified in startup packet" } : null
  }
  return { sqlState: "28000", text: "no PostgreSQL user name specified in startup packet" }
}

/** The NUL-terminated string at `at`. */
const cString = (bytes: Buffer, at: number): string => {
  const end = bytes.indexOf(0, at)
  return bytes.toString("utf8", at, end < 0 ? bytes.length : end)
}

/** The backend messages of an answer, in order: each one's type byte and where its body starts and ends. */
function* messagesOf(answer: Buffer): Generator<{ readonly type: number; readonly body: number; readonly end: number }> {
  for (let at = 0; at + 5 <= answer.length; at += 1 + answer.readInt32BE(at + 1)) {
    yield { type: answer[at]!, body: at + 5, end: at + 1 + answer.readInt32BE(at + 1) }
  }
}

/** The message text of the first ErrorResponse in a backend answer, or null when it has none. */
const errorIn = (answer: Buffer): string | null => {
  for (const m of messagesOf(answer)) {
    if (m.type !== code("E")) continue
    const text = answer.toString("utf8", m.body, m.end).split("\u0000").find((f) => f.startsWith("M"))
    return text === undefined ? "an error without a message" : text.slice(1)
  }
  return null
}

/**
 * Adds to the connection's statements the named ones its unit's Parse messages prepared: each Parse is
 * answered ParseComplete or an error, and after an error the rest of the unit is skipped, so the first
 * k Parses succeeded when the answer holds k ParseCompletes.
 */
const notePrepared = (connection: Connection, parses: ReadonlyArray<string>, answer: Buffer): void => {
  let k = 0
  for (const m of messagesOf(answer)) if (m.type === PARSE_COMPLETE) k++
  for (const name of parses.slice(0, k)) if (name !== "") connection.prepared.add(name)
}

class Connection {
  /** Bytes received and not yet a whole message. */
  buffered: Buffer = Buffer.alloc(0)
  started = false
  /** The gathered messages of the unit not yet ended. */
  gathered: Array<Buffer> = []
  /** The statement names of the gathered Parse messages, in order. */
  parsing: Array<string> = []
  /** The names of the statements it prepared and has not closed. */
  readonly prepared = new Set<string>()
  closed = false
  constructor(readonly socket: Socket) {}
}

interface Unit {
  /** Null for the host's own maintenance query. */
  readonly connection: Connection | null
  readonly bytes: Uint8Array
  /** False for a unit ended by Flush: the extended query goes on, so its connection keeps the session. */
  readonly complete: boolean
  /** For a unit with no connection: its error is not reported (a cleanup that may find nothing to clean). */
  readonly quiet?: boolean
  /** The statement names of its Parse messages, in order (empty names included). */
  readonly parses?: ReadonlyArray<string>
}

export interface BridgeAddress {
  readonly path?: string
  readonly host?: string
  readonly port?: number
}

export class PgliteBridge {
  private readonly server: Server
  private readonly connections = new Set<Connection>()
  /** Every socket open, refused ones included (a refused client may keep its end open). */
  private readonly sockets = new Set<Socket>()
  private readonly queue: Array<Unit> = []
  /** The connection that holds the session (inside a transaction block or an extended query). */
  private owner: Connection | null = null
  private draining = false

  constructor(
    private readonly db: PGlite,
    private readonly options: { readonly maxConnections: number; readonly onError?: (error: unknown) => void },
  ) {
    this.server = createServer((socket) => this.accept(socket))
  }

  /** Listens on a unix socket path, or on 127.0.0.1 with an OS-assigned port. */
  listen(path: string | null): Promise<BridgeAddress> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject)
      const done = () => {
        this.server.off("error", reject)
        const address = this.server.address()
        resolve(path !== null || address === null || typeof address === "string"
          ? { path: path ?? String(address) }
          : { host: "127.0.0.1", port: address.port })
      }
      if (path !== null) this.server.listen(path, done)
      else this.server.listen(0, "127.0.0.1", done)
    })
  }

  /** Stops listening and closes every connection (after finishing what the owner left open). */
  close(): Promise<void> {
    for (const connection of [...this.connections]) this.drop(connection)
    for (const socket of this.sockets) socket.destroy()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  /**
   * Queues one simple query of the host's own, run in its turn when no connection holds the session (a
   * transaction block or an extended query in progress waits for it to finish). Its answer is dropped;
   * an ErrorResponse in it goes to `onError`.
   */
  maintain(sql: string): void {
    this.queue.push({ connection: null, bytes: simpleQuery(sql), complete: true })
    this.drain()
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket)
    socket.once("close", () => this.sockets.delete(socket))
    if (this.connections.size >= this.options.maxConnections) {
      socket.on("error", () => socket.destroy())
      socket.end(fatal("53300", "sorry, too many clients already"))
      return
    }
    if (socket.remoteAddress !== undefined) socket.setNoDelay(true)
    const connection = new Connection(socket)
    this.connections.add(connection)
    socket.on("data", (chunk: Buffer) => this.receive(connection, chunk))
    socket.on("error", () => this.drop(connection))
    socket.on("close", () => this.drop(connection))
  }

  private receive(connection: Connection, chunk: Buffer): void {
    if (connection.closed) return
    let bytes = connection.buffered.length === 0 ? chunk : Buffer.concat([connection.buffered, chunk])
    while (!connection.closed) {
      if (!connection.started) {
        if (bytes.length < 8) break
        const length = bytes.readInt32BE(0)
        if (length < 8 || length > MAX_STARTUP_PACKET) {
          this.refuse(connection, "08P01", "invalid length of startup packet")
          break
        }
        if (bytes.length < length) break
        const request = bytes.readInt32BE(4)
        const packet = Buffer.from(bytes.subarray(0, length))
        bytes = bytes.subarray(length)
        if (request === SSL_REQUEST || request === GSSENC_REQUEST) {
          connection.socket.write("N")
        } else if (request === CANCEL_REQUEST) {
          this.drop(connection)
        } else {
          const refused = startupRefusal(packet)
          if (refused !== null) {
            this.refuse(connection, refused.sqlState, refused.text)
            break
          }
          connection.started = true
          this.queue.push({ connection, bytes: packet, complete: true })
        }
        continue
      }
      if (bytes.length < 5) break
      const length = bytes.readInt32BE(1)
      if (length < 4) {
        this.refuse(connection, "08P01", "invalid message length")
        break
      }
      const total = length + 1
      if (bytes.length < total) break
      const type = bytes[0]!
      const one = bytes.subarray(0, total)
      bytes = bytes.subarray(total)
      if (type === TERMINATE) {
        this.drop(connection)
        break
      }
      connection.gathered.push(one)
      if (type === PARSE) {
        connection.parsing.push(one[5] === 0 ? "" : cString(one, 5))
      } else if (type === CLOSE && one[5] === code("S")) {
        connection.prepared.delete(cString(one, 6))
      }
      if (GATHERED.has(type)) continue
      // Sync, Flush, a simple Query or anything else: the unit so far runs as one call.
      const unit = connection.gathered.length === 1 ? Buffer.from(one) : Buffer.concat(connection.gathered)
      connection.gathered = []
      // Unnamed statements (every pooled query's) leave nothing behind: only a named Parse is followed.
      const parses = connection.parsing
      const named = parses.some((name) => name !== "")
      if (parses.length > 0) connection.parsing = []
      this.queue.push({ connection, bytes: unit, complete: type !== FLUSH, ...(named ? { parses } : {}) })
    }
    // What is left may point into `chunk`: keep a copy only when something is left.
    connection.buffered = bytes.length === 0 ? Buffer.alloc(0) : Buffer.from(bytes)
    this.drain()
  }

  /** Runs the units that may run now, in order: all of them, or only the owner's while one holds the session. */
  private drain(): void {
    if (this.draining) return
    this.draining = true
    try {
      for (;;) {
        const at = this.owner === null ? 0 : this.queue.findIndex((u) => u.connection === this.owner)
        if (at < 0 || at >= this.queue.length) break
        const [unit] = this.queue.splice(at, 1)
        if (unit === undefined) continue
        const { connection } = unit
        if (connection === null) {
          const failure = errorIn(this.run(unit.bytes))
          if (failure !== null && unit.quiet !== true) this.options.onError?.(new Error(failure))
          continue
        }
        if (connection.closed) continue
        const answer = this.run(unit.bytes, connection)
        if (unit.parses !== undefined) notePrepared(connection, unit.parses, answer)
        if (answer.length > 0 && !connection.closed) connection.socket.write(answer)
        this.owner = !unit.complete || this.db.isInTransaction() ? connection : null
      }
    } finally {
      this.draining = false
    }
  }

  /** One PGlite call; its whole answer. PGlite runs it synchronously (no filesystem sync: NodeFS has none). */
  private run(bytes: Uint8Array, connection: Connection | null = null): Buffer {
    const parts: Array<Buffer> = []
    this.db.execProtocolRawStream(bytes, { syncToFs: false, onRawData: (data) => void parts.push(Buffer.from(data)) })
      .catch((error: unknown) => {
        // Not a query's error (those are ErrorResponses in the answer): PGlite itself failed.
        this.options.onError?.(error)
        if (connection !== null) this.drop(connection)
      })
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }

  /** Answers a FATAL ErrorResponse and closes the connection. */
  private refuse(connection: Connection, sqlState: string, text: string): void {
    if (!connection.closed) connection.socket.write(fatal(sqlState, text))
    this.drop(connection)
  }

  private drop(connection: Connection): void {
    if (connection.closed) return
    connection.closed = true
    this.connections.delete(connection)
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]!.connection === connection) this.queue.splice(i, 1)
    if (this.owner === connection) {
      // Undo what it left open: ROLLBACK ends a transaction block and aborts an extended query's implicit
      // transaction (a Sync first would commit that), then Sync ends the extended query.
      this.run(ROLLBACK)
      this.run(SYNC)
      this.owner = null
    }
    for (const name of connection.prepared) {
      this.queue.push({ connection: null, bytes: simpleQuery(`DEALLOCATE "${name.replaceAll("\"", "\"\"")}"`), complete: true, quiet: true })
    }
    connection.socket.destroy()
    this.drain()
  }
}
