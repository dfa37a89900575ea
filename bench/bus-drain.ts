// What a bus subscriber pays per event: a fiber step per event (`Queue.take` in a loop) against chunks
// (`Queue.takeBetween(q, 1, 4_096)` and a plain loop), publish included. Every subscriber of the
// MarketBus sees every market event (books included), so this is a cost on the ingest path; the
// accounts layer drained its settlements subscription one event at a time until stop 10.
// Run: node --import tsx bench/bus-drain.ts
import { Effect, PubSub, Queue } from "effect"
const N = 500_000 // events published in bursts of 1,000
for (const mode of ["take", "takeBetween", "take", "takeBetween"]) {
  const t = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const bus = yield* PubSub.unbounded<{ _tag: string }>()
    const sub = yield* PubSub.subscribe(bus)
    let n = 0
    const t0 = performance.now()
    const consumer = yield* Effect.fork(mode === "take"
      ? Effect.repeat(Effect.flatMap(Queue.take(sub), () => Effect.sync(() => { n++ })), { while: () => n < N })
      : Effect.repeat(Effect.flatMap(Queue.takeBetween(sub, 1, 4096), (c) => Effect.sync(() => { n += c.length })), { while: () => n < N }))
    for (let i = 0; i < N; i += 1000) {
      for (let j = 0; j < 1000; j++) bus.unsafeOffer({ _tag: "BookChanged" })
      yield* Effect.yieldNow()
    }
    yield* consumer.await
    return performance.now() - t0
  })))
  console.log(mode, (t * 1000 / N).toFixed(2), "µs per event (publish + consume)")
}
