// The intelligence bus: what the pipeline recorded LIVE (after backfill), for the doors and actors that
// react to it — the stream (trade and move frames), bots (copying buys), webhooks. One event per trade
// or move; a trade appears once as TradeRecorded and again as TradeSettled when its market settles.
// History loaded by backfill or restored at start is not published (bots must not trade on the past).
import { Context, Effect, Layer, PubSub } from "effect"
import type { StoredMove, StoredTrade } from "./pipeline.js"

export type IntelEvent =
  /** A named or whale trade, first seen. `trade.whale` tells whale-size trades apart. */
  | { readonly _tag: "TradeRecorded"; readonly trade: StoredTrade }
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
