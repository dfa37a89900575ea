// What the paper accounts and the bots tell the webhooks (webhooks/deliverer.ts turns it into deliveries): facts, not
// bodies, so the accounts know nothing of webhook formats. Optional: the accounts run without it (tests,
// the crash-test child), and publishing never waits (an in-memory queue the outbox writer drains).
import { Context, Effect, type Option } from "effect"
import type { Holding } from "../actors/accounts/account.machine.js"
import type { StoredAlert } from "../store/market-alerts.js"
import type { StoredOrder } from "../store/paper.js"

export type AccountFact =
  /** An order recorded durably: by hand (`paper.order.filled`) or a bot's copy (`copy.executed`). */
  | { readonly _tag: "OrderRecorded"; readonly order: StoredOrder }
  /** A holding that was open became settled (`paper.position.settled`). */
  | { readonly _tag: "HoldingSettled"; readonly accountId: string; readonly holding: Holding }
  /** A bot trade stored as opened or as closed (`bot.trade`); `row` is its GET /v2/bots/{id} trades row. */
  | {
    readonly _tag: "BotTradeSaved"; readonly accountId: string; readonly bot: { readonly id: string; readonly name: string }
    readonly tradeId: string; readonly status: "open" | "closed"; readonly at: number; readonly row: unknown
  }
  /** A market alert fired (`market.alert`); `alert` as stored, triggered. */
  | { readonly _tag: "MarketAlertFired"; readonly alert: StoredAlert }

export interface WebhookSinkService {
  readonly publish: (facts: ReadonlyArray<AccountFact>) => void
  /**
   * An endpoint was made or deleted through this node: who wants what is looked up again at once (the
   * webhooks layer; until then every fact is built). Sinks that build nothing per account leave it out.
   */
  readonly endpointsChanged?: () => void
}

export class WebhookSink extends Context.Tag("whalewatch/WebhookSink")<WebhookSink, WebhookSinkService>() {}

/** The sink when one is provided. */
export const webhookSink: Effect.Effect<Option.Option<WebhookSinkService>> = Effect.serviceOption(WebhookSink)
