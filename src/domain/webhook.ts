// Webhook endpoints (v1): the registration body and the endpoint as clients read it. The schema checks
// the URL's form (absolute https); refusing private, loopback and link-local addresses needs name
// resolution and belongs to the operation.
import { Schema } from "effect"
import { MAX_REPEAT, optionalKey, STRICT } from "./limits.js"

const MAX_URL_LENGTH = 2048

const isHttpsUrl = (s: string): boolean => {
  try {
    const url = new URL(s)
    return url.protocol === "https:" && url.hostname.length > 0 && url.username === "" && url.password === ""
  } catch {
    return false
  }
}

export const WebhookUrl = Schema.String.pipe(
  Schema.maxLength(MAX_URL_LENGTH, { message: () => `url must be at most ${MAX_URL_LENGTH} characters` }),
  Schema.filter(isHttpsUrl, {
    message: () => "url must be a public https URL",
    jsonSchema: { format: "uri" },
    arbitrary: () => (fc) => fc.webUrl({ validSchemes: ["https"] }).filter(isHttpsUrl),
  }),
)

/**
 * Every event type a delivery can carry (the spec names `trade.followed` and `copy.executed` and leaves the
 * full list open). Registration refuses any other name.
 * - `trade.whale`: a whale trade was recorded (a List Trades row).
 * - `trade.followed`: a trader the account follows (by hand, or with a trader bot) bought or sold.
 * - `copy.executed`: a bot copied a trade on paper (trader or signal bot).
 * - `move.detected`: a market move was recorded (a List Moves row: move, flip or whales).
 * - `bot.trade`: one of the account's bots opened or closed a trade (market bots included).
 * - `paper.order.filled`: a paper order placed by hand was filled.
 * - `paper.position.settled`: a paper holding of the account settled.
 * - `market.alert`: one of the account's market alerts fired.
 */
export const WEBHOOK_EVENT_TYPES = [
  "trade.whale",
  "trade.followed",
  "copy.executed",
  "move.detected",
  "bot.trade",
  "paper.order.filled",
  "paper.position.settled",
  "market.alert",
] as const
export type WebhookEventTypeName = (typeof WEBHOOK_EVENT_TYPES)[number]

export const isWebhookEventType = (s: string): s is WebhookEventTypeName =>
  (WEBHOOK_EVENT_TYPES as ReadonlyArray<string>).includes(s)

/** An event type name, e.g. `trade.followed` or `copy.executed` (membership is checked by the operation). */
export const WebhookEventType = Schema.String.pipe(
  Schema.pattern(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/, { message: () => "events must be event type names such as trade.followed" }),
  Schema.maxLength(100, { message: () => "events must be event type names of at most 100 characters" }),
)

/** POST /v1/webhooks. Omitting `events` or sending an empty array subscribes to all types. */
export const WebhookCreateRequest = Schema.Struct({
  url: WebhookUrl,
  events: optionalKey(Schema.Array(WebhookEventType).pipe(
    Schema.maxItems(MAX_REPEAT, { message: () => `events may hold at most ${MAX_REPEAT} types` }),
  )),
}).annotations({ ...STRICT, title: "WebhookCreateRequest" })
export type WebhookCreateRequest = typeof WebhookCreateRequest.Type

/** `secret` is present only in the creation response, shown once. Empty `events` = all types. */
export const WebhookEndpoint = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: optionalKey(Schema.String),
}).annotations({ identifier: "WebhookEndpoint" })
export type WebhookEndpoint = typeof WebhookEndpoint.Type
