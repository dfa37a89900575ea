// v1 criteria: which followed venues `platforms` names.
import { describe, expect, it } from "vitest"
import { followedVenues } from "./v1.js"
import { VENUES } from "./enums.js"

describe("followedVenues", () => {
  it("omitted or empty is every venue (as every other empty criteria list); venues without a feed match nothing", () => {
    expect(followedVenues(undefined)).toBeUndefined()
    expect(followedVenues([])).toBeUndefined()
    expect(followedVenues(["venue_b", "venue_a"])).toEqual(VENUES.filter((v) => v === "venue_a" || v === "venue_b"))
    expect(followedVenues(["venue_e"])).toEqual([])
  })
})
