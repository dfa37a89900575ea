// Webhook delivery signatures (spec: Authentication 7, Limits "Signature freshness"): the
// `X-Service-Signature` header `t=<unix_seconds>,v1=<hex hmac>`, where the HMAC is SHA-256 keyed with the
// endpoint's secret over the string `<t>.<body>`. Pure: the caller passes the clock reading and the exact
// body bytes that go on the wire; nothing here sends, stores or reads time.
import { createHmac, timingSafeEqual } from "node:crypto"
import { SIGNATURE_FRESHNESS_SECONDS } from "./limits.js"

/** The header that carries the signature on every delivery. */
export const SIGNATURE_HEADER = "X-Service-Signature"

type Body = string | Uint8Array

const hmacHex = (secret: string, t: number, body: Body): string =>
  createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex")

/** The header value for `body` sent at `unixSeconds` (a whole number of seconds). */
export const sign = (secret: string, body: Body, unixSeconds: number): string => {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError(`unixSeconds must be a whole number of seconds, got ${unixSeconds}`)
  }
  return `t=${unixSeconds},v1=${hmacHex(secret, unixSeconds, body)}`
}

export interface ParsedSignature {
  readonly t: number
  /** Every `v1=` value (more than one while a receiver rotates secrets). */
  readonly v1: ReadonlyArray<string>
}

/** `t=…,v1=…` split into its parts; undefined when the header is malformed. Unknown schemes are skipped. */
export const parseSignature = (header: string): ParsedSignature | undefined => {
  let t: number | undefined
  const v1: Array<string> = []
  for (const part of header.split(",")) {
    const eq = part.indexOf("=")
    if (eq < 0) return undefined
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (key === "t") {
      if (t !== undefined || !/^\d{1,15}$/.test(value)) return undefined
      t = Number(value)
    } else if (key === "v1") {
      if (!/^[0-9a-f]{64}$/i.test(value)) return undefined
      v1.push(value.toLowerCase())
    }
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 }
}

/**
 * True when `header` signs `body` with `secret` and its timestamp is at most `toleranceSeconds` old at
 * `nowSeconds` (exactly the tolerance passes; one second more fails). A timestamp more than the tolerance
 * in the future fails too, so a signature cannot be pre-made for later replay.
 */
export const verify = (
  secret: string,
  header: string,
  body: Body,
  nowSeconds: number,
  toleranceSeconds: number = SIGNATURE_FRESHNESS_SECONDS,
): boolean => {
  const parsed = parseSignature(header)
  if (parsed === undefined) return false
  if (nowSeconds - parsed.t > toleranceSeconds || parsed.t - nowSeconds > toleranceSeconds) return false
  const expected = Buffer.from(hmacHex(secret, parsed.t, body), "hex")
  return parsed.v1.some((candidate) => {
    const given = Buffer.from(candidate, "hex")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}
