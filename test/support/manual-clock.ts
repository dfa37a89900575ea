// A Clock for servers started by tests: wall time is whatever the test sets (so minute windows are
// deterministic), while sleeps still take real time (servers keep working).
import { Clock, Effect, Layer } from "effect"

export interface ManualClock {
  readonly layer: Layer.Layer<never>
  readonly set: (millis: number) => void
  readonly advance: (millis: number) => void
  readonly now: () => number
}

export const manualClock = (start: number): ManualClock => {
  let now = start
  const real = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: (duration) => real.sleep(duration),
  }
  return {
    layer: Layer.setClock(clock),
    set: (millis) => void (now = millis),
    advance: (millis) => void (now += millis),
    now: () => now,
  }
}
