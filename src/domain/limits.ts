// The spec's Limits table as named constants, and the small bounded Schemas every resource file builds
// from (prices 0..1, UTC times, dollar amounts, bounded text). Pure; no I/O and no resource shapes here.
import { Schema } from "effect"

// Stake and order bounds.
export const MAX_SIZING_USD = 1_000_000
export const MAX_PERCENT = 10_000
export const DEFAULT_SIZING_USD = 100
export const MAX_PAPER_BUY_USD = 1_000_000
export const MAX_PAPER_SELL_CONTRACTS = 10_000_000
export const MAX_HOLD_HOURS = 720
export const MAX_IDEMPOTENCY_KEY = 200

// Name and text bounds.
export const MAX_BOT_NAME = 60
export const MIN_KEYWORDS = 1
export const MAX_KEYWORDS = 10
export const MAX_KEYWORD_LENGTH = 40
export const MIN_SIGNAL_TRADERS = 1
export const MAX_SIGNAL_TRADERS = 25
export const MAX_SIGNAL_CATEGORIES = 5
export const MAX_SIGNAL_VENUES = 50
export const MAX_TRADE_Q_WORDS = 5
export const MAX_TRADE_Q_LENGTH = 200
export const MAX_MARKET_Q_LENGTH = 200
export const MAX_TRADER_Q_LENGTH = 100
export const MAX_V1_SPORTS_LEAGUES = 20

// Paging and repeated filters.
export const MIN_PAGE_LIMIT = 1
export const MAX_PAGE_LIMIT = 200
export const DEFAULT_PAGE_LIMIT = 50
export const PAGE_LIMIT = { min: MIN_PAGE_LIMIT, max: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT } as const
export const MAX_REPEAT = 50

// Backtests.
export const MIN_BACKTEST_DAYS = 1
export const MAX_BACKTEST_DAYS = 365
export const DEFAULT_BACKTEST_DAYS = 90
export const BACKTEST_DAYS = { min: MIN_BACKTEST_DAYS, max: MAX_BACKTEST_DAYS, default: DEFAULT_BACKTEST_DAYS } as const
export const MIN_SWEEP_VALUES = 2
export const MAX_SWEEP_VALUES = 20
export const MIN_V1_SINCE_DAYS = 1
export const MAX_V1_SINCE_DAYS = 365
export const DEFAULT_V1_SINCE_DAYS = 90

// Other numeric limits of the table (enforced by doors and actors, named here once).
export const REQUESTS_PER_MINUTE = 120
export const DAILY_TRADE_ALLOWANCE = 50_000
export const DAILY_POSITIONS_ALLOWANCE = 5_000
export const MAX_CONCURRENT_STREAMS = 3
export const STREAM_HEARTBEAT_SECONDS = 25
export const MAX_SIGNAL_BOTS = 20
export const MAX_MARKET_BOTS = 20
export const MAX_WEBHOOK_ENDPOINTS = 5
/** Not in the spec's Limits table (strategies are a v1 operation with shapes not shown): README "Strategies". */
export const MAX_STRATEGIES = 50
export const MAX_STRATEGY_NAME = 60
/** Not in the spec's Limits table (follows are a v1 operation with shapes not shown): README "Follows". */
export const MAX_FOLLOWS = 100
/** Not in the spec's Limits table (market alerts are a v1 operation with shapes not shown): README "Market alerts". */
export const MAX_MARKET_ALERTS = 50
export const MAX_ALERT_NOTE = 200
export const WEBHOOK_DELIVERY_ATTEMPTS = 8
export const SIGNATURE_FRESHNESS_SECONDS = 5 * 60
export const BOOK_CACHE_SECONDS = 5
export const MAX_BOOK_LEVELS = 20
export const CALL_READINESS_MS = 500
export const MAX_CALL_REASONS = 4
export const TRADES_WINDOW_DAYS = 30
export const MOVES_WINDOW_HOURS = 24
export const AGREEMENT_WINDOW_HOURS = 24
export const BOT_ACTIVITY_WINDOW_DAYS = 30
export const BACKTEST_CACHE_MINUTES = 10
export const MARKET_DETAIL_TRADES = 40
export const SERIES_WINDOWS = 15
/** winRate and return stay null until this many settled bets. */
export const MIN_SETTLED_FOR_RATES = 10

/**
 * Input structs refuse unknown fields (HttpApi would otherwise strip them). The annotation applies to
 * the subtree it sits on, so every input struct carries it, not only the top of a body.
 */
export const STRICT = { parseOptions: { onExcessProperty: "error" } } as const

/** `{ a?: X }` with no `undefined` member: JSON never carries undefined, and exactOptionalPropertyTypes is on. */
export const optionalKey = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

const says = (message: string) => ({ message: () => message })

/** A price: dollars per contract, 0..1 inclusive. */
export const Price = Schema.Number.pipe(Schema.between(0, 1, says("must be a price from 0 to 1")))
export type Price = typeof Price.Type

/** A share (win rate and the like): 0..1 inclusive. */
export const Share = Schema.Number.pipe(Schema.between(0, 1, says("must be a share from 0 to 1")))
export type Share = typeof Share.Type

/** A dollar amount that cannot be negative (volume, dollars spent). */
export const Usd = Schema.Number.pipe(
  Schema.finite(says("must be a finite number of dollars")),
  Schema.nonNegative(says("must be a number of dollars, 0 or more")),
)
export type Usd = typeof Usd.Type

/** A signed dollar figure (profit, P&L) or ratio (return). */
export const Signed = Schema.Number.pipe(Schema.finite(says("must be a finite number")))
export type Signed = typeof Signed.Type

/** A count: an integer, 0 or more. */
export const Count = Schema.Number.pipe(
  Schema.int(says("must be an integer")),
  Schema.nonNegative(says("must be an integer, 0 or more")),
)
export type Count = typeof Count.Type

/** A contract quantity (fractional contracts exist on some venues). */
export const Contracts = Usd.annotations({ message: () => "must be a number of contracts, 0 or more" })

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const leap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const daysIn = (year: number, month: number): number => (month === 2 && leap(year) ? 29 : (MONTH_DAYS[month - 1] as number))

/**
 * Epoch ms of an ISO 8601 date-time with seconds optional and an offset (`Z`, `±hh`, or `±hh[:]mm`; `T`
 * and `Z` in either case, as RFC 3339 allows), or null. Every field must exist on the calendar:
 * `Date.parse` rolls 2026-11-31 over to December 1 and 2026-02-29 to March 1, which would move a window
 * silently. A fraction beyond milliseconds is cut (`round: "down"`, for a bound "at or before") or, when
 * any of its digits past the third is not 0, taken to the next millisecond (`"up"`, for a bound "at or
 * after": stored times are whole milliseconds, so 12:00:00.0005 admits 12:00:00.001 and not .000).
 */
export const isoTimeMs = (text: string, round: "down" | "up" = "down"): number | null => {
  const m = ISO_TIME.exec(text)
  if (m === null) return null
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number]
  const second = m[6] === undefined ? 0 : Number(m[6])
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null
  let offset = 0
  if (m[8] === undefined) {
    const hours = Number(m[10])
    const minutes = m[11] === undefined ? 0 : Number(m[11])
    if (hours > 23 || minutes > 59) return null
    offset = (m[9] === "-" ? -1 : 1) * (hours * 60 + minutes)
  }
  const fraction = m[7] ?? ""
  const ms = Number(fraction.slice(0, 3).padEnd(3, "0")) + (round === "up" && /[1-9]/.test(fraction.slice(3)) ? 1 : 0)
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day) // not Date.UTC, which reads years 0–99 as 1900–1999
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime() - offset * 60_000
}
const MIN_TIME = Date.UTC(2000, 0, 1)
const MAX_TIME = Date.UTC(2100, 0, 1)

/** An ISO 8601 time in UTC, as `Date.prototype.toISOString` writes it (`2025-01-31T12:00:00.000Z`). */
export const UtcTime = Schema.String.pipe(
  Schema.filter((s) => ISO_UTC.test(s) && isoTimeMs(s) !== null, {
    message: () => "must be an ISO 8601 time in UTC (ending in Z)",
    jsonSchema: { format: "date-time" },
    arbitrary: () => (fc) =>
      fc.integer({ min: MIN_TIME, max: MAX_TIME }).map((ms) => new Date(ms).toISOString()),
  }),
)
export type UtcTime = typeof UtcTime.Type

/** A calendar month `YYYY-MM`. */
export const Month = Schema.String.pipe(
  Schema.pattern(/^\d{4}-(0[1-9]|1[0-2])$/, {
    message: () => "must be a month YYYY-MM",
    arbitrary: () => (fc) =>
      fc.integer({ min: MIN_TIME, max: MAX_TIME }).map((ms) => new Date(ms).toISOString().slice(0, 7)),
  }),
)
export type Month = typeof Month.Type

/** A calendar day `YYYY-MM-DD`. */
export const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, {
    message: () => "must be a date YYYY-MM-DD",
    arbitrary: () => (fc) =>
      fc.integer({ min: MIN_TIME, max: MAX_TIME }).map((ms) => new Date(ms).toISOString().slice(0, 10)),
  }),
)
export type Day = typeof Day.Type

/**
 * Text of `min..max` characters. The spec counts characters, so this counts code points (as JSON
 * Schema's minLength/maxLength do), not UTF-16 units: an emoji is one character.
 */
export const boundedText = (min: number, max: number, message: string) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      const length = [...s].length
      return length >= min && length <= max
    }, {
      message: () => message,
      jsonSchema: { minLength: min, maxLength: max },
      arbitrary: () => (fc) => fc.string({ minLength: min, maxLength: max }),
    }),
  )

/** A page size of a listing: integer 1..200 (the default of 50 is applied by each listing's query). */
export const PageLimit = Schema.Number.pipe(
  Schema.int(says(`limit must be an integer from ${MIN_PAGE_LIMIT} to ${MAX_PAGE_LIMIT}`)),
  Schema.between(MIN_PAGE_LIMIT, MAX_PAGE_LIMIT, says(`limit must be an integer from ${MIN_PAGE_LIMIT} to ${MAX_PAGE_LIMIT}`)),
)
export type PageLimit = typeof PageLimit.Type

/** A page of a nested listing: `{ data[], nextCursor }`. */
export const PageOf = <S extends Schema.Schema.Any>(row: S) =>
  Schema.Struct({ data: Schema.Array(row), nextCursor: Schema.NullOr(Schema.String) })
