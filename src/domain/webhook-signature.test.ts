// Delivery signatures: the header's form, a known vector computed independently, tampering, the
// five-minute freshness edge (300 s passes, 301 s fails) and malformed headers.
import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { parseSignature, sign, verify } from "./webhook-signature.js"

const SECRET = "whsec_test-secret"
const BODY = JSON.stringify({ type: "trade.followed", data: { id: "t1", usd: 25000 } })
const T = 1_760_000_000

describe("sign", () => {
  it("writes t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">", () => {
    const expected = createHmac("sha256", SECRET).update(`${T}.${BODY}`).digest("hex")
    expect(sign(SECRET, BODY, T)).toBe(`t=${T},v1=${expected}`)
  })

  it("signs the bytes as given", () => {
    expect(sign(SECRET, Buffer.from(BODY, "utf8"), T)).toBe(sign(SECRET, BODY, T))
  })

  it("refuses a time that is not whole seconds", () => {
    expect(() => sign(SECRET, BODY, 1.5)).toThrow(RangeError)
    expect(() => sign(SECRET, BODY, -1)).toThrow(RangeError)
  })
})

describe("verify", () => {
  const header = sign(SECRET, BODY, T)

  it("accepts its own signature", () => {
    expect(verify(SECRET, header, BODY, T)).toBe(true)
  })

  it("accepts exactly 300 s old and refuses 301 s old", () => {
    expect(verify(SECRET, header, BODY, T + 300)).toBe(true)
    expect(verify(SECRET, header, BODY, T + 301)).toBe(false)
  })

  it("takes another tolerance", () => {
    expect(verify(SECRET, header, BODY, T + 60, 60)).toBe(true)
    expect(verify(SECRET, header, BODY, T + 61, 60)).toBe(false)
  })

  it("refuses a timestamp more than the tolerance in the future", () => {
    expect(verify(SECRET, header, BODY, T - 300)).toBe(true)
    expect(verify(SECRET, header, BODY, T - 301)).toBe(false)
  })

  it("refuses another secret, another body and another timestamp", () => {
    expect(verify("whsec_other", header, BODY, T)).toBe(false)
    expect(verify(SECRET, header, BODY + " ", T)).toBe(false)
    const v1 = header.split("v1=")[1]
    expect(verify(SECRET, `t=${T + 1},v1=${v1}`, BODY, T + 1)).toBe(false)
  })

  it("accepts any of several v1 values and ignores unknown schemes", () => {
    const v1 = header.split("v1=")[1]
    expect(verify(SECRET, `t=${T},v0=abc,v1=${"0".repeat(64)},v1=${v1}`, BODY, T)).toBe(true)
    expect(verify(SECRET, `t=${T}, v1=${v1?.toUpperCase()}`, BODY, T)).toBe(true)
  })

  it("refuses malformed headers", () => {
    const v1 = header.split("v1=")[1]
    for (const bad of ["", `t=${T}`, `v1=${v1}`, `t=abc,v1=${v1}`, `t=${T},v1=xyz`, `t=${T},t=${T},v1=${v1}`, `t=-5,v1=${v1}`, "garbage"]) {
      expect(parseSignature(bad), bad).toBeUndefined()
      expect(verify(SECRET, bad, BODY, T), bad).toBe(false)
    }
  })
})
