// The per-request meter of the HTTP door: who called, the rate window charged, the headers an
// operation asked for. Created by the envelope middleware for each request, filled by the auth
// middleware and the operation's context, and written onto the response (success or error).
import { Effect, FiberRef } from "effect"
import type { Validation } from "../domain/errors.js"
import type { Principal } from "../domain/principal.js"
import type { OperationContext } from "../operations/operation.js"
import { chargeExtra, type RateState, type RateWindow } from "../operations/rate-limit.js"
import type { CountersService } from "../store/counters.js"

export interface Meter {
  principal: Principal | undefined
  window: RateWindow | undefined
  rate: RateState | undefined
  readonly headers: Map<string, string>
  /**
   * What the envelope middleware found wrong with the request's text (the path, query or body) before any
   * route read it. Answered once the key is checked and the request counted (`refuseInput`), so a bad
   * request is counted and carries the rate headers like any other; a request that never reaches a key
   * check (no route) gets it straight away.
   */
  refused: Validation | undefined
}

/** Fails with the request's input problem, if the envelope middleware found one. */
export const refuseInput = (meter: Meter): Effect.Effect<void, Validation> =>
  meter.refused === undefined ? Effect.void : Effect.fail(meter.refused)

/**
 * The running request's meter. A FiberRef, set with `Effect.locally` by the envelope middleware: providing
 * it as a service would copy the request's whole context (and its fiber refs) on every request.
 */
export const RequestMeter: FiberRef.FiberRef<Meter | undefined> = FiberRef.unsafeMake<Meter | undefined>(undefined)

export const newMeter = (): Meter => ({ principal: undefined, window: undefined, rate: undefined, headers: new Map(), refused: undefined })

/** The meter of the running request; its absence is a wiring bug. */
export const currentMeter: Effect.Effect<Meter> = Effect.flatMap(
  FiberRef.get(RequestMeter),
  (m) => (m !== undefined ? Effect.succeed(m) : Effect.dieMessage("RequestMeter is not set")),
)

/** Charges an operation's extra units (includes, sweep values) in the request's window. */
const charge = Effect.fnUntraced(function* (meter: Meter, counters: CountersService, units: number) {
  if (units <= 0 || meter.window === undefined) return
  const { state, refused } = yield* chargeExtra(counters, meter.window, units)
  meter.rate = state
  if (refused !== undefined) return yield* Effect.fail(refused)
})

/** The context an operation runs with behind the HTTP door. */
export const operationContext = (meter: Meter, principal: Principal, counters: CountersService): OperationContext => ({
  principal,
  charge: (units) => charge(meter, counters, units),
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
