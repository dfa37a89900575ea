// The shared listing filters of the spec (Endpoints → Shared listing filters) and the small input
// schemas listings share: `venue`, `category`, `kind`, `trader`, `market` (each repeatable up to 50,
// OR-combined within a key, AND across keys), `outcome` (needs exactly one `market`), a time with an
// offset (`since`, `until`), search words and min ≤ max checks. Pure: the listings turn the decoded
// filters into SQL (src/store/reads.ts); `sharedMatch` is the same rule in memory (the stream, tests).
//
// Rules where the spec is brief:
// - `market` matches a row when it names the row's market ref (event or single contract) or its exact
//   contract ref; so an event ref takes every contract of the event, a contract ref only that contract.
// - `outcome` matches the side's `name` or `label`, case-insensitively.
// - `kind` without `category` (and the other way round) filters on that key alone; a `kind` outside
//   every given `category` simply matches nothing (no listing here forbids the pair).
import { DateTime, Effect, ParseResult, Schema } from "effect"
import { Category, Kind, Venue } from "../domain/enums.js"
import { Validation } from "../domain/errors.js"
import { isoTimeMs } from "../domain/limits.js"
import type { SharedFilterValues } from "../domain/shared-filters.js"
import { canonicalTraderRef } from "../domain/refs.js"
import { Repeatable } from "./params.js"

const ref = (name: string, max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `${name} must not be empty` }),
    Schema.maxLength(max, { message: () => `${name} must be at most ${max} characters` }),
  )

const TraderRefText = Schema.String.pipe(
  Schema.pattern(/^(venue_a|venue_b):[^\s]{1,128}$/, {
    message: () => "trader must be a trader ref `<venue>:<handle>` on venue_a or venue_b",
  }),
)

/** A trader ref `<venue>:<handle>` on a naming venue; a venue_b wallet in any letter case, read in lower case. */
export const TraderRefParam = Schema.transform(TraderRefText, Schema.String, {
  strict: true, decode: canonicalTraderRef, encode: (ref) => ref,
})

export const MarketRefParam = ref("market", 300)

/** Spread into a listing's input struct. */
export const VenueFilter = { venue: Schema.optional(Repeatable("venue", Venue)) }
export const CategoryFilter = { category: Schema.optional(Repeatable("category", Category)) }
export const KindFilter = { kind: Schema.optional(Repeatable("kind", Kind)) }
export const TraderFilter = { trader: Schema.optional(Repeatable("trader", TraderRefParam)) }
export const MarketFilter = { market: Schema.optional(Repeatable("market", MarketRefParam)) }
export const OutcomeFilter = { outcome: Schema.optional(ref("outcome", 200)) }

/** Every shared filter (List Trades, List Positions, the stream). */
export const SharedFilters = {
  ...VenueFilter, ...CategoryFilter, ...KindFilter, ...TraderFilter, ...MarketFilter, ...OutcomeFilter,
}

/** The decoded shared filters; every key optional. */
export type Shared = SharedFilterValues

/** `outcome` needs exactly one `market` in the same request. */
export const checkOutcome = (input: Shared): Effect.Effect<void, Validation> =>
  input.outcome !== undefined && (input.market?.length ?? 0) !== 1
    ? Effect.fail(new Validation({ error: "outcome needs exactly one market in the same request" }))
    : Effect.void

/** What a row offers to the shared filters. */
export interface Filterable {
  readonly venue: Venue
  readonly category: Category | null
  readonly kind: Kind | null
  /** Market ref of the row (event or contract) and its exact contract ref. */
  readonly market: string
  readonly contract: string | null
  readonly trader?: string | null
  readonly outcome?: string
  readonly outcomeLabel?: string
}

const anyOf = <A>(values: ReadonlyArray<A> | undefined, test: (a: A) => boolean): boolean =>
  values === undefined || values.length === 0 || values.some(test)

/** The shared filters in memory, with the same meaning as the SQL of src/store/reads.ts. */
export const sharedMatch = (f: Shared, row: Filterable): boolean =>
  anyOf(f.venue, (v) => v === row.venue) &&
  anyOf(f.category, (c) => c === row.category) &&
  anyOf(f.kind, (k) => k === row.kind) &&
  anyOf(f.trader, (t) => t === row.trader) &&
  anyOf(f.market, (m) => m === row.market || m === row.contract) &&
  (f.outcome === undefined || outcomeMatches(f.outcome, row.outcome, row.outcomeLabel))

export const outcomeMatches = (wanted: string, name: string | undefined, label: string | undefined): boolean => {
  const w = wanted.toLowerCase()
  return name?.toLowerCase() === w || label?.toLowerCase() === w
}

// Times -------------------------------------------------------------------------------------------

/**
 * An ISO 8601 time that states its offset (`Z`, `±hh` or `±hh:mm`), decoded to epoch ms (`isoTimeMs`: a
 * date that is not on the calendar, such as November 31, is refused, not rolled over). A time without an
 * offset is VALIDATION: the spec asks for one, and guessing a zone would shift the window silently.
 * `bound` says which end of a window it is: a `since` ("at or after") takes a fraction past the
 * millisecond up to the next one, an `until` ("at or before") cuts it.
 */
export const TimeWithOffset = (name: string, bound: "since" | "until" = "since") =>
  Schema.transformOrFail(Schema.String, Schema.Number, {
    strict: true,
    decode: (s, _, ast) => {
      const ms = isoTimeMs(s, bound === "since" ? "up" : "down")
      return ms !== null
        ? Effect.succeed(ms)
        : Effect.fail(new ParseResult.Type(ast, s, `${name} must be an ISO 8601 time with an offset, e.g. 2026-01-15T12:00:00Z`))
    },
    encode: (ms) => Effect.succeed(DateTime.formatIso(DateTime.unsafeMake(ms))),
  }).annotations({
    message: () => ({ message: `${name} must be an ISO 8601 time with an offset, e.g. 2026-01-15T12:00:00Z`, override: true }),
    jsonSchema: { type: "string", format: "date-time" },
  })

// Words ---------------------------------------------------------------------------------------------

/** Search text of at most `maxChars` characters and (when given) `maxWords` words. */
export const SearchText = (name: string, maxChars: number, maxWords?: number) =>
  Schema.String.pipe(
    Schema.filter((s) => [...s].length <= maxChars && (maxWords === undefined || wordsOf(s).length <= maxWords), {
      message: () =>
        maxWords === undefined
          ? `${name} must be at most ${maxChars} characters`
          : `${name} must be at most ${maxWords} words and ${maxChars} characters`,
    }),
  ).annotations({ jsonSchema: { type: "string", maxLength: maxChars } })

/** The words of a search, lower-cased, empty ones dropped (an all-blank `q` searches nothing). */
export const wordsOf = (q: string): ReadonlyArray<string> =>
  q.trim().toLowerCase().split(/\s+/).filter((w) => w.length > 0)

/** Every word occurs in one of `texts` (case-insensitive). */
export const containsEveryWord = (words: ReadonlyArray<string>, texts: ReadonlyArray<string>): boolean => {
  const hay = texts.map((t) => t.toLowerCase())
  return words.every((w) => hay.some((t) => t.includes(w)))
}

// Ranges --------------------------------------------------------------------------------------------

/** VALIDATION when both bounds are given and the minimum is above the maximum. */
export const checkRange = (
  minName: string,
  min: number | undefined,
  maxName: string,
  max: number | undefined,
): Effect.Effect<void, Validation> =>
  min !== undefined && max !== undefined && min > max
    ? Effect.fail(new Validation({ error: `${minName} must not be above ${maxName}` }))
    : Effect.void
