// Round trips through the embedded database as the service reaches it: PGlite in its worker thread behind
// the bridge (src/store/pglite-bridge.ts), a `pg` client on its socket. Paced parameterised INSERTs (a
// text key, a text[] and a 200-byte jsonb) and SELECT 1, p50/p99/max in ms.
//   node --import tsx bench/embedded-bridge.ts [--rate 500] [--queries 3000]
import { Effect } from "effect"
import pg from "pg"
import { freshDataDir, hostTestDataDir, rmDataDir } from "../test/support/db.js"
import { arg } from "./support/load.js"

const rate = arg("rate", 500)
const queries = arg("queries", 3_000)
const pct = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return +(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN).toFixed(3)
}

const dir = freshDataDir("bridge-bench")
const rows = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
  const address = yield* hostTestDataDir(dir)
  const client = new pg.Client({ host: address.host, port: address.port, user: "postgres", database: "postgres" })
  yield* Effect.promise(() => client.connect())
  yield* Effect.promise(() => client.query("CREATE TABLE bench_things (id text PRIMARY KEY, tags text[], doc jsonb)"))
  let n = 0
  const kinds = {
    "INSERT (3 parameters)": () =>
      client.query("INSERT INTO bench_things VALUES ($1, $2::text[], $3::jsonb)", [`k${n++}`, ["a", "b", "c"], JSON.stringify({ a: 1, b: "x".repeat(200) })]),
    "SELECT 1": () => client.query("SELECT 1"),
  }
  const out = []
  for (const [label, run] of Object.entries(kinds)) {
    for (let i = 0; i < 300; i++) yield* Effect.promise(run) // warm-up
    const latencies: Array<number> = []
    const t0 = performance.now()
    for (let i = 0; i < queries; i++) {
      const wait = t0 + (i * 1000) / rate - performance.now()
      if (wait > 1) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, wait)))
      const start = performance.now()
      yield* Effect.promise(run)
      latencies.push(performance.now() - start)
    }
    out.push({ query: label, rate, queries, p50ms: pct(latencies, 50), p99ms: pct(latencies, 99), maxMs: pct(latencies, 100) })
  }
  yield* Effect.promise(() => client.end())
  return out
})))
rmDataDir(dir)
console.log("embedded PGlite (worker thread) through the bridge, one pg connection, paced; latency ms")
console.table(rows)
process.exit(0)
