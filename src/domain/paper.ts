// Paper trading by hand: the order body (client input, bounds enforced, fields that do not fit the
// action refused by name), the paper order and position as clients read them, and the account totals.
// Book walks, fees and P&L arithmetic live elsewhere; this file only says what is well formed.
import { Schema } from "effect"
import { TradeAction } from "./enums.js"
import {
  Contracts, MAX_PAPER_BUY_USD, MAX_PAPER_SELL_CONTRACTS, optionalKey, PageOf, Price, Share, Signed, STRICT, Usd, UtcTime,
} from "./limits.js"
import { MarketObject } from "./market-object.js"
import { OutcomeText } from "./bot.js"
import { MarketRef } from "./refs.js"
import { priceField } from "./signal.js"
import { SettledResult } from "./trader.js"

const says = (message: string) => ({ message: () => message })
const fmt = (n: number) => n.toLocaleString("en-US")

export const BuyUsd = Schema.Number.pipe(
  Schema.greaterThan(0, says(`usd must be above 0 and at most ${fmt(MAX_PAPER_BUY_USD)}`)),
  Schema.lessThanOrEqualTo(MAX_PAPER_BUY_USD, says(`usd must be above 0 and at most ${fmt(MAX_PAPER_BUY_USD)}`)),
)

/** A number of contracts to sell, above 0 and at most 10,000,000, or `all` (everything held by hand on that side). */
export const SellContracts = Schema.Union(
  Schema.Number.pipe(
    Schema.greaterThan(0, says(`contracts must be above 0 and at most ${fmt(MAX_PAPER_SELL_CONTRACTS)}, or "all"`)),
    Schema.lessThanOrEqualTo(MAX_PAPER_SELL_CONTRACTS, says(`contracts must be above 0 and at most ${fmt(MAX_PAPER_SELL_CONTRACTS)}, or "all"`)),
  ),
  Schema.Literal("all"),
)
export type SellContracts = typeof SellContracts.Type

const PaperOrderFields = Schema.Struct({
  /** One contract; a multi-contract market is refused by the operation. */
  market: MarketRef,
  /** Side name or label, or yes or no. */
  outcome: OutcomeText,
  action: TradeAction,
  /** Required on a buy. */
  usd: optionalKey(BuyUsd),
  /** Required on a sell. */
  contracts: optionalKey(SellContracts),
  /** Buy only: fills only the book inside this price. */
  maxPrice: optionalKey(priceField("maxPrice")),
  /** Sell only: fills only the book inside this price. */
  minPrice: optionalKey(priceField("minPrice")),
}).annotations(STRICT)

const orderProblems = (o: typeof PaperOrderFields.Type): Array<{ path: ReadonlyArray<string>; message: string }> => {
  const problems: Array<{ path: ReadonlyArray<string>; message: string }> = []
  const only = (field: "usd" | "contracts" | "maxPrice" | "minPrice", action: "buy" | "sell") => {
    if (o[field] !== undefined) problems.push({ path: [field], message: `${field} is only valid on a ${action}` })
  }
  if (o.action === "buy") {
    if (o.usd === undefined) problems.push({ path: ["usd"], message: "usd is required on a buy" })
    only("contracts", "sell")
    only("minPrice", "sell")
  } else {
    if (o.contracts === undefined) problems.push({ path: ["contracts"], message: "contracts is required on a sell" })
    only("usd", "buy")
    only("maxPrice", "buy")
  }
  return problems
}

export const PaperBuy = Schema.Struct({
  market: MarketRef,
  outcome: OutcomeText,
  action: Schema.Literal("buy"),
  usd: BuyUsd,
  maxPrice: optionalKey(Price),
})
export type PaperBuy = typeof PaperBuy.Type

export const PaperSell = Schema.Struct({
  market: MarketRef,
  outcome: OutcomeText,
  action: Schema.Literal("sell"),
  contracts: SellContracts,
  minPrice: optionalKey(Price),
})
export type PaperSell = typeof PaperSell.Type

/** POST /v2/paper-orders, decoded into a buy or a sell. */
export const PaperOrderRequest = Schema.transform(
  PaperOrderFields.pipe(Schema.filter((o) => orderProblems(o), { title: "PaperOrderRequest" })),
  Schema.typeSchema(Schema.Union(PaperBuy, PaperSell)),
  {
    strict: true,
    // After the filter the fields fit the action; the fallbacks are unreachable and would fail the
    // target's `above 0` checks if they were not.
    decode: (o): PaperBuy | PaperSell => {
      const { market, outcome } = o
      if (o.action === "buy") {
        const buy = { market, outcome, action: "buy" as const, usd: o.usd ?? 0 }
        return o.maxPrice === undefined ? buy : { ...buy, maxPrice: o.maxPrice }
      }
      const sell = { market, outcome, action: "sell" as const, contracts: o.contracts ?? 0 }
      return o.minPrice === undefined ? sell : { ...sell, minPrice: o.minPrice }
    },
    encode: (o) => o,
  },
).annotations({
  title: "PaperOrderRequest",
  description: "A buy needs usd (maxPrice optional); a sell needs contracts (minPrice optional)",
})
export type PaperOrderRequest = typeof PaperOrderRequest.Type

/** One filled paper order. Only what filled at once is recorded; the rest is dropped, never rests. */
export const PaperOrder = Schema.Struct({
  id: Schema.String,
  market: MarketObject,
  /** Side by `name`. */
  outcome: Schema.String,
  action: TradeAction,
  /** Filled. */
  contracts: Contracts,
  /** Venue fee included. */
  avgPrice: Price,
  /** USD including fee: the cost of a buy or the proceeds of a sale. */
  cost: Usd,
  /** The part the book could not fill. */
  unfilledContracts: Contracts,
  filledAt: UtcTime,
}).annotations({ identifier: "PaperOrder" })
export type PaperOrder = typeof PaperOrder.Type

/** A paper order in the account's order list; on a sale `profit` is against the average cost held. */
export const PaperOrderRow = Schema.Struct({ ...PaperOrder.fields, profit: Schema.NullOr(Signed) })
  .annotations({ identifier: "PaperOrderRow" })
export type PaperOrderRow = typeof PaperOrderRow.Type

export const PaperPositionStatus = Schema.Literal("open", "settled")
export type PaperPositionStatus = typeof PaperPositionStatus.Type

export const PaperSource = Schema.Literal("hand", "bot")
export type PaperSource = typeof PaperSource.Type

export const PaperPosition = Schema.Struct({
  market: MarketObject,
  outcome: Schema.String,
  contracts: Contracts,
  entryPrice: Price,
  /** Now, or the payout once settled; null while open with no recent price (and then `value`, `profit` too). */
  price: Schema.NullOr(Price),
  /** contracts times entryPrice. */
  cost: Usd,
  value: Schema.NullOr(Usd),
  /** value minus cost. */
  profit: Schema.NullOr(Signed),
  status: PaperPositionStatus,
  result: Schema.NullOr(SettledResult),
  source: PaperSource,
  /** Null for a hand holding. */
  bot: Schema.NullOr(Schema.Struct({ id: Schema.String, name: Schema.String })),
  openedAt: UtcTime,
  settledAt: Schema.NullOr(UtcTime),
}).annotations({ identifier: "PaperPosition" })
export type PaperPosition = typeof PaperPosition.Type

/** Unaffected by the listing's filters. */
export const PaperTotals = Schema.Struct({
  openUsd: Usd,
  unrealized: Signed,
  /** Settled holdings and sales. */
  realized: Signed,
  /** Null until a holding settles. */
  winRate: Schema.NullOr(Share),
})
export type PaperTotals = typeof PaperTotals.Type

/** GET /v2/paper `data`; `orders` only with `include=orders`. */
export const PaperAccount = Schema.Struct({
  totals: PaperTotals,
  positions: PageOf(PaperPosition),
  orders: optionalKey(PageOf(PaperOrderRow)),
}).annotations({ identifier: "PaperAccount" })
export type PaperAccount = typeof PaperAccount.Type
