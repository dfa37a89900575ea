// PATCH /v1/traders/{platform}/{traderId}/autopilot (tool set_autopilot; spec: v1 operations and the Errors
// table: LIVE_TRADING_UNAVAILABLE, AUTOPILOT_NOT_READY; shape not shown). Autopilot copies a trader's
// trades automatically. Paper autopilot is the account's trader bot on that trader (POST /v2/bots with a
// trader trigger): this operation creates it, resumes or pauses it, through the bots' own handlers.
//
// Decisions where the spec is silent (README "Autopilot"):
// - Body `{ enabled, mode?, sizing?, mirrorExits? }`, `mode` `paper` (default) or `live`; answers 200
//   `{ trader, platform, traderId, mode, enabled, bot }` with the full trader bot (null when there is none).
// - Paper, enabled: creates the trader bot (sizing and mirrorExits as POST /v2/bots takes them) or sets the
//   existing one running (with the sizing / mirrorExits sent). Paper, disabled: pauses it (nothing when
//   there is none). An ended trader bot is not the autopilot any more: enabling creates a new one.
// - Live: `venue_b` is paper only (LIVE_TRADING_UNAVAILABLE). On `venue_a` live autopilot needs the account's
//   own connected venue key, which this service never holds: AUTOPILOT_NOT_READY with that blocker.
//   Disabling live autopilot answers `enabled: false` (none runs).
// - Only venue_a and venue_b name traders: another platform is VALIDATION naming `platform`.
import { Effect, Option, ParseResult, Schema } from "effect"
import { Bots } from "../actors/bots/bots-live.js"
import { BotStore } from "../store/bots.js"
import { Bot, BotCreateRequest } from "../domain/bot.js"
import { Platform } from "../domain/enums.js"
import { AutopilotNotReady, LiveTradingUnavailable, NotFound, Validation, quoted } from "../domain/errors.js"
import { optionalKey, STRICT } from "../domain/limits.js"
import { Sizing } from "../domain/signal.js"
import { createBot, inTraderTurn, UpdateBotInput, updateBot } from "./bots.js"
import { operation } from "./operation.js"
import { TraderId } from "./v1-follows.js"
import { canonicalHandle } from "../domain/refs.js"

export const SetAutopilotRequest = Schema.Struct({
  platform: Platform,
  traderId: TraderId,
  enabled: Schema.Boolean,
  mode: Schema.optionalWith(Schema.Literal("paper", "live"), { exact: true, default: () => "paper" as const }),
  sizing: optionalKey(Schema.encodedSchema(Sizing)),
  mirrorExits: optionalKey(Schema.Boolean),
}).annotations({ ...STRICT, title: "SetAutopilotRequest" })

export const Autopilot = Schema.Struct({
  trader: Schema.String,
  platform: Platform,
  traderId: Schema.String,
  mode: Schema.Literal("paper", "live"),
  enabled: Schema.Boolean,
  /** The trader bot that is the paper autopilot; null when there is none. */
  bot: Schema.NullOr(Bot),
}).annotations({ identifier: "Autopilot" })

/** Decodes a request for the bots' handlers; their own sentence names the field when it does not fit. */
const decodeFor = <A, I>(schema: Schema.Schema<A, I>, value: unknown): Effect.Effect<A, Validation> =>
  Schema.decodeUnknown(schema)(value).pipe(Effect.mapError((e) =>
    new Validation({ error: ParseResult.ArrayFormatter.formatErrorSync(e)[0]?.message ?? "the autopilot settings do not fit a trader bot" })))

export const LIVE_KEY_BLOCKER = "live autopilot on venue_a needs the account's own connected venue_a key, and this service connects none"

export const setAutopilot = operation({
  name: "setAutopilot", tool: "set_autopilot", method: "PATCH", path: "/v1/traders/:platform/:traderId/autopilot", scope: "write",
  summary: "Turn a trader's autopilot on or off: paper autopilot is the account's trader bot on that trader",
  input: SetAutopilotRequest, output: Autopilot,
  run: Effect.fn("Autopilot.set")(function* (request, ctx) {
    const { platform, enabled, mode } = request
    if (platform !== "venue_a" && platform !== "venue_b") {
      return yield* new Validation({ error: `platform: only venue_a and venue_b name traders, not ${platform}` })
    }
    // A venue_b wallet is case-insensitive: answered in lower case, as the ref.
    const traderId = canonicalHandle(platform, request.traderId)
    const trader = `${platform}:${traderId}`
    const answer = (bot: Bot | null, on: boolean) => ({ trader, platform, traderId, mode, enabled: on, bot })
    // The trader must exist, whatever is asked (turning off an autopilot that is not on included).
    if ((yield* BotStore.trader(trader)) === null) return yield* new NotFound({ error: `No trader has ref ${quoted(trader)}` })
    if (mode === "live") {
      if (!enabled) return answer(null, false)
      if (platform === "venue_b") {
        return yield* new LiveTradingUnavailable({ error: "venue_b is paper only: live autopilot is open on venue_a and venue_b_us" })
      }
      return yield* new AutopilotNotReady({ error: `autopilot cannot start: ${LIVE_KEY_BLOCKER}` })
    }
    const bots = yield* Effect.serviceOption(Bots)
    if (Option.isNone(bots)) return yield* Effect.dieMessage("the bots service is not running")
    const registry = bots.value.registry
    // In the trader-bot turn (bots.ts `inTraderTurn`): two "on" at once both found no bot and both created
    // one, and an "on" racing a POST /v2/bots or a DELETE saw a bot half made or half ended; in turn, each
    // finds what the one before left and creates it or sets it running with what it sent.
    return yield* inTraderTurn(Effect.gen(function* () {
      let existing: string | undefined
      for (const id of registry.ids()) {
        const bot = registry.context(id)
        if (
          bot?.kind === "trader" && bot.accountId === ctx.principal.accountId && bot.settings.trader.ref === trader &&
          registry.status(id) !== "ended"
        ) existing = id
      }
      const settings = {
        ...(request.sizing === undefined ? {} : { sizing: request.sizing }),
        ...(request.mirrorExits === undefined ? {} : { mirrorExits: request.mirrorExits }),
      }
      if (existing === undefined) {
        if (!enabled) return answer(null, false)
        const create = yield* decodeFor(BotCreateRequest, { trigger: { trader }, ...settings })
        return answer(yield* createBot.run(create, ctx), true)
      }
      const patch = yield* decodeFor(UpdateBotInput, { id: existing, status: enabled ? "running" : "paused", ...settings })
      return answer(yield* updateBot.run(patch, ctx), enabled)
    }))
  }),
})

