// Number query parameters take decimal text or a JSON number, nothing else `Number()` would take.
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { IntParam, NumberParam } from "./params.js"

const decode = (schema: Schema.Schema<number, any>, value: unknown) => Schema.decodeUnknownEither(schema)(value)

describe("number parameters", () => {
  const limit = IntParam("limit", 1, 200)
  const usd = NumberParam("minUsd", 0, 1_000_000)

  it("take decimal text and JSON numbers", () => {
    for (const [value, n] of [["50", 50], [50, 50], ["010", 10], ["200", 200]] as const) {
      expect(decode(limit, value)).toEqual(Either.right(n))
    }
    for (const [value, n] of [["0.5", 0.5], [".5", 0.5], ["16", 16], ["1000000", 1_000_000], [0, 0]] as const) {
      expect(decode(usd, value)).toEqual(Either.right(n))
    }
  })

  it("refuse hex, exponents, blanks and the words Number() reads, naming the field", () => {
    for (const value of ["0x10", "1e1", " 10", "10 ", "", "Infinity", "1.5", "201", "0", "+5"]) {
      const result = decode(limit, value)
      expect(Either.isLeft(result), value).toBe(true)
    }
    for (const value of ["0x10", "1e3", "-1", "NaN", "1,000"]) expect(Either.isLeft(decode(usd, value)), value).toBe(true)
    const failed = decode(limit, "0x10")
    if (Either.isLeft(failed)) expect(String(failed.left.message)).toContain("limit must be an integer from 1 to 200")
  })
})
