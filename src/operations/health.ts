// Readiness: parts of the service register named checks (database, feeds, bus...) and GET /healthz
// reports them. It owns no check itself; a check that fails, dies or takes over 2 s counts as not ready.
import { Context, Duration, Effect, Layer, Schema } from "effect"

export const Readiness = Schema.Struct({ ready: Schema.Boolean, detail: Schema.String })
export type Readiness = typeof Readiness.Type

export const HealthReport = Schema.Struct({
  status: Schema.Literal("ok", "waiting"),
  /** Names of the checks that are not ready, in registration order. */
  waitingFor: Schema.Array(Schema.String),
  checks: Schema.Record({ key: Schema.String, value: Readiness }),
})
export type HealthReport = typeof HealthReport.Type

const CHECK_TIMEOUT = Duration.seconds(2)

export class Health extends Context.Tag("whalewatch/Health")<Health, {
  /** Adds (or replaces) the check called `name`. */
  readonly register: (name: string, check: Effect.Effect<Readiness>) => Effect.Effect<void>
  readonly report: Effect.Effect<HealthReport>
}>() {
  /** One registry per process: provide this same value everywhere so every part sees it. */
  static readonly layer: Layer.Layer<Health> = Layer.sync(Health, () => {
    const checks = new Map<string, Effect.Effect<Readiness>>()
    return {
      register: (name, check) => Effect.sync(() => void checks.set(name, check)),
      report: Effect.gen(function* () {
        const results = yield* Effect.forEach(
          [...checks],
          ([name, check]) =>
            check.pipe(
              Effect.timeoutTo({
                duration: CHECK_TIMEOUT,
                onTimeout: () => ({ ready: false, detail: "check timed out" }),
                onSuccess: (r): Readiness => r,
              }),
              Effect.catchAllCause(() => Effect.succeed<Readiness>({ ready: false, detail: "check failed" })),
              Effect.map((r) => [name, r] as const),
            ),
          { concurrency: "unbounded" },
        )
        const waitingFor = results.filter(([, r]) => !r.ready).map(([name]) => name)
        return {
          status: waitingFor.length === 0 ? "ok" as const : "waiting" as const,
          waitingFor,
          checks: Object.fromEntries(results),
        }
      }),
    }
  })
}
