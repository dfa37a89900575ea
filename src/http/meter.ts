// The per-request meter of the HTTP door: who called, the rate window charged, the headers an
// operation asked for. Created by the envelope middleware for each request, filled by the auth
// middleware and the operation's context, and written onto the response (success or error).
import { Context, Effect } from "effect"
import type { Principal } from "../domain/principal.js"
import type { OperationContext } from "../operations/operation.js"
import { chargeExtra, type RateState, type RateWindow } from "../operations/rate-limit.js"
import type { CountersService } from "../store/counters.js"
import { Counters } from "../store/counters.js"

export interface Meter {
  principal: Principal | undefined
  window: RateWindow | undefined
  rate: RateState | undefined
  readonly headers: Map<string, string>
}

export class RequestMeter extends Context.Tag("whalewatch/http/RequestMeter")<RequestMeter, Meter>() {}

export const newMeter = (): Meter => ({ principal: undefined, window: undefined, rate: undefined, headers: new Map() })

/** The meter of the running request; its absence is a wiring bug. */
export const currentMeter: Effect.Effect<Meter> = Effect.flatMap(
  Effect.serviceOption(RequestMeter),
  (m) => (m._tag === "Some" ? Effect.succeed(m.value) : Effect.dieMessage("RequestMeter is not provided")),
)

/** The context an operation runs with behind the HTTP door. */
export const operationContext = (meter: Meter, principal: Principal, counters: CountersService): OperationContext => ({
  principal,
  charge: (units) =>
    Effect.gen(function* () {
      if (units <= 0 || meter.window === undefined) return
      const { state, refused } = yield* chargeExtra(meter.window, units).pipe(Effect.provideService(Counters, counters))
      meter.rate = state
      if (refused !== undefined) return yield* Effect.fail(refused)
    }),
  setHeader: (name, value) => Effect.sync(() => void meter.headers.set(name.toLowerCase(), value)),
})

/** Headers the meter puts on the response. */
export const meterHeaders = (meter: Meter): Record<string, string> => {
  const out: Record<string, string> = Object.fromEntries(meter.headers)
  if (meter.rate !== undefined) {
    out["x-ratelimit-limit"] = String(meter.rate.limit)
    out["x-ratelimit-remaining"] = String(meter.rate.remaining)
    out["x-ratelimit-reset"] = String(meter.rate.resetSeconds)
  }
  return out
}
