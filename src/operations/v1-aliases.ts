// The spec's v1 paths of four tools that the v2 routes' handlers serve (spec: MCP tool to REST mapping):
// get_market GET /v1/markets/{marketRef}, list_traders GET /v1/traders, get_trader
// GET /v1/traders/{platform}/{traderId}, place_paper_order POST /v1/paper-orders. Each is the v2 operation
// at a second path (the v1 envelope `{ success: true, data }`, the same input, output and errors). These v1
// records are the MCP tools, as the spec's table maps them (a tool's result is the v1 body; get_trader
// takes `platform` and `traderId`); the registry lists the v2 records as `restOnly`.
// GET /v1/traders/{platform}/{traderId} takes the trader's ref in two segments.
import { Effect, Schema } from "effect"
import { Platform } from "../domain/enums.js"
import { Validation } from "../domain/errors.js"
import { STRICT } from "../domain/limits.js"
import { getMarket } from "./markets.js"
import { alsoAt, operation } from "./operation.js"
import { placePaperOrder } from "./paper-orders.js"
import { GetTraderInput, getTrader, listTraders } from "./traders.js"
import { TraderId } from "./v1-follows.js"
import { canonicalTraderRef } from "../domain/refs.js"

export const getMarketV1 = alsoAt(getMarket, { name: "getMarketV1", path: "/v1/markets/:ref" })

export const listTradersV1 = alsoAt(listTraders, { name: "listTradersV1", path: "/v1/traders" })

export const placePaperOrderV1 = alsoAt(placePaperOrder, { name: "placePaperOrderV1", path: "/v1/paper-orders" })

export const getTraderV1 = operation({
  name: "getTraderV1", tool: getTrader.tool, method: "GET", path: "/v1/traders/:platform/:traderId", scope: "read",
  summary: `${getTrader.summary} (the v1 path of GET /v2/traders/{ref}: ref = platform:traderId)`,
  input: Schema.Struct({ platform: Platform, traderId: TraderId, include: GetTraderInput.fields.include }).annotations(STRICT),
  output: getTrader.output,
  run: (input, ctx) =>
    input.platform === "venue_a" || input.platform === "venue_b"
      ? getTrader.run({ ref: canonicalTraderRef(`${input.platform}:${input.traderId}`), ...(input.include === undefined ? {} : { include: input.include }) }, ctx)
      // Named here, not as getTrader's `ref`: this request has a platform and a trader id, no ref.
      : Effect.fail(new Validation({ error: `platform: only venue_a and venue_b name traders, not ${input.platform}` })),
})
