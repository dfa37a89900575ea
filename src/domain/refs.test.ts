// Trader refs: a venue_b wallet in any letter case is one trader; other handles are kept as given.
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { TraderRef } from "./refs.js"

const decode = (ref: string) => Schema.decodeUnknownEither(TraderRef)(ref)

describe("TraderRef", () => {
  it("writes a venue_b wallet in lower case, whatever case it was given in", () => {
    expect(decode("venue_b:0xA0F21E6d351BAA9185716B5c00C2925eD9621848")).toEqual(Either.right("venue_b:0xa0f21e6d351baa9185716b5c00c2925ed9621848"))
    expect(decode("venue_b:0xa0f21e6d351baa9185716b5c00c2925ed9621848")).toEqual(Either.right("venue_b:0xa0f21e6d351baa9185716b5c00c2925ed9621848"))
  })

  it("keeps other handles as given (venue_a handles, venue_b handles that are not wallets)", () => {
    expect(decode("venue_a:Alice")).toEqual(Either.right("venue_a:Alice"))
    expect(decode("venue_a:0xA0F21E6d351BAA9185716B5c00C2925eD9621848")).toEqual(Either.right("venue_a:0xA0F21E6d351BAA9185716B5c00C2925eD9621848"))
    expect(decode("venue_b:Carol")).toEqual(Either.right("venue_b:Carol"))
    expect(Either.isLeft(decode("venue_d:x"))).toBe(true)
  })
})
