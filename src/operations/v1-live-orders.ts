// The live-order tools of the spec's MCP table: place_order (POST /v1/orders) and sell_position (POST
// /v1/positions/sell). Shapes not shown by the spec; the Errors table gives their failures
// (IDEMPOTENCY_KEY_REQUIRED, WALLET_NOT_READY, SPEND_CAP_EXCEEDED, GEO_BLOCKED, UPSTREAM_FAILED).
//
// Decisions where the spec is silent (README "Live orders"):
// - Bodies mirror a paper order's: place_order `{ market, outcome, usd, maxPrice? }` (a buy), sell_position
//   `{ market, outcome, contracts (number or "all"), minPrice? }`, with the same bounds. The Idempotency-Key
//   header (the `idempotencyKey` argument over MCP) is required: IDEMPOTENCY_KEY_REQUIRED without it.
// - The request is checked in order: the body (VALIDATION naming the field; every door decodes it before
//   the handler runs), the key, the market (NOT_FOUND; several contracts, a side it does not have, or a market that is not
//   open: VALIDATION). Then WALLET_NOT_READY: this service connects no trading wallet or venue key to any
//   account, so no real-money order can be placed. Nothing is placed and nothing is charged to a spend cap.
//   The sentence points to the paper path (POST /v1/paper-orders, tool place_paper_order).
import { Effect, Schema } from "effect"
import { Markets } from "../actors/markets/market-bus.js"
import { IdempotencyKeyRequired, Validation, WalletNotReady } from "../domain/errors.js"
import { optionalKey, STRICT } from "../domain/limits.js"
import { BuyUsd, PaperOrder, SellContracts } from "../domain/paper.js"
import { MarketRef } from "../domain/refs.js"
import { OutcomeText } from "../domain/bot.js"
import { priceField } from "../domain/signal.js"
import { operation } from "./operation.js"
import { contractOf, IdempotencyKey, sideOf } from "./paper-orders.js"

export const PlaceOrderInput = Schema.Struct({
  market: MarketRef,
  outcome: OutcomeText,
  usd: BuyUsd,
  maxPrice: optionalKey(priceField("maxPrice")),
  idempotencyKey: optionalKey(IdempotencyKey),
}).annotations({ ...STRICT, identifier: "PlaceOrderInput" })

export const SellPositionInput = Schema.Struct({
  market: MarketRef,
  outcome: OutcomeText,
  contracts: SellContracts,
  minPrice: optionalKey(priceField("minPrice")),
  idempotencyKey: optionalKey(IdempotencyKey),
}).annotations({ ...STRICT, identifier: "SellPositionInput" })

const NO_WALLET =
  "no trading wallet or venue key is connected to this account (this service connects none), so no real-money " +
  "order was placed and nothing was charged; paper orders are POST /v1/paper-orders (tool place_paper_order)"

/** The checks of a live order after its body decoded (the key, the market); it then cannot be placed here. */
const liveOrder = (input: { readonly market: string; readonly outcome: string; readonly idempotencyKey?: string | undefined }) =>
  Effect.gen(function* () {
    if (input.idempotencyKey === undefined) {
      return yield* new IdempotencyKeyRequired({
        error: "Idempotency-Key is required on a live order or sale, so a retry can never place it twice",
      })
    }
    const info = yield* contractOf(input.market)
    if (sideOf(info, input.outcome) === null) {
      return yield* new Validation({ error: `outcome must be one of ${info.sides.map((s) => s.name).join(", ")} (name or label), or yes or no` })
    }
    const status = (yield* Markets).status(info.ref)
    if (status !== "open") return yield* new Validation({ error: `market ${info.ref} is not open (${status ?? "unknown"})` })
    return yield* new WalletNotReady({ error: NO_WALLET })
  })

export const placeOrder = operation({
  name: "placeOrder", tool: "place_order", method: "POST", path: "/v1/orders", scope: "write", status: 201,
  summary: "Place a real-money buy on the venue (needs a connected trading wallet: none can be connected here, so WALLET_NOT_READY)",
  input: PlaceOrderInput, output: PaperOrder, headers: { "idempotency-key": "idempotencyKey" },
  run: Effect.fn("LiveOrders.place")(function* (input) {
    return yield* liveOrder(input)
  }),
})

export const sellPosition = operation({
  name: "sellPosition", tool: "sell_position", method: "POST", path: "/v1/positions/sell", scope: "write", status: 201,
  summary: "Sell a real-money position on the venue (needs a connected trading wallet: none can be connected here, so WALLET_NOT_READY)",
  input: SellPositionInput, output: PaperOrder, headers: { "idempotency-key": "idempotencyKey" },
  run: Effect.fn("LiveOrders.sell")(function* (input) {
    return yield* liveOrder(input)
  }),
})
