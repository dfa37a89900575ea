// POST /v2/paper-orders (place_paper_order): one paper trade by hand, priced by walking the market's
// live book (src/domain/fill.ts) with the venue's taker fee folded in, recorded through the account's
// actor and durable before the answer (src/actors/accounts/registry.ts). Must not rest anything: what
// does not fill at once is reported as `unfilledContracts` and dropped.
//
// Decisions where the spec is silent:
// - Answers 201 with the paper order, and a replay answers the same 201 with the first order, plus
//   both `Idempotent-Replayed: true` and `Idempotency-Replayed: true`.
// - `usd` is the whole budget, fee included (cost ≤ usd); see fill.ts.
// - An event ref with several contracts is VALIDATION; an event with exactly one contract is that contract.
// - Selling more than is held by hand is VALIDATION (paper accounts do not go short); `all` sells it all.
// - A market that is not open (closed, settled, void) is VALIDATION: nothing can fill.
// - Idempotency-Key: 1 to 200 characters, per account, kept 24 hours. "The same order" is the same
//   decoded body with the outcome compared case-insensitively; the key travels as a header over HTTP
//   and as the `idempotencyKey` argument over MCP. The in-progress mark is held on the owning node and
//   dropped whether the order is placed or refused, so a refused order does not consume its key. While it
//   is held, the same order is IDEMPOTENCY_IN_PROGRESS, and a different one waits for it: it is then
//   VALIDATION when that order took the key, or placed when that order was refused.
import { createHash } from "node:crypto"
import { Effect, Exit, ParseResult, Schema } from "effect"
import { Accounts, marketObjectOf } from "../actors/accounts/registry.js"
import { holdingKey } from "../actors/accounts/account.machine.js"
import { Markets } from "../actors/markets/market-bus.js"
import { IdempotencyInProgress, NotFound, Validation, quoted } from "../domain/errors.js"
import { walkBuy, walkSell } from "../domain/fill.js"
import { MAX_IDEMPOTENCY_KEY, optionalKey, STRICT } from "../domain/limits.js"
import type { BookView, MarketInfo, MarketSide } from "../domain/market-events.js"
import { type PaperBuy, PaperOrder, PaperOrderRequest, type PaperSell } from "../domain/paper.js"
import { paperOrderOf, type StoredKey } from "../store/paper.js"
import { operation, type OperationContext } from "./operation.js"

/**
 * The Idempotency-Key: 1 to 200 characters, without the spaces at either end (HTTP drops those from a
 * header, so over MCP they are dropped too: the same key is the same at both doors).
 */
export const IdempotencyKey = Schema.compose(
  Schema.Trim,
  Schema.String.pipe(Schema.filter((s) => s.length >= 1 && [...s].length <= MAX_IDEMPOTENCY_KEY)).annotations({
    message: () => ({ message: `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`, override: true }),
  }),
).annotations({
  description: "Optional; the same key and the same order return the first fill again (kept 24 hours)",
})

/** The order body's fields (PaperOrderRequest decodes them into a buy or a sell) plus the key. */
export const PlacePaperOrderInput = Schema.Struct({
  ...PaperOrderRequest.from.from.fields,
  idempotencyKey: optionalKey(IdempotencyKey),
}).annotations({ ...STRICT, identifier: "PlacePaperOrderInput" })
export type PlacePaperOrderInput = typeof PlacePaperOrderInput.Type

type Order = PaperBuy | PaperSell

/** The buy/sell rules of PaperOrderRequest, as one sentence naming the field. */
const decodeOrder = (fields: Omit<PlacePaperOrderInput, "idempotencyKey">): Effect.Effect<Order, Validation> =>
  Schema.decodeUnknown(PaperOrderRequest)(fields).pipe(
    Effect.mapError((e) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
      return new Validation({ error: issue?.message ?? "The order does not match the schema" })
    }),
  )

/** Same key, same order: the decoded order, outcome case-folded, as canonical JSON. */
export const requestHashOf = (order: Order): string => {
  const o: Record<string, unknown> = { ...order, outcome: order.outcome.trim().toLowerCase() }
  const canonical = JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]))
  return createHash("sha256").update(canonical).digest("base64url")
}

/** The one contract `ref` names: itself, or an event's only contract. */
export const contractOf = (ref: string): Effect.Effect<MarketInfo, NotFound | Validation, Markets> =>
  Effect.flatMap(Markets, (markets): Effect.Effect<MarketInfo, NotFound | Validation> => {
    const contracts = markets.contractsOfEvent(ref)
    if (contracts.length > 1) {
      return Effect.fail(new Validation({ error: `market ${ref} has several contracts; give one contract's ref` }))
    }
    const info = markets.info(contracts[0] ?? ref)
    return info === null ? Effect.fail(new NotFound({ error: `No market has ref ${quoted(ref)}` })) : Effect.succeed(info)
  })

/** The side `outcome` names: its name or label (case-insensitive), or yes (first) / no (second). */
export const sideOf = (info: MarketInfo, outcome: string): MarketSide | null => {
  const wanted = outcome.trim().toLowerCase()
  const [first, second] = info.sides
  for (const side of info.sides) if (side.name.toLowerCase() === wanted) return side
  for (const side of info.sides) if (side.label.toLowerCase() === wanted) return side
  return wanted === "yes" ? first : wanted === "no" ? second : null
}


const nothing = (error: string) => Exit.fail(new Validation({ error }))

/**
 * Prices the order on the account as it is now; what to record, or why nothing can be. Against the current
 * book and status, or for a follower acting on a feed event, those as of the event (`asOf`; no book: the current one).
 */
export const prepareOrder = (
  markets: Markets["Type"], info: MarketInfo, side: MarketSide, order: Order, key: string | null, hash: string,
  asOf?: { readonly book: BookView | undefined; readonly open: boolean },
) =>
(context: Parameters<Parameters<Accounts["Type"]["commit"]>[1]>[0]) => {
  const status = markets.status(info.ref)
  // As of the event, a market the actors have closed since was open; one they have settled or voided is over.
  const open = asOf === undefined ? status === "open" : asOf.open && (status === "open" || status === "closed")
  if (!open) return nothing(`market ${info.ref} is not open (${status ?? "unknown"}); nothing can fill`)
  const book = asOf?.book ?? markets.book(info.ref)
  const sideBook = book?.sides.find((s) => s.side.id === side.id)
  const schedule = { venue: info.venue, feeRate: info.feeRate }
  let walked
  if (order.action === "buy") {
    walked = walkBuy(sideBook?.asks ?? [], order.maxPrice === undefined ? { usd: order.usd } : { usd: order.usd, maxPrice: order.maxPrice }, schedule)
  } else {
    const held = context.holdings[holdingKey(info.ref, side.name, "hand", null)]
    const have = held !== undefined && held.status === "open" ? held.contracts : 0
    if (have <= 0) return nothing(`nothing held by hand on ${side.name} of ${info.ref} to sell`)
    const contracts = order.contracts === "all" ? have : order.contracts
    if (contracts > have + 1e-9) return nothing(`contracts: only ${have} held by hand on ${side.name} of ${info.ref}`)
    walked = walkSell(sideBook?.bids ?? [], order.minPrice === undefined ? { contracts } : { contracts, minPrice: order.minPrice }, schedule)
  }
  if (walked._tag === "NothingFills") return nothing(walked.reason)
  const market = marketObjectOf(info)
  const fill = walked
  return Exit.succeed({
    ref: info.ref, market, outcome: side.name, action: order.action, fill, source: "hand" as const, bot: null,
    idempotencyKey: key, requestHash: key === null ? null : hash,
  })
}

/** The key's first result again, with both replay headers; VALIDATION when it was another order. */
const replay = Effect.fn("PaperOrders.replay")(function* (
  stored: StoredKey,
  hash: string,
  setHeader: (name: string, value: string) => Effect.Effect<void>,
) {
  if (stored.requestHash !== hash) {
    return yield* new Validation({ error: "Idempotency-Key was already used for a different order" })
  }
  yield* setHeader("Idempotent-Replayed", "true")
  yield* setHeader("Idempotency-Replayed", "true")
  return stored.response
})

/** The order placed (or its key replayed), once its key is this request's or there is none. */
const place = Effect.fnUntraced(function* (
  accountId: string, key: string | null, hash: string, order: Order, setHeader: OperationContext["setHeader"],
) {
  const accounts = yield* Accounts
  const markets = yield* Markets
  if (key !== null) {
    const held = yield* accounts.heldKey(accountId, key)
    if (held !== null) return yield* replay(held, hash, setHeader)
  }
  const info = yield* contractOf(order.market)
  const side = sideOf(info, order.outcome)
  if (side === null) {
    return yield* new Validation({
      error: `outcome must be one of ${info.sides.map((s) => s.name).join(", ")} (name or label), or yes or no`,
    })
  }
  const committed = yield* accounts.commit(accountId, prepareOrder(markets, info, side, order, key, hash))
  if (committed !== null) return paperOrderOf(committed.order)
  // The key was taken by an order this node does not hold (another node's, or one whose commit's
  // answer was lost): answer with that order, from the store.
  const stored = key === null ? null : yield* accounts.storedKey(accountId, key)
  return stored === null ? yield* Effect.dieMessage("paper order neither recorded nor replayable") : yield* replay(stored, hash, setHeader)
})

// Module-level generators (not one made per order): see http/api.ts's `handlerOf`.
const placeOrder = Effect.fnUntraced(function* (input: PlacePaperOrderInput, ctx: OperationContext) {
  const { idempotencyKey, ...fields } = input
  const order = yield* decodeOrder(fields)
  const accountId = ctx.principal.accountId
  const key = idempotencyKey ?? null
  const hash = requestHashOf(order)
  if (key === null) return yield* place(accountId, key, hash, order, ctx.setHeader)
  const accounts = yield* Accounts
  for (;;) {
    const claim = accounts.claim(accountId, key, hash)
    if (claim._tag === "running") {
      return yield* new IdempotencyInProgress({ error: "An order with this Idempotency-Key is still being placed; retry with the same key" })
    }
    if (claim._tag === "claimed") {
      return yield* place(accountId, key, hash, order, ctx.setHeader).pipe(Effect.ensuring(Effect.sync(() => accounts.release(accountId, key))))
    }
    // A different order is being placed with the key: once it is placed this one is VALIDATION (the
    // key's replay check), and once it is refused the key is free again, so wait and claim again.
    yield* claim.released
  }
})

export const placePaperOrder = operation({
  name: "placePaperOrder", tool: "place_paper_order", method: "POST", path: "/v2/paper-orders", scope: "write",
  status: 201, summary: "Place a paper order by hand, filled at once against the live book with the taker fee",
  input: PlacePaperOrderInput, output: PaperOrder, headers: { "idempotency-key": "idempotencyKey" },
  run: placeOrder,
})
