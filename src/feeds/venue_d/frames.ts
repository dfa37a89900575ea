// venue_d wire frames: Kalshi WebSocket v2 exactly (all three payload generations,
// ../kalshi/frames.ts); trades name no trader.
export * from "../kalshi/frames.js"
