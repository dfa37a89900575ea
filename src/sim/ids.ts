// Venue-native identifiers for simulated listings: Polymarket condition ids, token ids and slugs,
// Polymarket US slugs, Kalshi event and market tickers. All drawn from the model's generator or
// derived from names and simulated times, never from the wall clock.
import { createHash } from "node:crypto"
import type { Venue } from "../domain/enums.js"
import type { Rng } from "./random.js"

/**
 * The key of one simulated world: its seed and its start. Each start of the simulator makes a new world
 * from the same seed; the ids it draws at random are keyed by the world, so a later start never hands an
 * earlier world's id (stored by a service that followed it) to a different market or trade.
 */
export const worldKey = (seed: number, start: number): string => `${seed}:${start}`

const keyedHex = (world: string, drawn: string): string => createHash("sha256").update(`${world}|${drawn}`).digest("hex")

/** A 32-bit salt of the world: the generator's draw mixed with the world's key. */
export const worldSalt = (drawn: number, world: string): number => (drawn ^ Number.parseInt(keyedHex(world, "salt").slice(0, 8), 16)) >>> 0

/** `n` decimal digits (at most 77, no leading zero) of the world's hash of a draw of `n` digits. */
const keyedDigits = (rng: Rng, world: string, n: number): string => {
  const digits = BigInt(`0x${keyedHex(world, rng.digits(n))}`).toString().padStart(78, "0").slice(-n)
  return digits.startsWith("0") ? `1${digits.slice(1)}` : digits
}

/** 32 hex digits in the shape of a version-4 uuid. */
const uuidShape = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`

export const slugify = (text: string): string =>
  text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/g, "")

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]

/** Kalshi date code of a UTC time: `26MAR01` (day) or `26MAR011215` (with hour and minute). */
export const kalshiDate = (ms: number, withTime: boolean): string => {
  const d = new Date(ms)
  const yy = String(d.getUTCFullYear() % 100).padStart(2, "0")
  const dd = String(d.getUTCDate()).padStart(2, "0")
  const base = `${yy}${MONTHS[d.getUTCMonth()] ?? "JAN"}${dd}`
  if (!withTime) return base
  return `${base}${String(d.getUTCHours()).padStart(2, "0")}${String(d.getUTCMinutes()).padStart(2, "0")}`
}

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** Hands out unique ids per venue: a clash (same slug, same ticker) gets a numeric suffix. */
export class IdBook {
  private readonly taken = new Set<string>()

  unique(venue: Venue, id: string, join = "-"): string {
    let candidate = id
    for (let n = 2; this.taken.has(`${venue}|${candidate}`); n++) candidate = `${id}${join}${n}`
    this.taken.add(`${venue}|${candidate}`)
    return candidate
  }
}

export const conditionId = (rng: Rng, world: string): string => `0x${keyedHex(world, rng.hex(64))}`

/** A version-4-shaped uuid, drawn and keyed by the world. */
export const uuidId = (rng: Rng, world: string): string => uuidShape(keyedHex(world, rng.uuid()))

/** A numeric id of `n` digits (no leading zero), drawn and keyed by the world. */
export const numericId = (rng: Rng, world: string, n: number): string => keyedDigits(rng, world, n)

/** splitmix32 finaliser: a bijection on 32-bit words, so distinct inputs give distinct words. */
const mix = (x: number): number => {
  let z = (x + 0x9e3779b9) >>> 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
  return (z ^ (z >>> 16)) >>> 0
}

/**
 * Hex derived from a trade's sequence number and the model's salt: the first word is a bijection of
 * `seq`, so ids never collide. Derived on demand, so thirty days of history cost no id strings.
 */
const derivedHex = (seq: number, salt: number, words: number): string => {
  let out = ""
  for (let i = 0; i < words; i++) out += mix((i === 0 ? seq : mix(seq + i * 0x632be5ab)) ^ mix(salt + i)).toString(16).padStart(8, "0")
  return out
}

export const tradeIdOf = (seq: number, salt: number): string => uuidShape(derivedHex(seq, salt, 4))
export const txHashOf = (seq: number, salt: number): string => `0x${derivedHex(seq, salt ^ 0x5bd1e995, 8)}`
/** Polymarket outcome token id: a uint256 as a decimal string (75 to 78 digits in the wild). */
export const tokenId = (rng: Rng, world: string): string => keyedDigits(rng, world, rng.int(76, 77))

/** An upper-case ticker fragment from a name: "Man City" → "MANCIT". */
export const tickerPart = (text: string): string => {
  const s = text.toUpperCase().replace(/[^A-Z0-9.]/g, "")
  return s.length === 0 ? "X" : s.slice(0, 6)
}
