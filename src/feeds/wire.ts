// Shared reading kit of the venue decoders: strict wire-number parsing, time units, the rejection
// signal and the category/kind convention. Pure and allocation-light (hot path: every frame); it
// knows no venue's field names, and it never lets an exception out of a decoder's `decode`.
import type { Decoded, FeedEvent, FrameRejected } from "../domain/feed-events.js"
import { CATEGORIES, KINDS, categoryOfKind, kindBelongsTo } from "../domain/enums.js"
import type { Category, Kind, Venue } from "../domain/enums.js"
import { round6 } from "../numbers.js"

/** Thrown inside a decoder to reject the frame (or one object of an array frame); never escapes. */
export class Bad {
  constructor(readonly reason: string) {}
}

export const bad = (reason: string): never => {
  throw new Bad(reason)
}

export const EMPTY: Decoded = Object.freeze({ events: Object.freeze([]), rejected: Object.freeze([]) })

export const rejection = (venue: Venue, reason: string): FrameRejected => ({ _tag: "FrameRejected", venue, reason })

export const rejectedOnly = (venue: Venue, reason: string): Decoded => ({ events: [], rejected: [rejection(venue, reason)] })

/** Turns anything caught while decoding into a rejection reason (a `Bad`, or a defect we report, not throw). */
export const reasonOf = (error: unknown): string =>
  error instanceof Bad ? error.reason : `internal: ${error instanceof Error ? error.message : "unknown failure"}`

/** Parses frame text; a syntax error is `NOT_JSON` (callers reject the frame), never a throw. */
export const NOT_JSON: unique symbol = Symbol("not JSON")
export const parseText = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const record = (value: unknown, what: string): Record<string, unknown> =>
  isRecord(value) ? value : bad(`${what} is not an object`)

export const string = (value: unknown, what: string): string =>
  typeof value === "string" && value.length > 0 ? value : bad(`${what} missing or not a string`)

export const optionalString = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null

export const array = (value: unknown, what: string): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : bad(`${what} is not an array`)

// Decimal strings as venues send them: "0.456", ".48", "219.217767", "-54.00". No exponents, no
// hex, no blanks: `Number()` alone would accept "", " 1", "0x10" and "Infinity".
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)$/
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

/**
 * Reads decimal text in one pass (hot path: every price and size). With at most 15 digits the
 * mantissa and the power of ten are exact doubles, so `mantissa / 10^k` is the correctly rounded
 * value, the same double `Number(text)` gives; longer text takes the regex and `Number`.
 */
const decimalText = (s: string): number => {
  const n = s.length
  let i = n > 0 && s.charCodeAt(0) === 45 ? 1 : 0
  const negative = i === 1
  let mantissa = 0
  let digits = 0
  let fraction = -1
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48)
      digits++
      if (fraction >= 0) fraction++
    } else if (c === 46 && fraction < 0) {
      fraction = 0
    } else {
      return Number.NaN
    }
  }
  if (digits === 0) return Number.NaN
  if (digits > 15) return n < 40 && DECIMAL.test(s) ? Number(s) : Number.NaN
  const value = fraction > 0 ? mantissa / (POW10[fraction] as number) : mantissa
  return negative ? -value : value
}

/** A decimal string or a finite JSON number, else NaN (callers check with `Number.isFinite`). */
export const decimalOrNaN = (value: unknown): number => {
  if (typeof value === "string") return decimalText(value)
  return typeof value === "number" && Number.isFinite(value) ? value : Number.NaN
}

export const decimal = (value: unknown, what: string): number => {
  const n = decimalOrNaN(value)
  return Number.isFinite(n) ? n : bad(`${what} is not a decimal`)
}

/** A probability price, 0..1 inclusive. */
export const price = (value: unknown, what: string): number => {
  const n = decimalOrNaN(value)
  return n >= 0 && n <= 1 ? n : bad(`${what} is not a price in 0..1`)
}

/** Sizes above this are not a venue's (a trillion contracts): arithmetic on them would overflow. */
export const MAX_SIZE = 1e12

/** A non-negative size, at most MAX_SIZE. */
export const size = (value: unknown, what: string): number => {
  const n = decimalOrNaN(value)
  return n >= 0 && n <= MAX_SIZE ? n : bad(`${what} is not a size in 0..${MAX_SIZE}`)
}

export const complement = (p: number): number => round6(1 - p)

const DIGITS = /^\d{1,16}$/

/** Epoch time in a given unit (ms or s), as an integer number or a digit string, to epoch ms. */
export const epochOrNaN = (value: unknown, unitMs: number): number => {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value * unitMs : Number.NaN
  if (typeof value === "string" && DIGITS.test(value)) return Number(value) * unitMs
  return Number.NaN
}

export const epoch = (value: unknown, unitMs: number, what: string): number => {
  const n = epochOrNaN(value, unitMs)
  return Number.isFinite(n) ? n : bad(`${what} is not a timestamp`)
}

const digitAt = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : Number.NaN
}
const twoDigits = (s: string, i: number): number => digitAt(s, i) * 10 + digitAt(s, i + 1)

/** RFC 3339 / ISO 8601 text to epoch ms, else NaN. */
export const isoOrNaN = (value: unknown): number => {
  if (typeof value !== "string") return Number.NaN
  const n = value.length
  // Fast path for the common UTC form `YYYY-MM-DDTHH:MM:SS[.fff…]Z`: Date.parse costs about as
  // much as parsing a whole small frame.
  if (n >= 20 && n <= 32 && value.charCodeAt(n - 1) === 90 && value.charCodeAt(4) === 45 &&
    value.charCodeAt(7) === 45 && value.charCodeAt(10) === 84 && value.charCodeAt(13) === 58 &&
    value.charCodeAt(16) === 58 && (n === 20 || (value.charCodeAt(19) === 46 && n > 21))) {
    const year = twoDigits(value, 0) * 100 + twoDigits(value, 2)
    const month = twoDigits(value, 5)
    const day = twoDigits(value, 8)
    const hour = twoDigits(value, 11)
    const minute = twoDigits(value, 14)
    const second = twoDigits(value, 17)
    let ms = 0
    for (let i = 20, scale = 100; i < n - 1; i++, scale /= 10) {
      const d = digitAt(value, i)
      if (Number.isNaN(d)) return Number.NaN
      if (scale >= 1) ms += d * scale
    }
    if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59)) {
      return Number.NaN
    }
    return Date.UTC(year, month - 1, day, hour, minute, second, ms)
  }
  return n >= 10 && n <= 40 ? Date.parse(value) : Number.NaN
}

// Category and kind travel as spec words on the wire (our simulator's extension fields); a real
// venue's own labels ("Crypto", "NBA", "Climate and Weather") are matched case-insensitively as a
// fallback. A kind that contradicts the category is dropped rather than trusted.
const CATEGORY_WORDS: ReadonlyMap<string, Category> = new Map<string, Category>([
  ...CATEGORIES.map((c) => [c, c] as const),
  ["economics", "finance"], ["financials", "finance"], ["companies", "finance"],
  ["elections", "politics"], ["world", "politics"], ["climate and weather", "culture"],
  ["entertainment", "culture"], ["science and technology", "culture"], ["tech", "culture"],
  ["mentions", "culture"], ["weather", "culture"], ["health", "culture"],
])
const KIND_WORDS: ReadonlyMap<string, Kind> = new Map(KINDS.map((k) => [k, k] as const))

const word = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 && value.length < 64 ? value.trim().toLowerCase() : null

export const categoryKind = (
  categoryRaw: unknown,
  kindRaw: unknown,
  tags: unknown,
): { category: Category | null; kind: Kind | null } => {
  const tagWords = Array.isArray(tags)
    ? tags.map((t) => word(isRecord(t) ? (t["label"] ?? t["slug"]) : t)).filter((t): t is string => t !== null)
    : []
  const kindWord = word(kindRaw)
  let kind = (kindWord === null ? undefined : KIND_WORDS.get(kindWord.replace(/[\s-]+/g, "_"))) ??
    tagWords.map((t) => KIND_WORDS.get(t.replace(/[\s-]+/g, "_"))).find((k) => k !== undefined) ?? null
  const categoryWord = word(categoryRaw)
  const category = (categoryWord === null ? undefined : CATEGORY_WORDS.get(categoryWord)) ??
    (kind === null ? undefined : categoryOfKind(kind)) ??
    tagWords.map((t) => CATEGORY_WORDS.get(t)).find((c) => c !== undefined) ?? null
  if (kind !== null && (category === null || !kindBelongsTo(kind, category))) kind = null
  return { category, kind }
}

/** Runs one object's decoder, turning a `Bad` into a rejection (array frames: one bad item, one rejection). */
export const decodeEach = (
  venue: Venue,
  value: unknown,
  one: (item: unknown, events: Array<FeedEvent>) => void,
): Decoded => {
  const events: Array<FeedEvent> = []
  if (Array.isArray(value)) {
    let rejected: Array<FrameRejected> | undefined
    for (const item of value) {
      const before = events.length
      try {
        one(item, events)
      } catch (error) {
        events.length = before
        ;(rejected ??= []).push(rejection(venue, reasonOf(error)))
      }
    }
    // An empty array is a valid (empty) initial dump, not a bad frame.
    return { events, rejected: rejected ?? EMPTY.rejected }
  }
  try {
    one(value, events)
  } catch (error) {
    return rejectedOnly(venue, reasonOf(error))
  }
  return events.length === 0 ? EMPTY : { events, rejected: EMPTY.rejected }
}
