// bodyJson writes exactly what JSON.stringify writes, and its UTF-8 byte length, also when the same row objects come back.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyJson } from "./json.js"

const row = fc.record({
  id: fc.string({ unit: "binary" }),
  n: fc.oneof(fc.double(), fc.integer()),
  gone: fc.constant(undefined),
  nested: fc.jsonValue(),
}, { requiredKeys: ["id"] })

describe("bodyJson", () => {
  it("equals JSON.stringify on any body, twice over the same rows", () => {
    fc.assert(fc.property(
      fc.oneof(
        fc.record({ data: fc.array(fc.oneof(row, fc.jsonValue(), fc.constant(undefined))), nextCursor: fc.option(fc.string({ unit: "grapheme" })), extra: fc.constant(undefined) }),
        fc.jsonValue(),
        fc.array(row),
      ),
      (body) => {
        const expected = { text: JSON.stringify(body), bytes: Buffer.byteLength(JSON.stringify(body)) }
        expect(bodyJson(body)).toEqual(expected)
        expect(bodyJson(body)).toEqual(expected)
      },
    ), { numRuns: 500, seed: 7 })
  })

  it("counts UTF-8 bytes, not characters", () => {
    const body = { data: [{ title: "Zürich 東京 🐋" }], nextCursor: "é" }
    expect(bodyJson(body).bytes).toBe(Buffer.byteLength(JSON.stringify(body)))
    expect(bodyJson(body).bytes).toBeGreaterThan(JSON.stringify(body).length)
  })

  it("keeps a row's text by identity: an equal new object is written from its own fields", () => {
    const a = { id: "t1", usd: 1 }
    expect(bodyJson({ data: [a, a] }).text).toBe('{"data":[{"id":"t1","usd":1},{"id":"t1","usd":1}]}')
    expect(bodyJson({ data: [{ id: "t1", usd: 2 }] }).text).toBe('{"data":[{"id":"t1","usd":2}]}')
  })

  it("leaves toJSON bodies and non-object bodies to JSON.stringify", () => {
    const date = new Date(0)
    expect(bodyJson(date).text).toBe(JSON.stringify(date))
    expect(bodyJson({ at: date, data: [date] }).text).toBe(JSON.stringify({ at: date, data: [date] }))
    expect(bodyJson(null).text).toBe("null")
    expect(bodyJson("x").text).toBe('"x"')
  })
})
