// GET /v1/portfolio (tool get_portfolio; spec: "positions, orders, exit rules, autopilot readiness"; shape
// not shown): one read of what the account holds and has armed, for an agent that wants it all at once.
//
// Decisions where the spec is silent (README "Portfolio"):
// - `totals`, `positions` (open, hand and trader/signal bots; the first 200, newest first) and `orders` (hand
//   orders, newest first, the first 200) are GET /v2/paper's with `include=orders`: their `nextCursor`s page
//   on GET /v2/paper (`cursor`, `ordersCursor`).
// - `exitRules`: the armed exit rules (at most one per position held by hand, so not paged).
// - `autopilot`: readiness per mode. Paper copying (trader bots) is ready on the venues that name traders
//   (venue_a, venue_b: a trader can only be followed where the venue names them);
//   live trading is never ready here: this service connects no venue key or trading wallet, so `blockers`
//   says so (it is what AUTOPILOT_NOT_READY would carry).
import { Effect, Schema } from "effect"
import { ExitRule } from "../domain/exits.js"
import { PageOf, STRICT } from "../domain/limits.js"
import { PaperOrderRow, PaperPosition, PaperTotals } from "../domain/paper.js"
import { ExitRulesStore } from "../store/exit-rules.js"
import { operation } from "./operation.js"
import { getPaperAccount } from "./paper.js"
import { exitRuleOf } from "./v1-exits.js"
import { ExitRules } from "../actors/exits/exit-rules.js"

const Readiness = Schema.Struct({
  ready: Schema.Boolean,
  /** Venues this mode can trade on. */
  venues: Schema.Array(Schema.String),
  /** Why it cannot start; empty when ready. */
  blockers: Schema.Array(Schema.String),
})

export const Portfolio = Schema.Struct({
  totals: PaperTotals,
  positions: PageOf(PaperPosition),
  orders: PageOf(PaperOrderRow),
  exitRules: Schema.Array(ExitRule),
  autopilot: Schema.Struct({ paper: Readiness, live: Readiness }),
}).annotations({ identifier: "Portfolio" })

/** Exit rules armed at once: one per position held by hand; a bound for the read, far above use. */
const ARMED_RULES_READ = 10_000

export const LIVE_BLOCKERS = [
  "live trading is not offered by this service: no venue key or trading wallet can be connected, so every order is paper",
] as const

export const getPortfolio = operation({
  name: "getPortfolio", tool: "get_portfolio", method: "GET", path: "/v1/portfolio", scope: "read",
  summary: "The paper portfolio at once: totals, open positions, recent hand orders, armed exit rules, autopilot readiness",
  input: Schema.Struct({}).annotations(STRICT), output: Portfolio,
  run: Effect.fn("Portfolio.get")(function* (_input, ctx) {
    const account = yield* getPaperAccount.run({ status: "open", source: "all", include: ["orders"], limit: 200 }, ctx)
    const rules = yield* ExitRulesStore.list({ accountId: ctx.principal.accountId, armedOnly: true, after: null, take: ARMED_RULES_READ })
    const exits = yield* ExitRules
    return {
      totals: account.totals,
      positions: account.positions,
      orders: account.orders ?? { data: [], nextCursor: null },
      exitRules: rules.map((r) => exitRuleOf(r, exits)),
      autopilot: {
        paper: { ready: true, venues: ["venue_a", "venue_b"], blockers: [] },
        live: { ready: false, venues: [], blockers: [...LIVE_BLOCKERS] },
      },
    }
  }),
})
