// GET /v1/markets/search (tool `search_markets`; spec: MCP tool to REST mapping): open markets whose title
// or outcomes hold every word of `q`, in GET /v2/markets's browse order (markets.ts, the same search),
// as market list rows — how an agent finds the ref of a market it has heard of.
//
// Decisions where the spec is silent (README "v1 market search"):
// - Query: `q` (required, up to 200 characters; every word, case-insensitive), `platform` (repeatable,
//   v1 platform ids), `limit` 1–200 (default 50). Open markets only; no cursor (narrow `q` instead).
// - Answer `{ markets, limit }`; the rows are GET /v2/markets rows.
import { Clock, Effect, Schema } from "effect"
import { Platform } from "../domain/enums.js"
import { MAX_MARKET_Q_LENGTH, PageLimit } from "../domain/limits.js"
import { MarketListRow } from "../domain/market.js"
import { followedVenues } from "../domain/v1.js"
import { Intel } from "../intel/live.js"
import { SearchText, wordsOf } from "./filters.js"
import { marketRowsOf } from "./markets.js"
import { operation } from "./operation.js"
import { DEFAULT_LIMIT, Limit } from "./paging.js"
import { Repeatable } from "./params.js"

export const V1MarketSearchInput = Schema.Struct({
  // Required and not blank: an empty q would answer the whole browse list as if it were a search.
  q: SearchText("q", MAX_MARKET_Q_LENGTH).pipe(Schema.filter((q) => wordsOf(q).length > 0, { message: () => "q must hold at least one word" })),
  platform: Schema.optional(Repeatable("platform", Platform)),
  limit: Schema.optionalWith(Limit, { default: () => DEFAULT_LIMIT }),
})

export const V1MarketSearch = Schema.Struct({ markets: Schema.Array(MarketListRow), limit: PageLimit }).annotations({ identifier: "V1MarketSearch" })

export const searchMarkets = operation({
  name: "searchMarkets", tool: "search_markets", method: "GET", path: "/v1/markets/search", scope: "read",
  summary: "Open markets whose title or outcomes hold every word of q, most active first",
  input: V1MarketSearchInput, output: V1MarketSearch,
  run: Effect.fn("V1Markets.search")(function* (input) {
    const intel = yield* Intel
    const now = yield* Clock.currentTimeMillis
    const venues = followedVenues(input.platform)
    if (venues !== undefined && venues.length === 0) return { markets: [], limit: input.limit }
    const rows = yield* marketRowsOf(intel, {
      status: "open", q: input.q, limit: input.limit, ...(venues === undefined ? {} : { venue: venues }),
    }, now)
    return { markets: rows.slice(0, input.limit), limit: input.limit }
  }),
})
