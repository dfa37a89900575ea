// What an encoder hands the server: one wire frame, the channel it travels on and the keys a
// subscription filters by. Plus the small helpers every encoder shares (a stable book hash).

export interface Encoded<F = unknown> {
  /** Channel or stream: venue_b "market" | "trades"; Kalshi channel names; venue_b_us "market". */
  readonly channel: string
  /** Venue-native contract id the frame is about (condition id, ticker, slug). */
  readonly contract: string
  /** The one outcome id the frame is about, when it is about one (venue_b token frames). */
  readonly asset?: string
  readonly frame: F
}

/** A 40-hex digest (FNV-1a in five lanes): stable across runs, used where the venue sends a book hash. */
export const digest40 = (text: string): string => {
  let out = ""
  for (let lane = 0; lane < 5; lane++) {
    let h = (0x811c9dc5 ^ Math.imul(lane + 1, 0x9e3779b1)) >>> 0
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
    out += h.toString(16).padStart(8, "0")
  }
  return out
}
