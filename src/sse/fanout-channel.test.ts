// Redis pub/sub ignores the database number: the fan-out channel names it, so two deployments on one Redis
// server (each on its own database, as their counters are) never see each other's events.
import { describe, expect, it } from "vitest"
import { fanoutChannel } from "./fanout.js"

describe("fanoutChannel", () => {
  it("differs by Redis database and keeps the ww: prefix", () => {
    expect(fanoutChannel(0)).toBe("ww:0:intel-events")
    expect(fanoutChannel(7)).toBe("ww:7:intel-events")
    expect(new Set([0, 1, 7, 15].map(fanoutChannel)).size).toBe(4)
  })
})
