// Counters.take: a conditional add in one atomic step, in process and on Redis (when REDIS_URL is set).
// All or nothing adds only what fits under the ceiling; partial adds what room there is; a refused take
// changes nothing, so requests at the edge never make others see the count inflated (the concurrency
// audit's 429s for requests within the limit came from an add that was then taken back).
import { randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Counters } from "../../src/store/counters.js"
import { Redis } from "../../src/store/redis.js"

const backends: ReadonlyArray<readonly [string, () => Layer.Layer<Counters>]> = [
  ["in process", () => Counters.memory],
  ...(process.env["REDIS_URL"]
    ? [["Redis", () => Counters.redis({ prefix: `test:${randomUUID()}:` }).pipe(Layer.provide(Redis.layer(process.env["REDIS_URL"] ?? "")))] as const]
    : []),
]

const run = <A>(layer: Layer.Layer<Counters>, f: (c: Counters["Type"]) => Effect.Effect<A>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Counters, f).pipe(Effect.provide(layer))))

describe.each(backends)("Counters.take (%s)", (_, layerOf) => {
  it("adds all or nothing under the ceiling, or what room there is", async () => {
    const result = await run(layerOf(), (c) => Effect.gen(function* () {
      const first = yield* c.take("k", 100, 120, 60, false)
      const fits = yield* c.take("k", 20, 120, 60, false) // exactly to the ceiling
      const refused = yield* c.take("k", 1, 120, 60, false)
      const partial = yield* c.take("p", 150, 120, 60, true)
      const none = yield* c.take("p", 5, 120, 60, true)
      return { first, fits, refused, partial, none, k: yield* c.get("k"), p: yield* c.get("p"), empty: yield* c.take("e", 0, 120, 60, false) }
    }))
    expect(result).toEqual({
      first: { taken: 100, before: 0 }, fits: { taken: 20, before: 100 }, refused: { taken: 0, before: 120 },
      partial: { taken: 120, before: 0 }, none: { taken: 0, before: 120 }, k: 120, p: 120, empty: { taken: 0, before: 0 },
    })
  })

  it("at the edge, refused takes change nothing: ten single units fit beside five refused twenties", async () => {
    const result = await run(layerOf(), (c) => Effect.gen(function* () {
      yield* c.take("edge", 110, 120, 60, false)
      const takes = yield* Effect.all([
        ...Array.from({ length: 5 }, () => c.take("edge", 20, 120, 60, false)),
        ...Array.from({ length: 10 }, () => c.take("edge", 1, 120, 60, false)),
      ], { concurrency: "unbounded" })
      return { taken: takes.map((t) => t.taken), value: yield* c.get("edge") }
    }))
    expect(result).toEqual({ taken: [0, 0, 0, 0, 0, ...Array.from({ length: 10 }, () => 1)], value: 120 })
  })
})
