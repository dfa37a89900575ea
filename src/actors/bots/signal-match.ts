// Which live trades a signal bot copies, what a copy stakes, and the one-line names and summaries of
// bots. Pure; the registry uses `passesSignal` (a prepared `matchesSignal`) to pick the bots an IntelBus
// trade goes to.
//
// Rules (spec: Signal object; README "Paper bots"):
// - Buys only. Without `traders`: whale trades only. With `traders`: those traders' buys of any size.
// - `venue`, `category` (the market's stored category; an unclassified market never matches a category
//   filter), `minUsd`..`maxUsd`, `priceMin`..`priceMax` (price paid), every bound inclusive.
// - `entry`: `open` = the trade's entry is `open`; `add` = it is `add`; a trade whose entry the venue does
//   not say (null) matches only `all`.
// - `keywords`: the market title contains any, case-insensitive.
import { MAX_BOT_NAME } from "../../domain/limits.js"
import { handleLabel } from "../../domain/refs.js"
import type { Signal, Sizing } from "../../domain/signal.js"
import type { StoredTrade } from "../../intel/pipeline.js"

export type MatchTrade = Pick<StoredTrade, "action" | "whale" | "trader" | "venue" | "category" | "usd" | "price" | "entry" | "title">

export const matchesSignal = (signal: Signal, t: MatchTrade): boolean => passesSignal(prepareSignal(signal), t, t.title.toLowerCase())

/**
 * A signal ready to test many trades, every field present (one object shape for every signal): absent
 * bounds are infinite, absent or empty lists null, keywords lower-cased once.
 */
export interface PreparedSignal {
  readonly traders: ReadonlyArray<string> | null
  readonly venues: ReadonlyArray<string> | null
  readonly categories: ReadonlyArray<string> | null
  readonly minUsd: number
  readonly maxUsd: number
  readonly priceMin: number
  readonly priceMax: number
  readonly entry: Signal["entry"]
  readonly keywords: ReadonlyArray<string> | null
}

const listOrNull = <A>(xs: ReadonlyArray<A> | undefined): ReadonlyArray<A> | null => (xs === undefined || xs.length === 0 ? null : xs)

export const prepareSignal = (signal: Signal): PreparedSignal => ({
  traders: signal.traders === undefined ? null : signal.traders,
  venues: listOrNull(signal.venue),
  categories: listOrNull(signal.category),
  minUsd: signal.minUsd ?? Number.NEGATIVE_INFINITY,
  maxUsd: signal.maxUsd ?? Number.POSITIVE_INFINITY,
  priceMin: signal.priceMin ?? Number.NEGATIVE_INFINITY,
  priceMax: signal.priceMax ?? Number.POSITIVE_INFINITY,
  entry: signal.entry,
  keywords: signal.keywords === undefined || signal.keywords.length === 0 ? null : signal.keywords.map((k) => k.toLowerCase()),
})

/** `matchesSignal` with the trade's title lower-cased by the caller (once per trade, for every signal). */
export const passesSignal = (s: PreparedSignal, t: MatchTrade, lowerTitle: string): boolean => {
  if (t.action !== "buy") return false
  if (s.traders !== null) {
    if (t.trader === null || !s.traders.includes(t.trader)) return false
  } else if (!t.whale) return false
  if (s.venues !== null && !s.venues.includes(t.venue)) return false
  if (s.categories !== null && (t.category === null || !s.categories.includes(t.category))) return false
  // Written so that a NaN in the trade passes an absent bound, as an absent bound is not tested.
  if (t.usd < s.minUsd || t.usd > s.maxUsd || t.price < s.priceMin || t.price > s.priceMax) return false
  if (s.entry !== "all" && t.entry !== s.entry) return false
  const keywords = s.keywords
  if (keywords === null) return true
  for (const k of keywords) if (lowerTitle.includes(k)) return true
  return false
}

/** Dollars one copy stakes: the fixed `usd`, or `percent` of the source trade capped at `maxUsd`. */
export const stakeOf = (sizing: Sizing, sourceUsd: number): number =>
  "usd" in sizing ? sizing.usd : Math.min((sourceUsd * sizing.percent) / 100, sizing.maxUsd)

const money = (usd: number): string =>
  usd >= 1_000_000 && usd % 100_000 === 0 ? `$${usd / 1_000_000}m`
  : usd >= 1_000 && usd % 100 === 0 ? `$${usd / 1_000}k`
  : `$${usd.toLocaleString("en-US")}`

/**
 * A name the service gives a bot (a trader's, a market's or series', a signal's), held to the bot-name bound:
 * past 60 characters (code points) it is cut to 59 and an ellipsis.
 */
export const botName = (text: string): string =>
  [...text].length <= MAX_BOT_NAME ? text : `${[...text].slice(0, MAX_BOT_NAME - 1).join("")}…`

/** "Whale buys: crypto, ≥ $25k" — a signal in a few words, at most 60 characters. */
export const signalName = (s: Signal): string => {
  const parts: Array<string> = []
  if (s.category !== undefined && s.category.length > 0) parts.push(s.category.join(", "))
  if (s.venue !== undefined && s.venue.length > 0) parts.push(s.venue.join(", "))
  if (s.minUsd !== undefined && s.maxUsd !== undefined) parts.push(`${money(s.minUsd)}–${money(s.maxUsd)}`)
  else if (s.minUsd !== undefined) parts.push(`≥ ${money(s.minUsd)}`)
  else if (s.maxUsd !== undefined) parts.push(`≤ ${money(s.maxUsd)}`)
  if (s.priceMin !== undefined || s.priceMax !== undefined) parts.push(`price ${s.priceMin ?? 0}–${s.priceMax ?? 1}`)
  if (s.entry === "open") parts.push("new positions")
  if (s.entry === "add") parts.push("adds")
  if (s.keywords !== undefined && s.keywords.length > 0) parts.push(`“${s.keywords.join("”, “")}”`)
  // One trader is named by its handle, a wallet shortened as a trader bot's name is (never given out whole).
  const one = s.traders?.length === 1 ? (s.traders[0] as string) : undefined
  const head = s.traders === undefined ? "Whale buys"
    : one !== undefined ? `Buys by ${handleLabel(one.slice(one.indexOf(":") + 1))}`
    : `Buys by ${s.traders.length} traders`
  return botName(parts.length === 0 ? `${head}: all` : `${head}: ${parts.join(", ")}`)
}

export const sizingText = (sizing: Sizing): string =>
  "usd" in sizing ? `${money(sizing.usd)} a trade` : `${sizing.percent}% of each trade, at most ${money(sizing.maxUsd)}`
