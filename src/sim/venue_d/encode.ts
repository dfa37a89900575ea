// venue_d encoder (mirror of feeds/venue_d/decode.ts): the Kalshi-family encoder; trades name no
// trader (see ../kalshi/encode.ts).
import { makeKalshiEncoder } from "../kalshi/encode.js"

export const encodeVenueD = makeKalshiEncoder({ namesTraders: false })
