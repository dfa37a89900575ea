// A whole feed → bots path in one process, synchronously and in feed order: FeedEvents go through the
// real MarketRegistry (books, prices, lifecycle) into the real IntelPipeline, and what both produce is
// delivered to a BotRegistry exactly as the live layer does (MarketEvents, then the trades the pipeline
// recorded as IntelBus TradeRecorded events). Used by the bot tests, the replay property and the bench.
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import type { IntelConfig } from "../../src/intel/config.js"
import { carriedInOrder, type IntelEvent } from "../../src/intel/intel-bus.js"
import { BotRegistry, type BotTraded, type MarketReads } from "../../src/actors/bots/registry.js"

export interface World {
  readonly markets: MarketRegistry
  readonly reads: MarketReads
  readonly pipeline: IntelPipeline
  /** Replaceable: a test may kill it and restore another from snapshots. */
  bots: BotRegistry
  /** Fills forwarded to the paper accounts (trader and signal bots). */
  readonly traded: Array<BotTraded>
  /** Every MarketEvent and IntelEvent delivered to the bots, in order. */
  readonly delivered: Array<MarketEvent | IntelEvent>
  /** One feed batch, delivered in order. */
  readonly feed: (...batch: ReadonlyArray<FeedEvent>) => void
}

export const aWorld = (options: { readonly record?: boolean; readonly config?: IntelConfig } = {}): World => {
  const pending: Array<MarketEvent> = []
  const markets = new MarketRegistry((e) => void pending.push(e))
  const m = marketsOf(markets)
  const reads: MarketReads = {
    info: (ref) => m.info(ref), book: (ref) => m.book(ref), yesPrice: (ref) => m.yesPrice(ref), status: (ref) => m.status(ref),
    openRefs: () => m.openRefs(), contractsOfEvent: (ref) => m.contractsOfEvent(ref),
  }
  const pipeline = new IntelPipeline(options.config)
  const traded: Array<BotTraded> = []
  const world: { bots: BotRegistry } = { bots: new BotRegistry(reads, (e) => void traded.push(e)) }
  const delivered: Array<MarketEvent | IntelEvent> = []
  const seen = new Set<string>()
  const feed = (...batch: ReadonlyArray<FeedEvent>): void => {
    markets.deliver(batch)
    const events = pending.splice(0)
    for (const event of events) {
      pipeline.apply(event)
      // The bots hear what the OrderedFeed carries in the service (src/intel/live.ts), nothing more.
      if (carriedInOrder(event)) {
        world.bots.deliverMarket(event)
        if (options.record === true) delivered.push(event)
      }
      for (const trade of pipeline.takeChanges().trades) {
        if (seen.has(trade.id)) continue
        seen.add(trade.id)
        const intel: IntelEvent = { _tag: "TradeRecorded", trade }
        world.bots.deliverIntel(intel)
        if (options.record === true) delivered.push(intel)
      }
    }
  }
  return Object.assign(world, { markets, reads, pipeline, traded, delivered, feed })
}
