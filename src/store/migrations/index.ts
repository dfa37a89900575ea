// Every migration, in order. Add a file `NNNN_name.ts` (default export: an Effect needing SqlClient) and
// one line here; ids never change once released.
import { Migrator } from "@effect/sql"
import foundation from "./0001_foundation.js"
import webhooks from "./0002_webhooks.js"
import markets from "./0003_markets.js"
import intel from "./0004_intel.js"
import paper from "./0005_paper.js"
import bots from "./0006_bots.js"
import webhookDeliveryState from "./0007_webhook_delivery_state.js"
import strategies from "./0008_strategies.js"
import follows from "./0009_follows.js"
import marketAlerts from "./0010_market_alerts.js"
import exitRules from "./0011_exit_rules.js"
import recordPaperOrders from "./0012_record_paper_orders.js"
import exitRuleTrail from "./0013_exit_rule_trail.js"
import traderBotOnceLive from "./0014_trader_bot_once_live.js"
import priceBars from "./0015_price_bars.js"
import botFillOutbox from "./0016_bot_fill_outbox.js"
import keyChanges from "./0017_key_changes.js"
import paperOrderKeys from "./0018_paper_order_keys.js"
import nodeLeases from "./0019_node_leases.js"
import feedMarks from "./0020_feed_marks.js"

/** Every migration by id, in order. */
export const migrations = {
  "0001_foundation": foundation,
  "0002_webhooks": webhooks,
  "0003_markets": markets,
  "0004_intel": intel,
  "0005_paper": paper,
  "0006_bots": bots,
  "0007_webhook_delivery_state": webhookDeliveryState,
  "0008_strategies": strategies,
  "0009_follows": follows,
  "0010_market_alerts": marketAlerts,
  "0011_exit_rules": exitRules,
  "0012_record_paper_orders": recordPaperOrders,
  "0013_exit_rule_trail": exitRuleTrail,
  "0014_trader_bot_once_live": traderBotOnceLive,
  "0015_price_bars": priceBars,
  "0016_bot_fill_outbox": botFillOutbox,
  "0017_key_changes": keyChanges,
  "0018_paper_order_keys": paperOrderKeys,
  "0019_node_leases": nodeLeases,
  "0020_feed_marks": feedMarks,
}

export const loader = Migrator.fromRecord(migrations)
