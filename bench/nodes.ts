// Two nodes on one PostgreSQL and the paper lease: what forwarding costs a paper order, and how long a
// failover takes. Starts a `whalewatch sim` and two `serve` nodes (a holds the lease, b forwards to it),
// then sends keyed paper orders open loop at --rate per second for --seconds to each node in turn, and
// prints p50/p99/max of each; then a graceful handover: orders at 50/s to b for 5 s, SIGTERM to a a
// second in (a gives the lease up and says so, b takes it), printing the answers and the slowest wait;
// then restarts a (a follower now), kills the holder with SIGKILL and sends one order a second to the
// other until one is placed, printing how long that took (it waits for the lease to expire, takes it,
// restores, answers). Through both, whale trades of a band no simulated trade reaches are printed on the
// market every 200 ms, and a signal bot on that band says how many of them it copied (the taking node's
// catch-up gives it those that came while no node ran it).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/nodes.ts [--rate 100] [--seconds 10] [--lease 10]
import { performance } from "node:perf_hooks"
import { startCluster } from "../test/support/nodes.js"
import { deepenBook, injectTrade, openContracts } from "../test/support/sim-api.js"
import { waitFor } from "../test/support/service.js"
import { arg, type LoadOptions, runLoad, summary } from "./support/load.js"

const databaseUrl = process.env["DATABASE_URL"]
if (databaseUrl === undefined || databaseUrl === "") {
  console.error("bench/nodes.ts needs DATABASE_URL (two nodes cannot share the embedded store)")
  process.exit(2)
}
const rate = arg("rate", 100)
const seconds = arg("seconds", 10)
const lease = arg("lease", 10)
// 120 requests a minute per key: enough keys (each its own account) for each round at the rate, and a
// fresh set per round (a key's minute is shared), plus a few for the failover.
const ROUNDS = 4
const HANDOVER_RATE = 50
const HANDOVER_SECONDS = 5
const perRound = Math.ceil(Math.max(rate * seconds, HANDOVER_RATE * HANDOVER_SECONDS) / 100) + 2
const keys = perRound * (ROUNDS + 1) + 5

/** An open venue_a market with deep Yes asks at 0.50, so every order fills in full whatever the simulator does meanwhile. */
const openMarket = async (sim: string, index = 0): Promise<string> => {
  const found = (await openContracts(sim, "venue_a"))[index]
  if (found === undefined) throw new Error("the simulator has no open venue_a market")
  const deepened = await deepenBook(sim, found.ref)
  if (deepened.status !== 200) throw new Error(`deepening the book failed: ${deepened.status}`)
  return found.ref
}

/**
 * Whale buys of $77,500 (the signal bot's band) on `market` (not the orders' market: they take its asks), one
 * every 200 ms until stopped, each into a book deepened again first so its copy fills: how many were printed.
 */
const whales = (sim: string, market: string) => {
  let on = true
  let printed = 0
  const loop = (async () => {
    while (on) {
      await (await deepenBook(sim, market)).arrayBuffer()
      const response = await injectTrade(sim, market, 77_500, "bench_gap_whale")
      await response.arrayBuffer()
      if (response.status === 200) printed++
      await new Promise((r) => setTimeout(r, 200))
    }
  })()
  return { stop: async () => { on = false; await loop; return printed } }
}
const BAND = { minUsd: 77_000, maxUsd: 78_000 }

const cluster = await startCluster(databaseUrl, "a", { PAPER_LEASE_SECONDS: String(lease) }, keys)
try {
  await cluster.start("b")
  const market = { ref: await openMarket(cluster.sim) }
  const whaleMarket = await openMarket(cluster.sim, 1)
  const body = JSON.stringify({ market: market.ref, outcome: "yes", action: "buy", usd: 5 })
  await waitFor("the market on both nodes", async () => {
    const answers = await Promise.all(["a", "b"].map((id) =>
      fetch(`${cluster.node(id).url}/v2/markets/${encodeURIComponent(market.ref)}`, { headers: { authorization: `Bearer ${cluster.token}` } })))
    return answers.every((r) => r.status === 200) ? true : undefined
  }, 30_000)

  const rows = []
  let round = 0
  for (const [id, label] of [["a", "a (holder, local)"], ["b", "b (forwards to a)"], ["a", "a (holder, local)"], ["b", "b (forwards to a)"]] as const) {
    const options: LoadOptions = {
      connections: 20, requests: rate * seconds, seconds, rate, path: "/v2/paper-orders", method: "POST",
      bodies: [body], tokens: cluster.tokens.slice(round * perRound, (round + 1) * perRound), idempotencyPrefix: `nodes-${round++}`,
    }
    const result = await runLoad(cluster.node(id).url, options)
    rows.push(summary(`POST /v2/paper-orders via ${label}`, options, result))
  }
  console.table(rows)

  // The signal bot (made through b, so it runs on a) and how many trades it holds, read through a node.
  const auth = { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" }
  const made = await fetch(`${cluster.node("b").url}/v2/bots`, {
    method: "POST", headers: auth, body: JSON.stringify({ trigger: { signal: { ...BAND, venue: ["venue_a"] } }, sizing: { usd: 5 } }),
  })
  const botId = ((await made.json()) as { data: { id: string } }).data.id
  const copies = async (via: string): Promise<number> => {
    const response = await fetch(`${cluster.node(via).url}/v2/bots/${encodeURIComponent(botId)}`, { headers: auth })
    return ((await response.json()) as { data: { record: { trades: number } } }).data.record.trades
  }
  const copiedSince = async (via: string, before: number, printed: number, what: string) => {
    await new Promise((r) => setTimeout(r, 2_000))
    const copied = (await copies(via)) - before
    console.log(`${what}: ${printed} whale trades printed in the signal bot's band, ${copied} copied by it`)
  }

  // Graceful handover: orders open loop at HANDOVER_RATE to b while a is sent SIGTERM a second in. a stops
  // its doors and actors, gives the lease up and says so; b, listening, takes it and restores the actors.
  const handoverOptions: LoadOptions = {
    connections: 20, requests: HANDOVER_RATE * HANDOVER_SECONDS, seconds: HANDOVER_SECONDS, rate: HANDOVER_RATE, path: "/v2/paper-orders", method: "POST",
    bodies: [body], tokens: cluster.tokens.slice(ROUNDS * perRound, (ROUNDS + 1) * perRound), idempotencyPrefix: "handover",
  }
  const copiesBeforeHandover = await copies("b")
  const handoverWhales = whales(cluster.sim, whaleMarket)
  const handover = runLoad(cluster.node("b").url, handoverOptions)
  await new Promise((r) => setTimeout(r, 1_000))
  const termAt = performance.now()
  await cluster.stop("a", "SIGTERM")
  const exitedMs = performance.now() - termAt
  const handed = await handover
  const moved = await cluster.holder()
  console.table([summary(`POST /v2/paper-orders via b, SIGTERM to a at 1 s`, handoverOptions, handed)])
  console.log(
    `handover: a exited ${(exitedMs / 1_000).toFixed(2)} s after SIGTERM; orders via b meanwhile: ${JSON.stringify(handed.statuses)}, ` +
    `the slowest ${Math.max(...handed.latenciesMs).toFixed(0)} ms; the lease is now ${moved?.nodeId}'s at epoch ${moved?.epoch}`,
  )
  await copiedSince("b", copiesBeforeHandover, await handoverWhales.stop(), "handover")
  // a comes back as a follower, and b holds the lease for the failover below.
  await cluster.start("a", cluster.node("a").port)
  const [dead, survivor] = moved?.nodeId === "b" ? ["b", "a"] as const : ["a", "b"] as const

  const copiesBeforeFailover = await copies(survivor)
  const failoverWhales = whales(cluster.sim, whaleMarket)
  await new Promise((r) => setTimeout(r, 1_000))
  await cluster.stop(dead, "SIGKILL")
  const killedAt = performance.now()
  let tries = 0
  const answers: Array<number> = []
  for (;;) {
    tries++
    const response = await fetch(`${cluster.node(survivor).url}/v2/paper-orders`, {
      method: "POST",
      headers: { authorization: `Bearer ${cluster.tokens[(ROUNDS + 1) * perRound + (tries % 5)]}`, "content-type": "application/json", "idempotency-key": `failover-${tries}` },
      body,
    })
    await response.arrayBuffer()
    answers.push(response.status)
    if (response.status === 201) break
    if (performance.now() - killedAt > (lease + 30) * 1_000) throw new Error(`no order placed on ${survivor} ${lease + 30} s after the kill (last ${response.status})`)
    await new Promise((r) => setTimeout(r, 1_000))
  }
  const holder = await cluster.holder()
  console.log(
    `failover: kill -9 of ${dead}, first order placed via ${survivor} after ${((performance.now() - killedAt) / 1_000).toFixed(2)} s ` +
    `(answers ${answers.join(", ")}; PAPER_LEASE_SECONDS=${lease}); the lease is now ${holder?.nodeId}'s at epoch ${holder?.epoch}`,
  )
  await new Promise((r) => setTimeout(r, 1_000))
  await copiedSince(survivor, copiesBeforeFailover, await failoverWhales.stop(), "failover")
} finally {
  await cluster.close()
}
