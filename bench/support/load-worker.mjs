// The load generator of the HTTP benches, run in a worker thread so it does not share the server's event
// loop: keep-alive node:http requests, closed loop (each of `connections` sends its next request when the
// last answered) or open loop (request i leaves at start + i / rate, whatever the answers before it).
// Request n uses key tokens[(firstToken + n) % tokens.length] and body bodies[n % bodies.length]; with
// `idempotencyPrefix` it carries its own Idempotency-Key. In the open loop a latency counts from the
// request's scheduled departure, so waiting behind a slow answer is in it.
import { Agent, request } from "node:http"
import { parentPort, workerData } from "node:worker_threads"
import { drive } from "./drive.mjs"

const load = async (url, options) => {
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies = []
  const statuses = {}
  let issued = 0
  let done = 0
  let errors = 0
  const one = (t0) =>
    new Promise((resolve) => {
      const n = issued++
      const headers = { authorization: `Bearer ${options.tokens[(options.firstToken + n) % options.tokens.length]}` }
      const body = options.bodies.length === 0 ? undefined : options.bodies[n % options.bodies.length]
      if (body !== undefined) headers["content-type"] = "application/json"
      if (options.idempotencyPrefix !== undefined) headers["idempotency-key"] = `${options.idempotencyPrefix}-${n}`
      const req = request({ agent, host: target.hostname, port: target.port, path: options.path, method: options.method, headers }, (res) => {
        res.resume()
        res.on("end", () => {
          latencies.push(performance.now() - t0)
          statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1
          done++
          resolve()
        })
      })
      req.on("error", () => {
        errors++
        resolve()
      })
      req.end(body)
    })
  const elapsedMs = await drive(options, one, () => issued)
  agent.destroy()
  return { done, errors, statuses, elapsedMs, latenciesMs: latencies }
}

load(workerData.url, workerData.options).then((r) => parentPort.postMessage(r))
