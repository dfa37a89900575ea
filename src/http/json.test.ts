// bodyJson writes exactly what JSON.stringify writes, also when the same row objects come back.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyJson } from "./json.js"

const row = fc.record({
  id: fc.string(),
  n: fc.oneof(fc.double(), fc.integer()),
  gone: fc.constant(undefined),
  nested: fc.jsonValue(),
}, { requiredKeys: ["id"] })

describe("bodyJson", () => {
  it("equals JSON.stringify on any body, twice over the same rows", () => {
    fc.assert(fc.property(
      fc.oneof(
        fc.record({ data: fc.array(fc.oneof(row, fc.jsonValue(), fc.constant(undefined))), nextCursor: fc.option(fc.string()), extra: fc.constant(undefined) }),
        fc.jsonValue(),
        fc.array(row),
      ),
      (body) => {
        expect(bodyJson(body)).toBe(JSON.stringify(body))
        expect(bodyJson(body)).toBe(JSON.stringify(body))
      },
    ), { numRuns: 500, seed: 7 })
  })

  it("keeps a row's text by identity: an equal new object is written from its own fields", () => {
    const a = { id: "t1", usd: 1 }
    expect(bodyJson({ data: [a, a] })).toBe('{"data":[{"id":"t1","usd":1},{"id":"t1","usd":1}]}')
    expect(bodyJson({ data: [{ id: "t1", usd: 2 }] })).toBe('{"data":[{"id":"t1","usd":2}]}')
  })

  it("leaves toJSON bodies and non-object bodies to JSON.stringify", () => {
    const date = new Date(0)
    expect(bodyJson(date)).toBe(JSON.stringify(date))
    expect(bodyJson({ at: date, data: [date] })).toBe(JSON.stringify({ at: date, data: [date] }))
    expect(bodyJson(null)).toBe("null")
    expect(bodyJson("x")).toBe('"x"')
  })
})
