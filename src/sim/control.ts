// The simulator's control API (loopback only): read the simulated markets with their hidden fair
// prices and books; settle, void or close a market; replace one outcome's book; inject a trade that
// walks the book. Every change goes through the model, so it reaches clients on the venue's own
// WebSocket like anything else. Answers are `{data}` or `{error: sentence naming the field}`.
//
//   GET  /control/markets[?status=all]         contracts (open and closed; all with status=all) and events
//   GET  /control/markets/{ref}                one contract, or an event with its contracts
//   POST /control/markets/{ref}/settle {"outcome"}   contract: the winning outcome; event: the winning contract
//   POST /control/markets/{ref}/void            contract or event
//   POST /control/markets/{ref}/close           contract or event
//   POST /control/markets/{ref}/book {"outcome","bids":[{price,size}],"asks":[…]}  replaces that outcome's book
//   POST /control/trades {"market","outcome","action","usd","price"?,"trader"?}   a taker order; `price` is its limit
//   POST /control/clock {"steps"}               manual mode only: step the model
//
// Refs: `<venue>:<contract id>` (condition id, slug or ticker) and `<venue>:event:<event id>`. An
// `outcome` is matched by id, name or label (case-insensitive), or `yes` / `no`. `trader` is a handle
// (venue_a) or a wallet or name (venue_b), created when unknown; ignored on venues without traders.
import { levelsOf, type Book, type Level } from "./book.js"
import type { HttpAnswer } from "./history.js"
import type { SimModel } from "./model.js"
import type { ModelEvent, SimContract, SimGroup } from "./types.js"

export interface ControlContext {
  readonly model: SimModel
  /** Sends model events to the venues' clients. */
  readonly publish: (events: ReadonlyArray<ModelEvent>) => void
  /** Manual stepping, when the clock is not driven by wall time; else null. */
  readonly step: ((steps: number) => void) | null
}

class Invalid {
  constructor(readonly status: number, readonly error: string) {}
}
const invalid = (error: string, status = 400): never => {
  throw new Invalid(status, error)
}

/** Requests from anywhere but this machine are refused. */
export const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."))

const iso = (ms: number): string => new Date(ms).toISOString()
const levels = (list: ReadonlyArray<Level>) => list.map((l) => ({ price: l.price / 1000, size: l.size / 100 }))

const contractView = (model: SimModel, c: SimContract) => ({
  ref: c.ref,
  venue: c.venue,
  id: c.id,
  title: c.title,
  category: c.category,
  kind: c.kind,
  series: c.series,
  event: c.group === null ? null : { ref: c.group.ref, title: c.group.title },
  status: c.status,
  listedAt: iso(c.listedAt),
  closesAt: iso(c.closesAt),
  tick: c.tick / 1000,
  outcomes: c.outcomes.map((o) => ({ id: o.id, name: o.name, label: o.label })),
  fair: c.status === "open" ? Math.round(model.fair(c) * 10_000) / 10_000 : null,
  lastPrice: c.lastPrice === null ? null : c.lastPrice / 10_000,
  winner: c.winner === null ? null : c.outcomes[c.winner].name,
  /** The first outcome's book; the second's is its mirror. */
  book: { bids: levels(levelsOf(c.book, "bid")), asks: levels(levelsOf(c.book, "ask")) },
})

const groupView = (model: SimModel, g: SimGroup) => ({
  ref: g.ref, venue: g.venue, id: g.id, title: g.title, exclusive: g.exclusive,
  contracts: g.contracts.map((c) => contractView(model, c)),
})

const outcomeIndex = (c: SimContract, value: unknown, field = "outcome"): 0 | 1 => {
  if (typeof value !== "string" || value === "") return invalid(`${field} must name an outcome of ${c.ref}`)
  const v = value.toLowerCase()
  for (const i of [0, 1] as const) {
    const o = c.outcomes[i]
    if ([o.id, o.name, o.label].some((x) => x.toLowerCase() === v)) return i
  }
  if (v === "yes") return 0
  if (v === "no") return 1
  return invalid(`${field} must be one of ${c.outcomes.map((o) => `"${o.name}"`).join(", ")} for ${c.ref}`)
}

const field = (body: Record<string, unknown>, name: string): unknown => body[name]

const bookLevels = (c: SimContract, value: unknown, name: string): Array<Level> => {
  if (value === undefined) return []
  if (!Array.isArray(value)) return invalid(`${name} must be an array of {price, size}`)
  return value.map((item, i) => {
    if (typeof item !== "object" || item === null) return invalid(`${name}[${i}] must be an object {price, size}`)
    const { price, size } = item as Record<string, unknown>
    if (typeof price !== "number" || !(price > 0 && price < 1)) return invalid(`${name}[${i}].price must be a number between 0 and 1`)
    const p = Math.round(price * 1000)
    if (Math.abs(p - price * 1000) > 1e-6 || p % c.tick !== 0) return invalid(`${name}[${i}].price must be a multiple of the tick ${c.tick / 1000}`)
    if (typeof size !== "number" || !(size > 0) || size > 1e9) return invalid(`${name}[${i}].size must be a positive number of contracts`)
    return { price: p, size: Math.round(size * 100) }
  })
}

const setBook = (ctx: ControlContext, c: SimContract, body: Record<string, unknown>): HttpAnswer => {
  if (c.status !== "open") return invalid(`market ${c.ref} is ${c.status}; only an open market's book can be set`, 409)
  const outcome = outcomeIndex(c, field(body, "outcome"))
  const bids = bookLevels(c, field(body, "bids"), "bids")
  const asks = bookLevels(c, field(body, "asks"), "asks")
  const bestBid = Math.max(0, ...bids.map((l) => l.price))
  const bestAsk = Math.min(1000, ...asks.map((l) => l.price))
  if (bids.length > 0 && asks.length > 0 && bestBid >= bestAsk) return invalid("bids must all be below asks")
  // The canonical book is the first outcome's: a bid for the second at p is an offer of the first at 1 − p.
  const target: Book = { bids: new Map(), asks: new Map() }
  for (const l of outcome === 0 ? bids : asks.map((x) => ({ price: 1000 - x.price, size: x.size }))) target.bids.set(l.price, (target.bids.get(l.price) ?? 0) + l.size)
  for (const l of outcome === 0 ? asks : bids.map((x) => ({ price: 1000 - x.price, size: x.size }))) target.asks.set(l.price, (target.asks.get(l.price) ?? 0) + l.size)
  ctx.publish(ctx.model.replaceBook(c, target))
  return { status: 200, body: { data: contractView(ctx.model, c) } }
}

const trade = (ctx: ControlContext, body: Record<string, unknown>): HttpAnswer => {
  const ref = field(body, "market")
  if (typeof ref !== "string" || ref === "") return invalid("market must be a market ref")
  const c = ctx.model.contracts.get(ref)
  if (c === undefined) {
    if (ctx.model.groups.has(ref)) return invalid(`market ${ref} names an event; pass one of its contract refs`)
    return invalid(`market ${ref} is not a simulated market`, 404)
  }
  if (c.status !== "open") return invalid(`market ${ref} is ${c.status}; trades need an open market`, 409)
  const outcome = outcomeIndex(c, field(body, "outcome"))
  const action = field(body, "action")
  if (action !== "buy" && action !== "sell") return invalid("action must be buy or sell")
  const usd = field(body, "usd")
  if (typeof usd !== "number" || !(usd > 0) || usd > 100_000_000) return invalid("usd must be a positive number of dollars")
  const price = field(body, "price")
  if (price !== undefined && (typeof price !== "number" || !(price > 0 && price < 1))) return invalid("price must be a number between 0 and 1 (the order's limit)")
  const who = field(body, "trader")
  if (who !== undefined && who !== null && (typeof who !== "string" || who === "" || who.length > 128 || /\s/.test(who))) {
    return invalid("trader must be a handle or wallet without spaces, at most 128 characters")
  }
  const limit = typeof price === "number" ? Math.round(price * 1000) : action === "buy" ? 999 : 1
  const result = ctx.model.injectTrade(c, {
    outcome, action, usd, limit, trader: ctx.model.traderFor(c.venue, typeof who === "string" ? who : null),
  })
  if (result.trade === null) return invalid(`no resting order of ${c.ref} can fill this order at its price limit`, 409)
  ctx.publish(result.events)
  const t = result.trade
  return {
    status: 200,
    body: {
      data: {
        market: c.ref, outcome: c.outcomes[t.outcome].name, action: t.action, price: t.price / 10_000,
        contracts: t.contracts / 100, usd: Math.round((t.contracts * t.price) / 10_000) / 100,
        trader: c.venue === "venue_a" || c.venue === "venue_b" ? t.trader.id : null, time: iso(t.ts),
      },
    },
  }
}

const ending = (ctx: ControlContext, ref: string, action: "settle" | "void" | "close", body: Record<string, unknown>): HttpAnswer => {
  const model = ctx.model
  const group = model.groups.get(ref)
  const c = model.contracts.get(ref)
  if (group === undefined && c === undefined) return invalid(`market ${ref} is not a simulated market`, 404)
  const targets = group?.contracts ?? (c === undefined ? [] : [c])
  const winners = new Map<SimContract, 0 | 1 | null>()
  if (action === "settle") {
    if (group !== undefined) {
      const o = field(body, "outcome")
      const v = typeof o === "string" ? o.toLowerCase() : ""
      const win = group.contracts.find((k) => [k.ref, k.id, k.item, k.title, k.outcomes[0].label].some((x) => x.toLowerCase() === v))
      if (win === undefined) return invalid(`outcome must name one contract of event ${ref} (its ref or name)`)
      for (const k of group.contracts) winners.set(k, k === win ? 0 : 1)
    } else if (c !== undefined) winners.set(c, outcomeIndex(c, field(body, "outcome")))
  }
  const live = targets.filter((k) => (action === "close" ? k.status === "open" : k.status === "open" || k.status === "closed"))
  if (live.length === 0) return invalid(`market ${ref} is already ${targets[0]?.status ?? "ended"}`, 409)
  const events = model.command((out) => {
    for (const k of live) {
      if (action === "close") model.closeContract(k, out)
      else model.endContract(k, action === "void" ? null : (winners.get(k) ?? null), out)
    }
  })
  ctx.publish(events)
  return { status: 200, body: { data: group === undefined ? contractView(model, live[0] as SimContract) : groupView(model, group) } }
}

/** Answers a control request, or null when the path is not a control path. */
export const controlRequest = (ctx: ControlContext, method: string, path: string, query: URLSearchParams, body: unknown): HttpAnswer | null => {
  if (!path.startsWith("/control/")) return null
  try {
    const record = (body ?? {}) as Record<string, unknown>
    if (method === "POST" && (typeof body !== "object" || body === null || Array.isArray(body))) return invalid("body must be a JSON object")
    if (path === "/control/markets" || path === "/control/markets/") {
      if (method !== "GET") return invalid("use GET on /control/markets", 405)
      const all = query.get("status") === "all"
      const contracts = [...ctx.model.contracts.values()].filter((c) => all || c.status === "open" || c.status === "closed")
      const groups = [...ctx.model.groups.values()].filter((g) => g.contracts.some((c) => contracts.includes(c)))
      return {
        status: 200,
        body: {
          data: contracts.map((c) => contractView(ctx.model, c)),
          events: groups.map((g) => ({ ref: g.ref, venue: g.venue, title: g.title, exclusive: g.exclusive, contracts: g.contracts.map((c) => c.ref) })),
          now: iso(ctx.model.now),
        },
      }
    }
    if (path === "/control/trades") {
      if (method !== "POST") return invalid("use POST on /control/trades", 405)
      return trade(ctx, record)
    }
    if (path === "/control/clock") {
      if (method !== "POST") return invalid("use POST on /control/clock", 405)
      if (ctx.step === null) return invalid("the clock follows wall time; start the simulator with speed 0 to step it", 409)
      const steps = record["steps"] ?? 1
      if (typeof steps !== "number" || !Number.isInteger(steps) || steps < 1 || steps > 100_000) return invalid("steps must be an integer from 1 to 100000")
      ctx.step(steps)
      return { status: 200, body: { data: { now: iso(ctx.model.now) } } }
    }
    const m = /^\/control\/markets\/([^/]+)(?:\/(settle|void|close|book))?\/?$/.exec(path)
    if (m === null) return invalid(`no control endpoint at ${path}`, 404)
    let ref: string
    try {
      ref = decodeURIComponent(m[1] ?? "")
    } catch {
      return invalid("market ref in the path is not valid percent-encoding")
    }
    const action = m[2]
    if (action === undefined) {
      if (method !== "GET") return invalid(`use GET on /control/markets/{ref}`, 405)
      const c = ctx.model.contracts.get(ref)
      const g = ctx.model.groups.get(ref)
      if (c !== undefined) return { status: 200, body: { data: contractView(ctx.model, c) } }
      if (g !== undefined) return { status: 200, body: { data: groupView(ctx.model, g) } }
      return invalid(`market ${ref} is not a simulated market`, 404)
    }
    if (method !== "POST") return invalid(`use POST on /control/markets/{ref}/${action}`, 405)
    if (action === "book") {
      const c = ctx.model.contracts.get(ref)
      if (c === undefined) {
        if (ctx.model.groups.has(ref)) return invalid(`market ${ref} names an event; set the book of one of its contracts`)
        return invalid(`market ${ref} is not a simulated market`, 404)
      }
      return setBook(ctx, c, record)
    }
    return ending(ctx, ref, action as "settle" | "void" | "close", record)
  } catch (error) {
    if (error instanceof Invalid) return { status: error.status, body: { error: error.error } }
    throw error
  }
}
