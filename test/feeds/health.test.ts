// Feed health: each venue's connection state and counters registered as a readiness check.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Health } from "../../src/operations/health.js"
import { feedHealth, registerFeedHealth, startFeeds } from "../../src/feeds/client.js"
import { FakeNetwork, ManualTime, testEdge } from "./harness.js"

describe("feed health", () => {
  it("reports a venue ready once all its connections are open, with its counters", async () => {
    const time = new ManualTime()
    const network = new FakeNetwork()
    const client = startFeeds({ baseUrl: "ws://sim", venues: ["venue_a", "venue_d"], sink: () => {}, edge: testEdge(time, network) })
    const report = () => Effect.runPromise(
      Effect.gen(function* () {
        yield* registerFeedHealth(client)
        return yield* Effect.flatMap(Health, (h) => h.report)
      }).pipe(Effect.provide(Health.layer)),
    )
    expect((await report()).waitingFor).toEqual(["feed:venue_a", "feed:venue_d"])
    network.links[0]?.on.open()
    network.links[0]?.frame("{bad")
    const r = await report()
    expect(r.waitingFor).toEqual(["feed:venue_d"])
    expect(r.checks["feed:venue_a"]?.detail).toContain("market#0 open; frames 1")
    expect(r.checks["feed:venue_a"]?.detail).toContain("rejected 1")
    const [a] = feedHealth(client)
    expect(a).toMatchObject({ venue: "venue_a", connected: true, frames: 1, rejected: { "not JSON": 1 } })
    client.stop()
  })
})
