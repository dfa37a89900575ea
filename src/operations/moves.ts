// GET /v2/moves (list_moves): moves of the last 24 hours, newest first, from the `moves` table
// (src/store/reads.ts). Free of the daily trade allowance. "Now" is Effect's Clock.
//
// Decisions where the spec is silent (README):
// - `since` older than 24 hours reads as 24 hours ago; the listing has no `until`.
// - `minPoints` counts whole points of the Yes price (|priceAfter − priceBefore| × 100) on `move` rows;
//   `minPoints=0` filters nothing. Flips and whales always pass.
// - `priceMin`/`priceMax` test `priceAfter`; a row with no price (a `whales` move before any print)
//   drops out when either is set. `priceMin` above `priceMax` is VALIDATION.
// - `q`: every word (case-insensitive) in the market's title; up to 200 characters, any number of words.
import { Clock, Effect, type Option, Schema } from "effect"
import { MOVES_WINDOW_HOURS } from "../domain/limits.js"
import { MoveRow, MoveType } from "../domain/move.js"
import { HOUR_MS } from "../intel/config.js"
import type { StoredMove } from "../intel/pipeline.js"
import { moveRowOf } from "../intel/rows.js"
import { type MoveKey, movesPage } from "../store/reads.js"
import { CategoryFilter, checkRange, KindFilter, MarketFilter, SearchText, TimeWithOffset, VenueFilter, wordsOf } from "./filters.js"
import { listing, type OperationContext } from "./operation.js"
import { PageParams, paginate } from "./paging.js"
import { NumberParam, Repeatable } from "./params.js"
import { MAX_MARKET_Q_LENGTH } from "../domain/limits.js"

export const ListMovesInput = Schema.Struct({
  ...VenueFilter,
  ...CategoryFilter,
  ...KindFilter,
  ...MarketFilter,
  type: Schema.optional(Repeatable("type", MoveType)),
  minPoints: Schema.optional(NumberParam("minPoints", 0, 100)),
  priceMin: Schema.optional(NumberParam("priceMin", 0, 1)),
  priceMax: Schema.optional(NumberParam("priceMax", 0, 1)),
  q: Schema.optional(SearchText("q", MAX_MARKET_Q_LENGTH)),
  since: Schema.optional(TimeWithOffset("since")),
  ...PageParams,
})
export type ListMovesInput = typeof ListMovesInput.Type

const MoveKeySchema = Schema.Tuple(Schema.Number, Schema.String)

const run =
  Effect.fnUntraced(function* (input: ListMovesInput, ctx: OperationContext) {
    yield* checkRange("priceMin", input.priceMin, "priceMax", input.priceMax)
    const now = yield* Clock.currentTimeMillis
    const from = Math.max(now - MOVES_WINDOW_HOURS * HOUR_MS, input.since ?? -Infinity)
    const query = {
      venue: input.venue, category: input.category, kind: input.kind, market: input.market, type: input.type,
      minPoints: input.minPoints, priceMin: input.priceMin, priceMax: input.priceMax,
      words: input.q === undefined ? [] : wordsOf(input.q), from, to: now,
    }
    const page = yield* paginate({
      listing: "listMoves",
      input,
      ctx,
      key: MoveKeySchema,
      keyOf: (m: StoredMove): MoveKey => [m.time, m.id],
      fetch: (after: Option.Option<MoveKey>, take: number) => movesPage(query, after, take),
    })
    return { data: page.data.map(moveRowOf), nextCursor: page.nextCursor }
  })

export const listMoves = listing({
  name: "listMoves",
  tool: "list_moves",
  method: "GET",
  path: "/v2/moves",
  scope: "read",
  summary: "Market moves of the last 24 hours",
  input: ListMovesInput,
  row: MoveRow,
  run: Effect.fn("Moves.list")(run),
})
