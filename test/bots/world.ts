// A whole feed → bots path in one process, synchronously and in feed order: FeedEvents go through the
// real MarketRegistry (books, prices, lifecycle) into the real IntelPipeline, and what both produce is
// delivered to a BotRegistry exactly as the live layer does (the OrderedFeed's events: the trades the
// pipeline recorded as TradeRecorded, with the market events it carries, in the pipeline's order), at
// once or `lag` feed batches behind. Used by the bot tests, the replay property and the bench.
import type { FeedEvent } from "../../src/domain/feed-events.js"
import type { MarketEvent } from "../../src/domain/market-events.js"
import { marketsOf } from "../../src/actors/markets/market-bus.js"
import { MarketRegistry } from "../../src/actors/markets/registry.js"
import { IntelPipeline } from "../../src/intel/pipeline.js"
import type { IntelConfig } from "../../src/intel/config.js"
import { carriedInOrder, type IntelEvent, type OrderedEvent } from "../../src/intel/intel-bus.js"
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
  /** Delivers to the bots what a lag still holds back. */
  readonly drain: () => void
}

export interface WorldOptions {
  readonly record?: boolean
  readonly config?: IntelConfig
  /**
   * The bots hear each feed batch's events only after this many later batches went through the market
   * actors (default 0): the service's bots fiber behind its market actors, as in a burst.
   */
  readonly lag?: number
}

export const aWorld = (options: WorldOptions = {}): World => {
  const pending: Array<MarketEvent> = []
  const markets = new MarketRegistry((e) => void pending.push(e))
  const m = marketsOf(markets)
  const reads: MarketReads = {
    info: (ref) => m.info(ref), book: (ref) => m.book(ref), yesPrice: (ref) => m.yesPrice(ref), status: (ref) => m.status(ref),
    openRefs: () => m.openRefs(), contractsOfEvent: (ref) => m.contractsOfEvent(ref), requestBook: (ref) => m.requestBook(ref),
  }
  const pipeline = new IntelPipeline(options.config)
  const traded: Array<BotTraded> = []
  const world: { bots: BotRegistry } = { bots: new BotRegistry(reads, (e) => void traded.push(e)) }
  // As the service's bots layer: the trades and prices the bots may fill on come with their book.
  markets.watchBooks((event) => world.bots.wantsBook(event))
  const delivered: Array<MarketEvent | IntelEvent> = []
  /** Each feed batch's events for the bots (the OrderedFeed's), oldest first. */
  const backlog: Array<Array<OrderedEvent>> = []
  let ordered: Array<OrderedEvent> = []
  // What the pipeline records goes out as in src/intel/live.ts (TradeRecorded carrying its book).
  pipeline.observe = (event) => void ordered.push(event)
  const toBots = (events: ReadonlyArray<OrderedEvent>): void => {
    for (const event of events) {
      if (event._tag === "TradeRecorded") world.bots.deliverIntel(event)
      else if (event._tag !== "TradeSettled" && event._tag !== "MoveRecorded") world.bots.deliverMarket(event)
      else continue
      if (options.record === true) delivered.push(event)
    }
  }
  const feed = (...batch: ReadonlyArray<FeedEvent>): void => {
    markets.deliver(batch)
    for (const event of pending.splice(0)) {
      pipeline.apply(event)
      // The bots hear what the OrderedFeed carries in the service (src/intel/live.ts), nothing more.
      if (carriedInOrder(event)) ordered.push(event)
    }
    backlog.push(ordered)
    ordered = []
    while (backlog.length > (options.lag ?? 0)) toBots(backlog.shift() ?? [])
  }
  const drain = (): void => {
    while (backlog.length > 0) toBots(backlog.shift() ?? [])
  }
  return Object.assign(world, { markets, reads, pipeline, traded, delivered, feed, drain })
}
