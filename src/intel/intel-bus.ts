// The intelligence bus: what the pipeline recorded LIVE (after backfill), for the doors and actors that
// react to it — the stream (trade and move frames), bots (copying buys), webhooks. One event per trade
// or move; a trade appears once as TradeRecorded and again as TradeSettled when its market settles.
// History loaded by backfill or restored at start is not published (bots must not trade on the past).
import { Context, Effect, Layer, PubSub } from "effect"
import type { BookView, MarketEvent } from "../domain/market-events.js"
import type { StoredMove, StoredTrade } from "./pipeline.js"

export type IntelEvent =
  /**
   * A named or whale trade, first seen. `trade.whale` tells whale-size trades apart. On the OrderedFeed
   * it carries the book its copies fill against when a bot wants it (MarketsService.watchBooks); never on the IntelBus.
   */
  | { readonly _tag: "TradeRecorded"; readonly trade: StoredTrade; readonly book?: BookView }
  /** The same trade with its result and profit once its market settled or was voided. */
  | { readonly _tag: "TradeSettled"; readonly trade: StoredTrade }
  | { readonly _tag: "MoveRecorded"; readonly move: StoredMove }

export class IntelBus extends Context.Tag("whalewatch/IntelBus")<IntelBus, PubSub.PubSub<IntelEvent>>() {
  static readonly capacity = 65_536

  static readonly layer = Layer.scoped(
    IntelBus,
    Effect.acquireRelease(PubSub.sliding<IntelEvent>(IntelBus.capacity), PubSub.shutdown),
  )
}

/**
 * The live feed in ONE order, for followers that act on trades and on market events together (bots):
 * the IntelBus events and the market events below, as the intel pipeline handled them. A follower of
 * the MarketBus and the IntelBus on two fibers sees them in whatever order the fibers run, so a whale
 * buy could reach a bot after the settlement that followed it (the copy would then never settle), and a
 * replayed feed could give other bot trades. Published by IntelLive from the hand-over on; unbounded,
 * because a dropped settlement or trade would leave a bot wrong.
 */
export type OrderedEvent = MarketEvent | IntelEvent

/**
 * Market events carried on the OrderedFeed: prices and lifecycle (not prints), and the book changes a
 * follower asked to keep in feed order (those carrying their book).
 */
export const carriedInOrder = (event: MarketEvent): boolean =>
  event._tag === "PriceChanged" || event._tag === "MarketSettled" || event._tag === "MarketVoided" || event._tag === "MarketOpened" ||
  event._tag === "MarketClosed" || // the bots take whether a market trades in feed order (a close stops their fills)
  (event._tag === "BookChanged" && event.book !== undefined)

export class OrderedFeed extends Context.Tag("whalewatch/OrderedFeed")<OrderedFeed, PubSub.PubSub<OrderedEvent>>() {
  static readonly layer = Layer.scoped(OrderedFeed, Effect.acquireRelease(PubSub.unbounded<OrderedEvent>(), PubSub.shutdown))
}
