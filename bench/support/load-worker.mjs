// The load generator of the HTTP benches, run in a worker thread so it does not share the server's event
// loop: keep-alive node:http requests, closed loop (each of `connections` sends its next request when the
// last answered) or open loop (request i leaves at start + i / rate, whatever the answers before it).
// Keys rotate over `k0`..`k<tokens-1>`; with `idempotencyPrefix` each request carries its own key.
import { Agent, request } from "node:http"
import { parentPort, workerData } from "node:worker_threads"

const load = async (url, options) => {
  const target = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies = []
  const statuses = {}
  let issued = 0
  let done = 0
  let errors = 0
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  const one = () =>
    new Promise((resolve) => {
      const n = issued++
      const headers = { authorization: `Bearer k${n % options.tokens}` }
      if (options.body !== undefined) headers["content-type"] = "application/json"
      if (options.idempotencyPrefix !== undefined) headers["idempotency-key"] = `${options.idempotencyPrefix}-${n}`
      const t0 = performance.now()
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
      req.end(options.body)
    })
  if (options.rate > 0) {
    const pending = []
    while (issued < options.requests && performance.now() < deadline) {
      const wait = started + (issued * 1000) / options.rate - performance.now()
      if (wait > 1) await new Promise((r) => setTimeout(r, wait))
      pending.push(one())
    }
    await Promise.all(pending)
  } else {
    const connection = async () => {
      while (issued < options.requests && performance.now() < deadline) await one()
    }
    await Promise.all(Array.from({ length: options.connections }, connection))
  }
  const elapsedMs = performance.now() - started
  agent.destroy()
  return { done, errors, statuses, elapsedMs, latenciesMs: latencies }
}

load(workerData.url, workerData.options).then((r) => parentPort.postMessage(r))
