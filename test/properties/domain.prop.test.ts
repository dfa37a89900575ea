// Invariants of the domain Schemas (src/domain):
// 1. Every value generated from a resource Schema encodes, and decodes back to itself (output rows can
//    be built and written; input bodies survive a JSON trip and pass the strict decode).
// 2. An unknown field added to any input body is refused.
// 3. Every bound of the spec passes at its edge and fails one step past it, with a message naming the
//    field and the rule.
// 4. Cross-field rules (min ≤ max, exactly one form, fields that fit the kind or the action) refuse
//    what they must, with the field named.
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { Either, JSONSchema, ParseResult, Schema } from "effect"
import {
  BacktestRequest, BacktestScore, Bot, BotCreateRequest, BotId, BotListItem, BotPatchRequest, botPatchProblem,
  BotTradeRow, Holder, MarketDetail, MarketListRow, MarketObject, MarketRule, MoveRow, PaperAccount, PaperOrder,
  PaperOrderRequest, PaperOrderRow, PaperPosition, PaperTotals, Signal, Sizing, TradeRow, TraderDetail,
  TraderPositionRow, TraderRow, TraderSummary, UtcTime, V1BacktestRequest, V1BacktestScore, V1EventCriteria,
  V1EventsRequest, WebhookCreateRequest, WebhookEndpoint, WhaleEventRow, WhalePositionRow,
} from "../../src/domain/index.js"
import { quoted } from "../../src/domain/errors.js"
import * as Limits from "../../src/domain/limits.js"
import { TimeWithOffset } from "../../src/operations/filters.js"

// Schemas are heterogeneous; the tests only need their encode/decode, so they are held loosely typed.
type AnySchema = Schema.Schema<any, any, never>

const decode = (schema: AnySchema, input: unknown) => Schema.decodeUnknownEither(schema)(input)

/** The messages (with their paths) of a failed decode; empty when it passed. */
const problems = (schema: AnySchema, input: unknown): Array<string> =>
  Either.match(decode(schema, input), {
    onRight: () => [],
    onLeft: (error) =>
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.join(".")}: ${issue.message}`),
  })

const expectOk = (schema: AnySchema, input: unknown) => expect(problems(schema, input)).toEqual([])

/** Fails to decode, and one message contains `fragment`. */
const expectRefused = (schema: AnySchema, input: unknown, fragment: string) => {
  const found = problems(schema, input)
  expect(found.length, `expected ${JSON.stringify(input)} to be refused`).toBeGreaterThan(0)
  expect(found.join("\n")).toContain(fragment)
}

const decoded = (schema: AnySchema, input: unknown): any => Schema.decodeUnknownSync(schema)(input)

const OUTPUTS: Record<string, AnySchema> = {
  MarketObject, TraderSummary, TradeRow, MoveRow, MarketListRow, MarketDetail, WhalePositionRow, Holder, TraderRow,
  TraderDetail, TraderPositionRow, BotListItem, Bot, BotTradeRow, PaperOrder, PaperOrderRow, PaperPosition, PaperTotals,
  PaperAccount, BacktestScore, WhaleEventRow, V1BacktestScore, WebhookEndpoint,
}

const INPUTS: Record<string, AnySchema> = {
  Signal, Sizing, MarketRule, BotCreateRequest, BotPatchRequest, PaperOrderRequest, BacktestRequest, V1EventCriteria,
  V1EventsRequest, V1BacktestRequest, WebhookCreateRequest,
}

const RUNS = { fastCheck: { numRuns: 100 } }

describe("generated values are accepted", () => {
  for (const [name, schema] of Object.entries(OUTPUTS)) {
    it.prop(`${name}: encodes and decodes back to itself`, [schema], ([value]) => {
      const encoded = Schema.encodeSync(schema)(value)
      expect(Schema.decodeUnknownSync(schema)(encoded)).toEqual(value)
    }, RUNS)
  }

  for (const [name, schema] of Object.entries(INPUTS)) {
    it.prop(`${name}: survives a JSON trip through the strict decode`, [schema], ([value]) => {
      const wire = JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value)))
      const again = Schema.decodeUnknownSync(schema)(wire)
      expect(JSON.stringify(Schema.encodeSync(schema)(again))).toEqual(JSON.stringify(wire))
    }, RUNS)
  }
})

describe("unknown fields are refused", () => {
  for (const [name, schema] of Object.entries(INPUTS)) {
    it.prop(`${name}: refuses an extra field`, [schema], ([value]) => {
      const wire = { ...(Schema.encodeSync(schema)(value) as object), unexpectedField: 1 }
      expect(problems(schema, wire).join("\n")).toContain("unexpectedField")
    }, RUNS)
  }

  it("refuses unknown fields nested in a trigger, a rule, a signal and a sizing", () => {
    expectRefused(BotCreateRequest, { trigger: { trader: "venue_a:whale", extra: 1 } }, "extra")
    expectRefused(BotCreateRequest, { trigger: { market: "venue_a:m1", outcome: "Yes", rule: { sellAt: 0.5 } } }, "sellAt")
    expectRefused(BacktestRequest, { signal: { kind: "nba" } }, "kind")
    expectRefused(BacktestRequest, { trader: "venue_a:whale", sizing: { usd: 5, cap: 1 } }, "cap")
  })
})

describe("limits are the spec's", () => {
  it("names the Limits table's values", () => {
    expect([Limits.MAX_SIZING_USD, Limits.MAX_PERCENT, Limits.MAX_PAPER_BUY_USD, Limits.MAX_PAPER_SELL_CONTRACTS])
      .toEqual([1_000_000, 10_000, 1_000_000, 10_000_000])
    expect([Limits.MAX_KEYWORDS, Limits.MAX_KEYWORD_LENGTH, Limits.MAX_SIGNAL_TRADERS, Limits.MAX_SIGNAL_CATEGORIES])
      .toEqual([10, 40, 25, 5])
    expect([Limits.MAX_SIGNAL_VENUES, Limits.MAX_BOT_NAME, Limits.MAX_HOLD_HOURS, Limits.MAX_IDEMPOTENCY_KEY])
      .toEqual([50, 60, 720, 200])
    expect(Limits.PAGE_LIMIT).toEqual({ min: 1, max: 200, default: 50 })
    expect(Limits.BACKTEST_DAYS).toEqual({ min: 1, max: 365, default: 90 })
    expect([Limits.MIN_SWEEP_VALUES, Limits.MAX_SWEEP_VALUES, Limits.MAX_REPEAT]).toEqual([2, 20, 50])
    expect([Limits.MAX_TRADE_Q_WORDS, Limits.MAX_TRADE_Q_LENGTH, Limits.MAX_MARKET_Q_LENGTH, Limits.MAX_TRADER_Q_LENGTH])
      .toEqual([5, 200, 200, 100])
    expect(Limits.MAX_V1_SPORTS_LEAGUES).toBe(20)
  })

  it("page limit: 1 and 200 pass, 0, 201 and 1.5 fail", () => {
    expectOk(Limits.PageLimit, 1)
    expectOk(Limits.PageLimit, 200)
    for (const n of [0, 201, 1.5]) expectRefused(Limits.PageLimit, n, "limit must be an integer from 1 to 200")
  })
})

describe("ISO times (isoTimeMs: the since/until filters and UtcTime fields)", () => {
  it("reads what toISOString writes, at every offset, as Date.parse does", () => {
    fc.assert(fc.property(fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (ms, offset) => {
      const iso = new Date(ms).toISOString()
      expect(Limits.isoTimeMs(iso)).toBe(ms)
      const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23)
      const sign = offset < 0 ? "-" : "+"
      const abs = Math.abs(offset)
      const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`
      expect(Limits.isoTimeMs(`${local}${zone}`)).toBe(ms)
    }))
  })

  it("refuses dates and times not on the calendar instead of rolling them over", () => {
    for (const text of ["2026-11-31T00:00:00Z", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
      "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-15T24:00:00Z", "2026-01-15T12:60:00Z", "2026-01-15T12:00:60Z",
      "2026-01-15T12:00:00+24:00", "2026-01-15T12:00:00+01:60", "2026-01-15T12:00:00", "2026-01-15"]) {
      expect(Limits.isoTimeMs(text), text).toBeNull()
    }
    expect(Limits.isoTimeMs("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29))
    expect(Limits.isoTimeMs("2000-02-29T23:59:59.999Z")).toBe(Date.UTC(2000, 1, 29, 23, 59, 59, 999))
    expect(Limits.isoTimeMs("2026-01-15t12:00z")).toBe(Date.UTC(2026, 0, 15, 12))
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.123456789-0530")).toBe(Date.UTC(2026, 0, 15, 17, 30, 0, 123))
    // An offset in hours only (ISO 8601 ±hh).
    expect(Limits.isoTimeMs("2026-01-15T12:00:00+05")).toBe(Date.UTC(2026, 0, 15, 7))
    expect(Limits.isoTimeMs("2026-01-15T12:00:00-11")).toBe(Date.UTC(2026, 0, 15, 23))
    expect(Limits.isoTimeMs("2026-01-15T12:00:00+5")).toBeNull()
    expect(Limits.isoTimeMs("2026-01-15T12:00:00+053")).toBeNull()
  })

  it("cuts a fraction past the millisecond for an until, and takes it to the next millisecond for a since", () => {
    const at = Date.UTC(2026, 0, 15, 12, 0, 0, 641)
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.6415Z")).toBe(at)
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.6415Z", "up")).toBe(at + 1)
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.641000000Z", "up")).toBe(at)
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.999000001Z", "up")).toBe(Date.UTC(2026, 0, 15, 12, 0, 1))
    expect(Limits.isoTimeMs("2026-01-15T12:00:00.641Z", "up")).toBe(at)
    const since = Schema.decodeUnknownSync(TimeWithOffset("since"))
    const until = Schema.decodeUnknownSync(TimeWithOffset("until", "until"))
    expect(since("2026-01-15T12:00:00.6415Z")).toBe(at + 1)
    expect(until("2026-01-15T12:00:00.6415Z")).toBe(at)
    expectRefused(UtcTime, "2026-11-31T00:00:00.000Z", "must be an ISO 8601 time in UTC")
    expectOk(UtcTime, "2026-11-30T00:00:00.000Z")
  })
})

describe("quoted values in sentences", () => {
  it("quotes up to 80 characters whole and cuts a longer value with its own length", () => {
    expect(quoted("x".repeat(80))).toBe("x".repeat(80))
    expect(quoted("x".repeat(81))).toBe(`${"x".repeat(80)}… (81 characters)`)
    expect(quoted("😀".repeat(81))).toBe(`${"😀".repeat(80)}… (81 characters)`)
  })
})

const refs = (n: number, venue = "venue_a") => Array.from({ length: n }, (_, i) => `${venue}:trader${i}`)
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`)

describe("sizing", () => {
  it("usd: above 0, at most 1,000,000", () => {
    expectOk(Sizing, { usd: 1_000_000 })
    expectOk(Sizing, { usd: 0.01 })
    expectRefused(Sizing, { usd: 1_000_000.01 }, "sizing.usd must be above 0 and at most 1,000,000")
    expectRefused(Sizing, { usd: 0 }, "sizing.usd must be above 0")
    expectRefused(Sizing, { usd: -5 }, "sizing.usd")
    expectRefused(Sizing, { usd: "100" }, "usd")
  })

  it("percent: above 0, at most 10,000, only with maxUsd (at most 1,000,000)", () => {
    expectOk(Sizing, { percent: 10_000, maxUsd: 1_000_000 })
    expectRefused(Sizing, { percent: 10_000.01, maxUsd: 100 }, "sizing.percent must be above 0 and at most 10,000")
    expectRefused(Sizing, { percent: 0, maxUsd: 100 }, "sizing.percent")
    expectRefused(Sizing, { percent: 5, maxUsd: 1_000_000.01 }, "sizing.maxUsd must be above 0 and at most 1,000,000")
    expectRefused(Sizing, { percent: 5, maxUsd: 0 }, "sizing.maxUsd")
  })

  it("is exactly one of the two forms", () => {
    expectRefused(Sizing, { usd: 10, percent: 5, maxUsd: 100 }, "exactly one of { usd } or { percent, maxUsd }")
    expectRefused(Sizing, { usd: 10, maxUsd: 100 }, "exactly one of")
    expectRefused(Sizing, { percent: 5 }, "sizing.percent must be sent together with sizing.maxUsd")
    expectRefused(Sizing, { maxUsd: 100 }, "sizing.maxUsd is only valid together with sizing.percent")
    expectRefused(Sizing, {}, "sizing must be { usd } or { percent, maxUsd }")
    expect(decoded(Sizing, { percent: 5, maxUsd: 100 })).toEqual({ percent: 5, maxUsd: 100 })
  })
})

describe("signal", () => {
  it("an empty signal is valid and entry defaults to all", () => {
    expect(decoded(Signal, {})).toEqual({ entry: "all" })
    expectOk(Signal, { entry: "open" })
    expectRefused(Signal, { entry: "close" }, "entry")
  })

  it("venue: up to 50; category: up to 5", () => {
    expectOk(Signal, { venue: Array.from({ length: 50 }, () => "venue_a") })
    expectRefused(Signal, { venue: Array.from({ length: 51 }, () => "venue_a") }, "signal.venue may hold at most 50")
    expectRefused(Signal, { venue: ["venue_z"] }, "venue")
    expectOk(Signal, { category: ["sports", "politics", "crypto", "finance", "culture"] })
    expectRefused(Signal, { category: ["sports", "politics", "crypto", "finance", "culture", "sports"] }, "signal.category may hold at most 5")
  })

  it("minUsd and maxUsd: 0 or more, max at least min", () => {
    expectOk(Signal, { minUsd: 0, maxUsd: 0 })
    expectRefused(Signal, { minUsd: -0.01 }, "signal.minUsd must be a finite number, 0 or more")
    expectRefused(Signal, { minUsd: 500, maxUsd: 499.99 }, "maxUsd: signal.maxUsd must be at least signal.minUsd")
  })

  it("priceMin and priceMax: 0..1, max at least min", () => {
    expectOk(Signal, { priceMin: 0, priceMax: 1 })
    expectOk(Signal, { priceMin: 0.4, priceMax: 0.4 })
    expectRefused(Signal, { priceMin: -0.01 }, "signal.priceMin must be a price from 0 to 1")
    expectRefused(Signal, { priceMax: 1.01 }, "signal.priceMax must be a price from 0 to 1")
    expectRefused(Signal, { priceMin: 0.6, priceMax: 0.5 }, "priceMax: signal.priceMax must be at least signal.priceMin")
  })

  it("traders: 1 to 25 trader refs on naming venues", () => {
    expectOk(Signal, { traders: refs(1) })
    expectOk(Signal, { traders: refs(25, "venue_b") })
    expectRefused(Signal, { traders: refs(26) }, "signal.traders must hold 1 to 25 trader refs")
    expectRefused(Signal, { traders: [] }, "signal.traders must hold 1 to 25")
    expectRefused(Signal, { traders: ["venue_d:whale"] }, "traders.0: must be a trader ref")
    expectRefused(Signal, { traders: ["venue_b_us:whale"] }, "must be a trader ref")
    expectRefused(Signal, { traders: ["whale"] }, "must be a trader ref")
  })

  it("keywords: 1 to 10, each 1 to 40 characters", () => {
    expectOk(Signal, { keywords: words(10) })
    expectOk(Signal, { keywords: ["k".repeat(40)] })
    // Characters, not UTF-16 units: 40 emoji are 40 characters.
    expectOk(Signal, { keywords: ["🐋".repeat(40)] })
    expectRefused(Signal, { keywords: words(11) }, "keywords must hold 1 to 10 words")
    expectRefused(Signal, { keywords: [] }, "keywords must hold 1 to 10 words")
    expectRefused(Signal, { keywords: ["k".repeat(41)] }, "keywords.0: each keyword must be 1 to 40 characters")
    expectRefused(Signal, { keywords: [""] }, "each keyword must be 1 to 40 characters")
    expectRefused(Signal, { keywords: ["ok", "   "] }, "keywords.1: each keyword must hold something other than spaces")
    expectRefused(Signal, { keywords: [] }, "signal.keywords must hold 1 to 10 words")
  })

  it.prop("a generated signal with its bounds swapped is refused", [Signal], ([signal]) => {
    const wire = Schema.encodeSync(Signal)(signal)
    if (wire.minUsd !== undefined && wire.maxUsd !== undefined && wire.minUsd !== wire.maxUsd) {
      expectRefused(Signal, { ...wire, minUsd: wire.maxUsd, maxUsd: wire.minUsd }, "signal.maxUsd must be at least signal.minUsd")
    }
    if (wire.priceMin !== undefined && wire.priceMax !== undefined && wire.priceMin !== wire.priceMax) {
      expectRefused(Signal, { ...wire, priceMin: wire.priceMax, priceMax: wire.priceMin }, "signal.priceMax must be at least signal.priceMin")
    }
  }, RUNS)
})

describe("market-bot rule", () => {
  it("prices 0..1", () => {
    for (const key of ["buyBelow", "buyAbove", "takeProfit", "stopLoss"]) {
      expectOk(MarketRule, { [key]: 0 })
      expectOk(MarketRule, { [key]: 1 })
      expectRefused(MarketRule, { [key]: 1.01 }, `rule.${key} must be a price from 0 to 1`)
      expectRefused(MarketRule, { [key]: -0.01 }, `rule.${key}`)
    }
  })

  it("points in (0, 1]", () => {
    for (const key of ["dropsBy", "risesBy", "takeProfitPoints", "stopLossPoints"]) {
      expectOk(MarketRule, { [key]: 1 })
      expectOk(MarketRule, { [key]: 0.01 })
      expectRefused(MarketRule, { [key]: 0 }, `rule.${key} must be above 0 and at most 1`)
      expectRefused(MarketRule, { [key]: 1.01 }, `rule.${key} must be above 0 and at most 1`)
    }
  })

  it("maxHoldHours: above 0, at most 720", () => {
    expectOk(MarketRule, { maxHoldHours: 720 })
    expectOk(MarketRule, { maxHoldHours: 0.5 })
    expectRefused(MarketRule, { maxHoldHours: 720.5 }, "rule.maxHoldHours must be above 0 and at most 720")
    expectRefused(MarketRule, { maxHoldHours: 0 }, "rule.maxHoldHours")
  })

  it("at most one buy trigger; repeat defaults to false", () => {
    expect(decoded(MarketRule, { buyBelow: 0.3, takeProfit: 0.6, stopLoss: 0.2 }))
      .toEqual({ buyBelow: 0.3, takeProfit: 0.6, stopLoss: 0.2, repeat: false })
    expectRefused(MarketRule, { buyBelow: 0.3, buyAbove: 0.6 }, "rule may set at most one of buyBelow, buyAbove, dropsBy, risesBy")
    expectRefused(MarketRule, { dropsBy: 0.05, risesBy: 0.05 }, "at most one of")
    expectRefused(MarketRule, { repeat: "yes" }, "repeat")
  })
})

const marketTrigger = { market: "venue_a:m1", outcome: "Yes", rule: { buyBelow: 0.4 } }

describe("bot create", () => {
  it("decodes each trigger form with its defaults", () => {
    expect(decoded(BotCreateRequest, { trigger: { trader: "venue_a:whale" } })).toEqual({
      kind: "trader", trigger: { trader: "venue_a:whale" }, sizing: { usd: 100 }, mirrorExits: false, alerts: true,
    })
    expect(decoded(BotCreateRequest, { trigger: { signal: { minUsd: 10_000 } }, name: "Big buys", alerts: false })).toEqual({
      kind: "signal", trigger: { signal: { minUsd: 10_000, entry: "all" } }, name: "Big buys", sizing: { usd: 100 }, alerts: false,
    })
    expect(decoded(BotCreateRequest, { trigger: marketTrigger, sizing: { usd: 25 }, series: true })).toEqual({
      kind: "market", trigger: { ...marketTrigger, rule: { buyBelow: 0.4, repeat: false } }, sizing: { usd: 25 }, series: true, alerts: true,
    })
  })

  it("trigger is exactly one form", () => {
    const one = "trigger must be exactly one of { trader }, { signal } or { market, outcome, rule }"
    expectRefused(BotCreateRequest, { trigger: {} }, one)
    expectRefused(BotCreateRequest, { trigger: { trader: "venue_a:whale", signal: {} } }, one)
    expectRefused(BotCreateRequest, { trigger: { signal: {}, ...marketTrigger } }, one)
    expectRefused(BotCreateRequest, { trigger: { market: "venue_a:m1", rule: {} } }, "trigger.outcome is required for a market bot")
    expectRefused(BotCreateRequest, { trigger: { market: "venue_a:m1" } }, "trigger.outcome and trigger.rule are required")
    expectRefused(BotCreateRequest, {}, "trigger")
  })

  it("a trader ref on a venue that does not name traders is refused", () => {
    expectRefused(BotCreateRequest, { trigger: { trader: "venue_d:whale" } }, "trigger.trader: must be a trader ref")
  })

  it("fields for another kind are refused by name", () => {
    expectRefused(BotCreateRequest, { trigger: { trader: "venue_a:whale" }, name: "x" }, "name: name is only valid on a signal bot")
    expectRefused(BotCreateRequest, { trigger: marketTrigger, name: "x" }, "name is only valid on a signal bot")
    expectRefused(BotCreateRequest, { trigger: { signal: {} }, mirrorExits: true }, "mirrorExits is only valid on a trader bot")
    expectRefused(BotCreateRequest, { trigger: { trader: "venue_a:whale" }, series: true }, "series is only valid on a market bot")
    expectRefused(BotCreateRequest, { trigger: marketTrigger, sizing: { percent: 5, maxUsd: 10 } }, "sizing must be { usd } on a market bot")
    expectOk(BotCreateRequest, { trigger: { trader: "venue_a:whale" }, sizing: { percent: 5, maxUsd: 10 }, mirrorExits: true })
  })

  it("name: 1 to 60 characters", () => {
    expectOk(BotCreateRequest, { trigger: { signal: {} }, name: "n".repeat(60) })
    expectRefused(BotCreateRequest, { trigger: { signal: {} }, name: "n".repeat(61) }, "name must be 1 to 60 characters")
    expectRefused(BotCreateRequest, { trigger: { signal: {} }, name: "" }, "name must be 1 to 60 characters")
  })

  it("the nested signal keeps its own rules", () => {
    expectRefused(BotCreateRequest, { trigger: { signal: { keywords: words(11) } } }, "keywords must hold 1 to 10 words")
    expectRefused(BotCreateRequest, { trigger: { signal: { minUsd: 2, maxUsd: 1 } } }, "signal.maxUsd must be at least signal.minUsd")
  })
})

describe("bot patch", () => {
  it("an empty body is refused", () => {
    expectRefused(BotPatchRequest, {}, "the body must change at least one field")
    expectOk(BotPatchRequest, { alerts: false })
  })

  it("name: 1 to 60; status: running or paused", () => {
    expectOk(BotPatchRequest, { name: "n".repeat(60) })
    expectRefused(BotPatchRequest, { name: "n".repeat(61) }, "name must be 1 to 60 characters")
    expectRefused(BotPatchRequest, { name: "" }, "name must be 1 to 60 characters")
    expectOk(BotPatchRequest, { status: "paused" })
    expectRefused(BotPatchRequest, { status: "ended" }, "status")
  })

  it("fields must fit the bot's kind", () => {
    const patch = (u: unknown) => decoded(BotPatchRequest, u) as BotPatchRequest
    expect(botPatchProblem("signal", patch({ status: "paused" }))).toBe("status is not valid for a signal bot")
    expect(botPatchProblem("trader", patch({ rule: {} }))).toBe("rule is not valid for a trader bot")
    expect(botPatchProblem("market", patch({ mirrorExits: true }))).toBe("mirrorExits is not valid for a market bot")
    expect(botPatchProblem("market", patch({ sizing: { percent: 5, maxUsd: 10 } }))).toBe("sizing must be { usd } on a market bot")
    expect(botPatchProblem("market", patch({ sizing: { usd: 10 }, status: "running" }))).toBeUndefined()
    expect(botPatchProblem("signal", patch({ name: "x", signal: {} }))).toBeUndefined()
  })
})

describe("bot id", () => {
  it("accepts the three forms and nothing else", () => {
    for (const id of ["trader:abc", "signal:x_1", "market:A-9", `signal:${"a".repeat(64)}`]) expectOk(BotId, id)
    for (const id of ["bot:abc", "trader:", "trader:a b", "trader", "signal:a:b", `signal:${"a".repeat(65)}`]) {
      expectRefused(BotId, id, "must be a bot id")
    }
  })
})

describe("paper order", () => {
  const buy = { market: "venue_a:m1", outcome: "yes", action: "buy" }
  const sell = { market: "venue_a:m1", outcome: "No", action: "sell" }

  it("buy usd: above 0, at most 1,000,000", () => {
    expect(decoded(PaperOrderRequest, { ...buy, usd: 1_000_000, maxPrice: 1 })).toEqual({ ...buy, usd: 1_000_000, maxPrice: 1 })
    expectRefused(PaperOrderRequest, { ...buy, usd: 1_000_000.01 }, "usd must be above 0 and at most 1,000,000")
    expectRefused(PaperOrderRequest, { ...buy, usd: 0 }, "usd must be above 0")
    expectRefused(PaperOrderRequest, buy, "usd: usd is required on a buy")
  })

  it("sell contracts: above 0, at most 10,000,000, or all", () => {
    expect(decoded(PaperOrderRequest, { ...sell, contracts: "all", minPrice: 0 })).toEqual({ ...sell, contracts: "all", minPrice: 0 })
    expectOk(PaperOrderRequest, { ...sell, contracts: 10_000_000 })
    expectRefused(PaperOrderRequest, { ...sell, contracts: 10_000_000.5 }, "contracts must be above 0 and at most 10,000,000")
    expectRefused(PaperOrderRequest, { ...sell, contracts: 0 }, "contracts must be above 0")
    expectRefused(PaperOrderRequest, { ...sell, contracts: "some" }, "contracts")
    expectRefused(PaperOrderRequest, sell, "contracts: contracts is required on a sell")
  })

  it("fields not fitting the action are refused by name", () => {
    expectRefused(PaperOrderRequest, { ...buy, usd: 10, contracts: 5 }, "contracts: contracts is only valid on a sell")
    expectRefused(PaperOrderRequest, { ...buy, usd: 10, minPrice: 0.2 }, "minPrice: minPrice is only valid on a sell")
    expectRefused(PaperOrderRequest, { ...sell, contracts: 5, usd: 10 }, "usd: usd is only valid on a buy")
    expectRefused(PaperOrderRequest, { ...sell, contracts: 5, maxPrice: 0.2 }, "maxPrice: maxPrice is only valid on a buy")
  })

  it("price limits: 0..1; market, outcome and action required", () => {
    expectRefused(PaperOrderRequest, { ...buy, usd: 10, maxPrice: 1.01 }, "maxPrice must be a price from 0 to 1")
    expectRefused(PaperOrderRequest, { ...sell, contracts: 1, minPrice: -0.01 }, "minPrice must be a price from 0 to 1")
    expectRefused(PaperOrderRequest, { outcome: "yes", action: "buy", usd: 1 }, "market")
    expectRefused(PaperOrderRequest, { market: "venue_a:m1", action: "buy", usd: 1 }, "outcome")
    expectRefused(PaperOrderRequest, { ...buy, action: "hold", usd: 1 }, "action")
  })
})

describe("backtest", () => {
  const signal = { minUsd: 5_000 }

  it("days: integer 1..365, default 90; sizing default { usd: 100 }", () => {
    expect(decoded(BacktestRequest, { signal })).toEqual({ signal: { ...signal, entry: "all" }, sizing: { usd: 100 }, days: 90, holdout: false })
    expect(decoded(BacktestRequest, { trader: "venue_b:whale" })).toEqual({ trader: "venue_b:whale", sizing: { usd: 100 }, days: 90 })
    expectOk(BacktestRequest, { signal, days: 1 })
    expectOk(BacktestRequest, { signal, days: 365 })
    for (const days of [0, 366, 1.5]) expectRefused(BacktestRequest, { signal, days }, "days must be an integer from 1 to 365")
  })

  it("exactly one of signal or trader", () => {
    expectRefused(BacktestRequest, {}, "exactly one of signal or trader")
    expectRefused(BacktestRequest, { signal, trader: "venue_a:whale" }, "exactly one of signal or trader")
    expectRefused(BacktestRequest, { trader: "venue_d:whale" }, "trader: must be a trader ref")
  })

  it("holdout, sweep and breakdown are for signals only", () => {
    const trader = "venue_a:whale"
    expectRefused(BacktestRequest, { trader, holdout: true }, "holdout: holdout is only valid with a signal")
    expectRefused(BacktestRequest, { trader, breakdown: "month" }, "breakdown is only valid with a signal")
    expectRefused(BacktestRequest, { trader, sweep: { field: "minUsd", values: [1, 2] } }, "sweep is only valid with a signal")
    expectOk(BacktestRequest, { signal, holdout: true, breakdown: "price_band", sweep: { field: "minUsd", values: [1, 2] } })
    expectRefused(BacktestRequest, { signal, breakdown: "platform" }, "breakdown")
  })

  it("sweep: 2 to 20 values, prices within 0..1", () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i / 20)
    expectOk(BacktestRequest, { signal, sweep: { field: "priceMin", values: values(2) } })
    expectOk(BacktestRequest, { signal, sweep: { field: "priceMax", values: values(20) } })
    expectRefused(BacktestRequest, { signal, sweep: { field: "priceMin", values: values(21) } }, "sweep.values must hold 2 to 20 numbers")
    expectRefused(BacktestRequest, { signal, sweep: { field: "priceMin", values: [0.5] } }, "sweep.values must hold 2 to 20 numbers")
    expectOk(BacktestRequest, { signal, sweep: { field: "priceMax", values: [0, 1] } })
    expectRefused(BacktestRequest, { signal, sweep: { field: "priceMax", values: [0.5, 1.01] } }, "sweep.values must be prices from 0 to 1")
    expectRefused(BacktestRequest, { signal, sweep: { field: "minUsd", values: [-1, 10] } }, "sweep.values must be 0 or more")
    expectOk(BacktestRequest, { signal, sweep: { field: "maxUsd", values: [5_000, 1e9] } })
    expectRefused(BacktestRequest, { signal, sweep: { field: "volume", values: [1, 2] } }, "sweep.field")
  })

  it("a swept value may not cross the signal's other bound", () => {
    expectRefused(BacktestRequest, { signal: { priceMax: 0.5 }, sweep: { field: "priceMin", values: [0.4, 0.6] } },
      "sweep.values would put signal.priceMin above signal.priceMax")
    expectRefused(BacktestRequest, { signal: { minUsd: 1_000 }, sweep: { field: "maxUsd", values: [500, 2_000] } },
      "sweep.values would put signal.maxUsd below signal.minUsd")
    expectOk(BacktestRequest, { signal: { priceMax: 0.5 }, sweep: { field: "priceMin", values: [0.4, 0.5] } })
  })
})

describe("v1", () => {
  it("events: an empty body is valid; criteria bounds hold", () => {
    expect(decoded(V1EventsRequest, {})).toEqual({ limit: 50, offset: 0 })
    expect(decoded(V1EventsRequest, { criteria: {} })).toEqual({ criteria: { sinceDays: 90 }, limit: 50, offset: 0 })
    expectRefused(V1EventsRequest, { limit: 201 }, "limit must be an integer from 1 to 200")
    expectRefused(V1EventsRequest, { offset: -1 }, "offset")
  })

  it("criteria: sportsLeagues up to 20, sinceDays 1..365, max at least min", () => {
    const leagues = (n: number) => Array.from({ length: n }, (_, i) => `league${i}`)
    expectOk(V1EventCriteria, { sportsLeagues: leagues(20) })
    expectRefused(V1EventCriteria, { sportsLeagues: leagues(21) }, "criteria.sportsLeagues may hold at most 20")
    expectOk(V1EventCriteria, { sinceDays: 365 })
    expectOk(V1EventCriteria, { sinceDays: 1 })
    expectRefused(V1EventCriteria, { sinceDays: 366 }, "criteria.sinceDays must be an integer from 1 to 365")
    expectRefused(V1EventCriteria, { sinceDays: 0 }, "criteria.sinceDays")
    expectRefused(V1EventCriteria, { minAmountUsd: 10, maxAmountUsd: 5 }, "criteria.maxAmountUsd must be at least criteria.minAmountUsd")
    expectRefused(V1EventCriteria, { priceMin: 0.7, priceMax: 0.2 }, "criteria.priceMax must be at least criteria.priceMin")
    expectRefused(V1EventCriteria, { priceMax: 1.2 }, "criteria.priceMax must be a price from 0 to 1")
    expectRefused(V1EventCriteria, { platforms: ["venue_z"] }, "platforms")
    expectRefused(V1EventCriteria, { keywords: words(11) }, "criteria.keywords may hold at most 10 values")
    expectOk(V1EventCriteria, { keywords: [] })
    expectOk(V1EventCriteria, { platforms: ["venue_e", "venue_g"], eventTypes: ["open", "unknown"], directions: ["buy_no"] })
  })

  it("backtest: stake above 0, default 100", () => {
    expect(decoded(V1BacktestRequest, {})).toEqual({ criteria: { sinceDays: 90 }, stake: 100 })
    expectRefused(V1BacktestRequest, { stake: 0 }, "stake must be above 0")
  })
})

describe("webhook", () => {
  it("url must be https; events are type names", () => {
    expectOk(WebhookCreateRequest, { url: "https://hooks.example.com/whales", events: ["trade.followed", "copy.executed"] })
    expectOk(WebhookCreateRequest, { url: "https://hooks.example.com/whales", events: [] })
    expectRefused(WebhookCreateRequest, { url: "http://hooks.example.com/whales" }, "url must be a public https URL")
    expectRefused(WebhookCreateRequest, { url: "not a url" }, "url must be a public https URL")
    expectRefused(WebhookCreateRequest, { url: "https://example.com", events: ["Trade Followed"] }, "events must be event type names")
  })
})

describe("output rows refuse what the spec rules out", () => {
  const market = { ref: "venue_a:m1", contract: "venue_a:m1", title: "Will it rain?", venue: "venue_a", category: "culture", kind: "weather" }
  const side = { trades: 0, usd: 0 }
  const trade = {
    id: "t1", time: "2025-03-01T12:00:00.000Z", market, outcome: "Yes", action: "buy", entry: null, price: 0.42, usd: 50_000,
    contracts: 119_047.6, trader: null, agreement: { sameSide: side, otherSide: side }, result: "open", profit: null,
  }

  it("a well-formed trade row passes; bad prices, times, enums and counts fail", () => {
    expectOk(TradeRow, trade)
    expectRefused(TradeRow, { ...trade, price: 1.2 }, "price")
    expectRefused(TradeRow, { ...trade, time: "2025-03-01 12:00:00" }, "must be an ISO 8601 time in UTC")
    expectRefused(TradeRow, { ...trade, market: { ...market, kind: "nfl_draft" } }, "market.kind")
    expectRefused(TradeRow, { ...trade, agreement: { sameSide: { trades: 1.5, usd: 0 }, otherSide: side } }, "agreement.sameSide.trades")
    expectRefused(TradeRow, { ...trade, trader: { ref: "venue_a:w", name: null, winRate: 1.01, profit: null, settled: 10 } }, "trader.winRate")
  })

  it("times are UTC instants", () => {
    expectOk(UtcTime, "2025-03-01T12:00:00Z")
    expectOk(UtcTime, "2025-03-01T12:00:00.123Z")
    expectRefused(UtcTime, "2025-03-01T12:00:00+01:00", "UTC")
    expectRefused(UtcTime, "2025-13-41T12:00:00Z", "UTC")
  })
})

describe("input Schemas have JSON Schemas (MCP tool inputs)", () => {
  const BODIES = new Set(["BotCreateRequest", "BotPatchRequest", "PaperOrderRequest", "BacktestRequest", "V1EventsRequest",
    "V1BacktestRequest", "WebhookCreateRequest"])
  for (const [name, schema] of Object.entries(INPUTS)) {
    it(`${name}`, () => {
      const json = JSONSchema.make(schema)
      expect(JSON.stringify(json)).toContain("\"additionalProperties\":false")
      // A tool's input schema must be an object at its root, not a $ref.
      if (BODIES.has(name)) expect(json).toMatchObject({ type: "object", additionalProperties: false })
    })
  }
})
