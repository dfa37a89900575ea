// What the simulator lists: a plan per kind of the spec (title, contracts, outcome names, starting
// probabilities, lifetime) and the repeating series that reopen on a clock. Venue-neutral and pure:
// ids, tickers and slugs are given by the model; wire shapes by the encoders.
import { categoryOfKind, type Category, type Kind, type Venue } from "../domain/enums.js"
import type { Rng } from "./random.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export interface PlanContract {
  /** Contract title as the venue writes it. */
  readonly title: string
  /** Short name of the contract inside its event (Kalshi `yes_sub_title`, Polymarket group item). */
  readonly item: string
  /** Outcome names where the venue names outcomes (venue_b), first = the "Yes"-like side. */
  readonly names: readonly [string, string]
  /** The venue's wording for Yes / No elsewhere. */
  readonly labels: readonly [string, string]
  /** Starting probability of the first outcome. */
  readonly p0: number
}

export interface MarketPlan {
  readonly kind: Kind
  readonly category: Category
  /** Event title when the plan lists several contracts under one event, else null. */
  readonly eventTitle: string | null
  /** Exactly one contract wins (a race, a range) rather than each resolving on its own. */
  readonly exclusive: boolean
  readonly contracts: ReadonlyArray<PlanContract>
  readonly lifetimeMs: number
  /** Short code for ids and tickers (upper case letters). */
  readonly code: string
  /** Tick in thousandths of a dollar: 10 (0.01) or 1 (0.001). */
  readonly tick: number
}

/** Where each kind is listed; the first venue is its home. */
const VENUES_OF: Partial<Record<Kind, ReadonlyArray<Venue>>> = {
  nfl: ["venue_b", "venue_a", "venue_b_us"], nba: ["venue_b", "venue_a", "venue_b_us", "venue_d"],
  soccer: ["venue_b", "venue_a", "venue_b_us"], mlb: ["venue_a", "venue_b_us", "venue_b"],
  nhl: ["venue_b_us", "venue_a", "venue_b"], tennis: ["venue_b", "venue_d"],
  us_elections: ["venue_b", "venue_a", "venue_d"], us_politics: ["venue_a", "venue_b"],
  world_politics: ["venue_b", "venue_d"], fed_rates: ["venue_a", "venue_d", "venue_b"],
  economic_data: ["venue_d", "venue_a"], stocks_indices: ["venue_d", "venue_b_us"],
  mentions: ["venue_a", "venue_d"], weather: ["venue_a", "venue_d"], bitcoin: ["venue_b", "venue_a", "venue_d"],
  ethereum: ["venue_b", "venue_a"], solana: ["venue_b", "venue_d"], xrp: ["venue_b", "venue_a"],
  college_football: ["venue_b_us", "venue_b"], college_basketball: ["venue_b_us", "venue_a"],
  wnba: ["venue_a", "venue_b"], golf: ["venue_b", "venue_d"], mma: ["venue_b", "venue_a"],
}

export const venuesOf = (kind: Kind): ReadonlyArray<Venue> => VENUES_OF[kind] ?? ["venue_b", "venue_a", "venue_d", "venue_b_us"]

/** How often each kind lists, relative to the others (sports and politics dominate real venues). */
const WEIGHT: Partial<Record<Kind, number>> = {
  nfl: 5, nba: 6, soccer: 6, mlb: 4, nhl: 3, tennis: 3, college_football: 3, college_basketball: 3,
  us_elections: 5, us_politics: 4, world_politics: 3, bitcoin: 4, ethereum: 3, fed_rates: 2,
  economic_data: 2, stocks_indices: 2, mentions: 2, weather: 2, entertainment: 2,
}
export const kindWeight = (kind: Kind): number => WEIGHT[kind] ?? 1

const TEAMS: Partial<Record<Kind, ReadonlyArray<string>>> = {
  nfl: ["Chiefs", "Eagles", "Bills", "Ravens", "49ers", "Lions", "Cowboys", "Packers", "Bengals", "Dolphins"],
  college_football: ["Georgia", "Alabama", "Ohio State", "Michigan", "Texas", "Oregon", "LSU", "Clemson"],
  nba: ["Lakers", "Celtics", "Nuggets", "Bucks", "Warriors", "Knicks", "Thunder", "Heat", "Suns", "Mavericks"],
  wnba: ["Liberty", "Aces", "Lynx", "Sun", "Fever", "Storm", "Sky", "Mercury"],
  college_basketball: ["Duke", "UConn", "Kansas", "Houston", "Purdue", "Kentucky", "Arizona", "Gonzaga"],
  basketball: ["Real Madrid", "Fenerbahce", "Olympiacos", "Panathinaikos", "Barcelona", "Monaco"],
  mlb: ["Dodgers", "Yankees", "Braves", "Astros", "Phillies", "Orioles", "Mariners", "Cubs"],
  nhl: ["Panthers", "Oilers", "Rangers", "Stars", "Avalanche", "Bruins", "Jets", "Hurricanes"],
  soccer: ["Arsenal", "Liverpool", "Man City", "Chelsea", "Real Madrid", "Barcelona", "Bayern", "PSG", "Inter", "Juventus"],
  tennis: ["Sinner", "Alcaraz", "Djokovic", "Zverev", "Medvedev", "Fritz", "Rune", "Ruud"],
  mma: ["Makhachev", "Pereira", "Topuria", "Jones", "Aspinall", "Edwards", "Du Plessis", "O'Malley"],
  boxing: ["Usyk", "Fury", "Canelo", "Crawford", "Inoue", "Bivol", "Beterbiev", "Joshua"],
  cricket: ["India", "Australia", "England", "Pakistan", "South Africa", "New Zealand"],
  esports: ["T1", "Gen.G", "G2", "Fnatic", "Team Liquid", "NaVi", "FaZe", "Vitality"],
  chess: ["Carlsen", "Caruana", "Nakamura", "Gukesh", "Firouzja", "Abdusattorov"],
  rugby: ["New Zealand", "South Africa", "Ireland", "France", "England", "Australia"],
}
const FIELD: Partial<Record<Kind, { readonly title: (x: string) => string; readonly event: string; readonly names: ReadonlyArray<string> }>> = {
  golf: { event: "Masters Tournament winner", title: (x) => `Will ${x} win the Masters?`, names: ["Scheffler", "McIlroy", "Schauffele", "Rahm", "Morikawa", "Aberg"] },
  motorsport: { event: "Grand Prix winner", title: (x) => `Will ${x} win the Grand Prix?`, names: ["Verstappen", "Norris", "Leclerc", "Piastri", "Hamilton", "Russell"] },
  olympics: { event: "Most gold medals at the Games", title: (x) => `Will ${x} win the most gold medals?`, names: ["USA", "China", "Japan", "Australia", "France"] },
  us_elections: { event: "Presidential nominee 2028", title: (x) => `Will ${x} be the 2028 nominee?`, names: ["Newsom", "Vance", "Shapiro", "Whitmer", "Rubio", "Buttigieg"] },
  world_politics: { event: "Next UK Prime Minister", title: (x) => `Will ${x} be the next UK Prime Minister?`, names: ["Streeting", "Badenoch", "Farage", "Rayner", "Mahmood"] },
  fed_rates: { event: "Fed decision at the next meeting", title: (x) => `Fed decision: ${x}?`, names: ["Cut 25bps", "Hold", "Hike 25bps", "Cut 50bps"] },
  entertainment: { event: "Oscar for Best Picture", title: (x) => `Will ${x} win Best Picture?`, names: ["The Brutalist", "Anora", "Conclave", "Wicked", "Dune: Part Two"] },
  tech_ai: { event: "Top AI model at month end", title: (x) => `Will ${x} have the top AI model at month end?`, names: ["OpenAI", "Google", "Anthropic", "xAI", "Meta"] },
  economic_data: { event: "CPI year over year", title: (x) => `CPI year over year ${x}?`, names: ["below 2.5%", "2.5% to 2.8%", "2.8% to 3.1%", "above 3.1%"] },
}
const SINGLE: Partial<Record<Kind, ReadonlyArray<string>>> = {
  parlay: ["Parlay: Chiefs, Lakers and Dodgers all win tonight?", "Parlay: Arsenal and Liverpool both win?"],
  other_sports: ["Will a hole-in-one be made at the Open?", "Will the America's Cup final go to a decider?"],
  us_politics: ["Will the Senate pass the budget bill this month?", "Will the President sign an executive order on AI this week?", "Will the government shut down this month?"],
  other_politics: ["Will a new party cross 10% in national polls?", "Will the mayor's recall petition qualify?"],
  bitcoin: ["Will Bitcoin close above $100,000 this week?", "Will Bitcoin reach $120,000 this month?"],
  ethereum: ["Will Ethereum close above $4,000 this week?", "Will ETH/BTC be above 0.04 at month end?"],
  solana: ["Will Solana close above $200 this week?"],
  xrp: ["Will XRP close above $3 this week?"],
  other_crypto: ["Will Dogecoin reach $1 this year?", "Will a spot SOL ETF be approved this month?"],
  stocks_indices: ["Will the S&P 500 close higher this week?", "Will the Nasdaq 100 close above 21,000 this week?"],
  companies: ["Will Apple announce a foldable iPhone this month?", "Will Tesla deliver over 450k cars this quarter?", "Will Nvidia beat earnings estimates?"],
  commodities: ["Will gold close above $3,000 this week?", "Will WTI crude close above $80 this week?"],
  fx: ["Will EUR/USD close above 1.10 this week?", "Will USD/JPY close above 150 this week?"],
  other_finance: ["Will the 10-year yield close above 4.5% this week?", "Will a major bank fail this year?"],
  weather: ["Will it snow in New York this week?", "Will a Category 4 hurricane make landfall this month?"],
  health: ["Will measles cases exceed 1,000 this year?", "Will the WHO declare a new emergency this month?"],
  other_culture: ["Will a new Pope be named this year?", "Will the Met Gala theme leak early?"],
}
const MENTION_WORDS = ["tariff", "crypto", "inflation", "China", "border", "AI", "record"]

const clampP = (p: number): number => Math.min(0.95, Math.max(0.05, p))
const code = (s: string): string => s.replace(/[^A-Za-z]/g, "").slice(0, 3).toUpperCase().padEnd(3, "X")

/** A lifetime from minutes to days, log-uniform (games are hours, futures are days). */
const lifetime = (rng: Rng, minMs: number, maxMs: number): number =>
  Math.round(Math.exp(rng.uniform(Math.log(minMs), Math.log(maxMs))) / MINUTE) * MINUTE

/** Plans a new one-off listing of the given kind for the given venue. */
export const planMarket = (rng: Rng, kind: Kind, venue: Venue): MarketPlan => {
  const category = categoryOfKind(kind)
  const tick = rng.chance(0.3) ? 1 : 10
  const teams = TEAMS[kind]
  if (teams !== undefined) return planGame(rng, kind, category, teams, venue, tick)
  const field = FIELD[kind]
  if (field !== undefined) {
    const n = rng.int(3, Math.min(5, field.names.length))
    const names = shuffle(rng, field.names).slice(0, n)
    const weights = names.map(() => rng.lognormal(0, 0.8))
    const total = weights.reduce((a, b) => a + b, 0)
    return {
      kind, category, eventTitle: field.event, exclusive: true, code: code(kind), tick,
      lifetimeMs: lifetime(rng, 2 * HOUR, 5 * DAY),
      contracts: names.map((x, i) => ({
        title: field.title(x), item: x, names: ["Yes", "No"] as const, labels: [x, x] as const,
        p0: clampP((weights[i] ?? 1) / total),
      })),
    }
  }
  if (kind === "mentions") {
    const words = shuffle(rng, MENTION_WORDS).slice(0, rng.int(2, 4))
    return {
      kind, category, eventTitle: "What will the President say at the press conference?", exclusive: false,
      code: "MEN", tick, lifetimeMs: lifetime(rng, 30 * MINUTE, 6 * HOUR),
      contracts: words.map((w) => ({
        title: `Will the President say "${w}"?`, item: w, names: ["Yes", "No"] as const, labels: [w, w] as const,
        p0: clampP(rng.uniform(0.15, 0.85)),
      })),
    }
  }
  const titles = SINGLE[kind] ?? [`Will the ${kind.replace(/_/g, " ")} question resolve Yes?`]
  const title = rng.pick(titles)
  return {
    kind, category, eventTitle: null, exclusive: false, code: code(kind), tick,
    lifetimeMs: lifetime(rng, 20 * MINUTE, 4 * DAY),
    contracts: [{ title, item: title, names: ["Yes", "No"], labels: ["Yes", "No"], p0: clampP(rng.uniform(0.1, 0.9)) }],
  }
}

/** A game: two sides (three contracts with a draw on soccer elsewhere). venue_b names the teams. */
const planGame = (
  rng: Rng, kind: Kind, category: Category, teams: ReadonlyArray<string>, venue: Venue, tick: number,
): MarketPlan => {
  const [home, away] = shuffle(rng, teams) as [string, string]
  const title = `${home} vs ${away}`
  const pHome = clampP(rng.uniform(0.25, 0.75))
  const lifetimeMs = lifetime(rng, 40 * MINUTE, 30 * HOUR)
  const base = { kind, category, code: code(home) + code(away), tick, lifetimeMs }
  if (venue === "venue_b") {
    // Polymarket game events: a moneyline with the teams as outcomes, often a total alongside.
    const moneyline: PlanContract = { title, item: "Moneyline", names: [home, away], labels: [home, away], p0: pHome }
    if (rng.chance(0.5)) return { ...base, eventTitle: null, exclusive: false, contracts: [moneyline] }
    const line = `${rng.int(150, 230)}.5`
    return {
      ...base, eventTitle: title, exclusive: false,
      contracts: [moneyline, { title: `${title}: O/U ${line}`, item: `O/U ${line}`, names: ["Over", "Under"], labels: ["Over", "Under"], p0: 0.5 }],
    }
  }
  if (venue === "venue_b_us") {
    return { ...base, eventTitle: null, exclusive: false, contracts: [{ title, item: title, names: ["Yes", "No"], labels: [home, away], p0: pHome }] }
  }
  // Kalshi: one contract per side of the game, exactly one wins.
  const sides = kind === "soccer" ? [home, "Tie", away] : [home, away]
  const ps = kind === "soccer" ? [pHome * 0.75, 0.25, (1 - pHome) * 0.75] : [pHome, 1 - pHome]
  return {
    ...base, eventTitle: `${title} winner?`, exclusive: true,
    contracts: sides.map((side, i) => ({
      title: side === "Tie" ? `${title}: tie?` : `Will ${side} win ${title}?`, item: side,
      names: ["Yes", "No"] as const, labels: [side, side] as const, p0: clampP(ps[i] ?? 0.5),
    })),
  }
}

export const shuffle = <T>(rng: Rng, items: ReadonlyArray<T>): Array<T> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    const t = out[i] as T
    out[i] = out[j] as T
    out[j] = t
  }
  return out
}

/** A market series that reopens on a clock; each window is a fresh listing that settles yes/no. */
export interface SeriesSpec {
  /** Series id: a slug prefix on Polymarket venues, a series ticker on Kalshi venues. */
  readonly id: string
  readonly venue: Venue
  readonly kind: Kind
  readonly periodMs: number
  readonly plan: (rng: Rng, windowStart: number) => MarketPlan
}

const upDown = (asset: string, kind: Kind, periodMs: number) => (rng: Rng, windowStart: number): MarketPlan => {
  const label = periodMs >= HOUR ? `${periodMs / HOUR}h` : `${periodMs / MINUTE}m`
  const at = new Date(windowStart).toISOString().slice(11, 16)
  return {
    kind, category: categoryOfKind(kind), eventTitle: null, exclusive: false, code: code(asset), tick: 10,
    lifetimeMs: periodMs,
    contracts: [{
      title: `${asset} Up or Down ${label} from ${at} UTC`, item: "Up", names: ["Up", "Down"], labels: ["Up", "Down"],
      p0: clampP(0.5 + rng.uniform(-0.03, 0.03)),
    }],
  }
}

const range = (title: string, kind: Kind, buckets: ReadonlyArray<string>, periodMs: number) =>
  (rng: Rng, windowStart: number): MarketPlan => {
    const day = new Date(windowStart).toISOString().slice(0, periodMs >= DAY ? 10 : 13).replace("T", " ")
    const weights = buckets.map(() => rng.lognormal(0, 0.6))
    const total = weights.reduce((a, b) => a + b, 0)
    return {
      kind, category: categoryOfKind(kind), eventTitle: `${title} ${day}`, exclusive: true, code: code(title),
      tick: 10, lifetimeMs: periodMs,
      contracts: buckets.map((b, i) => ({
        title: `${title} ${day}: ${b}?`, item: b, names: ["Yes", "No"] as const, labels: [b, b] as const,
        p0: clampP((weights[i] ?? 1) / total),
      })),
    }
  }

export const SERIES: ReadonlyArray<SeriesSpec> = [
  { id: "btc-updown-15m", venue: "venue_b", kind: "bitcoin", periodMs: 15 * MINUTE, plan: upDown("Bitcoin", "bitcoin", 15 * MINUTE) },
  { id: "eth-updown-15m", venue: "venue_b", kind: "ethereum", periodMs: 15 * MINUTE, plan: upDown("Ethereum", "ethereum", 15 * MINUTE) },
  { id: "sol-updown-1h", venue: "venue_b", kind: "solana", periodMs: HOUR, plan: upDown("Solana", "solana", HOUR) },
  { id: "xrp-updown-1h", venue: "venue_b", kind: "xrp", periodMs: HOUR, plan: upDown("XRP", "xrp", HOUR) },
  { id: "KXBTC15M", venue: "venue_a", kind: "bitcoin", periodMs: 15 * MINUTE, plan: upDown("BTC", "bitcoin", 15 * MINUTE) },
  { id: "KXETHH", venue: "venue_a", kind: "ethereum", periodMs: HOUR, plan: upDown("ETH", "ethereum", HOUR) },
  { id: "KXHIGHNY", venue: "venue_a", kind: "weather", periodMs: DAY, plan: range("Highest temperature in NYC", "weather", ["below 60°", "60° to 64°", "65° to 69°", "70° or above"], DAY) },
  { id: "KXBTCD", venue: "venue_d", kind: "bitcoin", periodMs: HOUR, plan: range("Bitcoin price at the hour", "bitcoin", ["below $98,000", "$98,000 to $101,999", "$102,000 or above"], HOUR) },
  { id: "KXINXD", venue: "venue_d", kind: "stocks_indices", periodMs: DAY, plan: upDown("S&P 500", "stocks_indices", DAY) },
  { id: "nasdaq-up-or-down", venue: "venue_b_us", kind: "stocks_indices", periodMs: DAY, plan: upDown("Nasdaq 100", "stocks_indices", DAY) },
]

