// Every documented operation, once. Adding an operation = one file in src/operations + one line here;
// the HTTP door (and later MCP) serves exactly this list.
import type { Accounts } from "../actors/accounts/registry.js"
import type { MarketAlerts } from "../actors/alerts/market-alerts.js"
import type { Bots } from "../actors/bots/bots-live.js"
import type { ExitRules } from "../actors/exits/exit-rules.js"
import { type AnyOperation, type Operation, restOnly } from "./operation.js"
import { owned } from "./owned.js"
import { createBot, deleteBot, getBot, listBots, updateBot } from "./bots.js"
import { createWebhook, deleteWebhook, listWebhooks } from "./webhooks.js"
import { listTrades } from "./trades.js"
import { listMoves } from "./moves.js"
import { getMarket, listMarketsOperation } from "./markets.js"
import { placePaperOrder } from "./paper-orders.js"
import { getPaperAccount } from "./paper.js"
import { runBacktest } from "./backtest.js"
import { getTrader, listTraders } from "./traders.js"
import { listPositions } from "./positions.js"
import { queryWhaleEvents } from "./v1-events.js"
import { breakdownV1Backtest, compareV1Backtests, runV1Backtest, sweepV1Backtest } from "./v1-backtest.js"
import { describeUniverseOperation } from "./v1-universe.js"
import { getLiveFeed } from "./v1-feed.js"
import { compareTraders } from "./v1-compare-traders.js"
import { searchMarkets } from "./v1-markets-search.js"
import { getCopyLog } from "./v1-copy-log.js"
import { listFollows, setFollow } from "./v1-follows.js"
import { deleteExitRule, listExitRules, setExitRule } from "./v1-exits.js"
import { getPortfolio } from "./v1-portfolio.js"
import { setAutopilot } from "./v1-autopilot.js"
import { placeOrder, sellPosition } from "./v1-live-orders.js"
import { getMarketV1, getTraderV1, listTradersV1, placePaperOrderV1 } from "./v1-aliases.js"
import { deleteMarketAlert, getAlerts, getMarketAlerts, setMarketAlert } from "./v1-alerts.js"
import { deleteStrategy, getStrategyPerformance, listStrategies, saveStrategy } from "./v1-strategies.js"

export const registry = [
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listTrades,
  listMoves,
  listMarketsOperation,
  restOnly(getMarket),
  restOnly(owned(placePaperOrder)),
  owned(getPaperAccount),
  owned(createBot),
  owned(listBots),
  owned(getBot),
  owned(updateBot),
  owned(deleteBot),
  runBacktest,
  restOnly(listTraders),
  restOnly(getTrader),
  listPositions,
  queryWhaleEvents,
  runV1Backtest,
  sweepV1Backtest,
  compareV1Backtests,
  breakdownV1Backtest,
  describeUniverseOperation,
  getLiveFeed,
  compareTraders,
  searchMarkets,
  getCopyLog,
  saveStrategy,
  listStrategies,
  getStrategyPerformance,
  deleteStrategy,
  setFollow,
  listFollows,
  owned(setMarketAlert),
  getMarketAlerts,
  owned(deleteMarketAlert),
  getAlerts,
  owned(setExitRule),
  owned(listExitRules),
  owned(deleteExitRule),
  owned(getPortfolio),
  owned(setAutopilot),
  getMarketV1,
  listTradersV1,
  getTraderV1,
  owned(placePaperOrderV1),
  placeOrder,
  sellPosition,
] as const satisfies ReadonlyArray<AnyOperation>

export type Registry = typeof registry

/** The actors only the holder of the paper lease runs (src/nodes/paper-lease.ts). */
export type PaperActors = Accounts | Bots | ExitRules | MarketAlerts

/**
 * The records that need a paper actor but are not `owned`: they would run on a node without them. A
 * record that looks an actor up with `Effect.serviceOption` instead (Bots in bots.ts, paper.ts and
 * v1-autopilot.ts, so test servers without bots start) is invisible here: those are `owned` by hand.
 */
type Unowned<Op> = Op extends Operation<any, any, infer R>
  ? [Extract<R, PaperActors>] extends [never] ? never : Op extends { readonly owner: "paper" } ? never : Op
  : never
/** Fails to compile, naming the record, when an operation that needs a paper actor is not `owned`. */
type EveryActorOperationIsOwned<T extends never> = T
export type RegistryCheck = EveryActorOperationIsOwned<Unowned<Registry[number]>>
