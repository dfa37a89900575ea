// References of the spec: trader ref `<venue>:<handle>` (naming venues only), market ref (opaque),
// bot id `trader:|signal:|market:<id>`. Branded, so a string must be decoded before it is used as one.
import { Schema } from "effect"

/** A wallet address as a handle (venue_b): hex, so any letter case names the same wallet. */
const WALLET = /^0x[0-9a-fA-F]{40}$/

/** A venue_b wallet in lower case, as the venue's data API writes it (a checksummed address mixes cases). */
export const canonicalHandle = (venue: string, handle: string): string =>
  venue === "venue_b" && WALLET.test(handle) ? handle.toLowerCase() : handle

/**
 * What to call a trader with no public name: its handle, but a wallet shortened (`0xa0f2…1848`), since a
 * wallet address is never given out as a name (spec: Trader summary).
 */
export const handleLabel = (handle: string): string =>
  WALLET.test(handle) ? `${handle.slice(0, 6)}…${handle.slice(-4)}` : handle

/** `<venue>:<handle>` with the handle made canonical (see `canonicalHandle`). */
export const canonicalTraderRef = (ref: string): string => {
  const at = ref.indexOf(":")
  return at < 0 ? ref : `${ref.slice(0, at)}:${canonicalHandle(ref.slice(0, at), ref.slice(at + 1))}`
}

const TraderRefText = Schema.String.pipe(
  Schema.pattern(/^(venue_a|venue_b):[^\s]{1,128}$/, {
    message: () => "must be a trader ref `<venue>:<handle>` on venue_a or venue_b",
  }),
)

export const TraderRef = Schema.transform(TraderRefText, TraderRefText, {
  strict: true, decode: canonicalTraderRef, encode: (ref) => ref,
}).pipe(Schema.brand("TraderRef"))
export type TraderRef = typeof TraderRef.Type

export const traderRefOf = (venue: "venue_a" | "venue_b", handle: string): TraderRef =>
  `${venue}:${handle}` as TraderRef

export const splitTraderRef = (ref: TraderRef): { venue: "venue_a" | "venue_b"; handle: string } => {
  const at = ref.indexOf(":")
  return { venue: ref.slice(0, at) as "venue_a" | "venue_b", handle: ref.slice(at + 1) }
}

/** Opaque to clients; we form it as `<venue>:<venue id>` (contracts) or `<venue>:event:<id>` (events). */
export const MarketRef = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be a market ref" }),
  Schema.maxLength(300, { message: () => "must be a market ref of at most 300 characters" }),
  Schema.brand("MarketRef"),
)
export type MarketRef = typeof MarketRef.Type

export const BotKind = Schema.Literal("trader", "signal", "market")
export type BotKind = typeof BotKind.Type

export const BotId = Schema.String.pipe(
  Schema.pattern(/^(trader|signal|market):[A-Za-z0-9_-]{1,64}$/, {
    message: () => "must be a bot id `trader:<id>`, `signal:<id>` or `market:<id>`",
  }),
  Schema.brand("BotId"),
)
export type BotId = typeof BotId.Type

export const botKindOf = (id: BotId): BotKind => id.slice(0, id.indexOf(":")) as BotKind
