// venue_a wire frames: Kalshi WebSocket v2 (all three payload generations, ../kalshi/frames.ts),
// plus one whalewatch convention: trade frames name the taker in `msg.taker_handle` (the real
// Kalshi feed names no trader). This file only names venue_a's view of the shared shapes.
export * from "../kalshi/frames.js"

/** The `msg` field of a venue_a `trade` frame that carries the taker's public handle. */
export const VENUE_A_TRADER_FIELD = "taker_handle"
