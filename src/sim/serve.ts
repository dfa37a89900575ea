// `whalewatch sim`: runs the venue simulator alone on loopback (SIM_PORT, SIM_SEED, HISTORY_DAYS) until
// interrupted — each venue's protocol at ws://127.0.0.1:<SIM_PORT>/ws/<venue>, REST history and the
// control API on the same port.
import { Effect } from "effect"
import { AppConfig } from "../config.js"
import { startSim } from "./server.js"

export const serveSim: Effect.Effect<void, unknown> = Effect.gen(function* () {
  const config = yield* AppConfig
  const sim = yield* Effect.acquireRelease(
    Effect.promise(() => startSim({ port: config.simPort, seed: config.simSeed, historyDays: config.historyDays })),
    (sim) => Effect.promise(() => sim.close()),
  )
  yield* Effect.logInfo(
    `venue simulator (seed ${config.simSeed}, ${config.historyDays} days of history) on ${sim.url}: ` +
      `ws ${sim.url.replace("http", "ws")}/ws/<venue>, history ${sim.url}/history/<venue>/…, control ${sim.url}/control/markets`,
  )
  return yield* Effect.never
}).pipe(Effect.scoped)
