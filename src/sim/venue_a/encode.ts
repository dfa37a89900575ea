// venue_a encoder (mirror of feeds/venue_a/decode.ts): the Kalshi-family encoder, naming the taker
// of every trade in `taker_handle` (see ../kalshi/encode.ts).
import { makeKalshiEncoder } from "../kalshi/encode.js"

export const encodeVenueA = makeKalshiEncoder({ namesTraders: true })
