// venue_a decoder: the Kalshi-family decoder with venue_a's id and its trader handle
// (`msg.taker_handle` on trades). Pure and total; see ../kalshi/decode.ts.
import type { Decoded } from "../../domain/feed-events.js"
import { makeKalshiDecoder } from "../kalshi/decode.js"
import { VENUE_A_TRADER_FIELD } from "./frames.js"

const decode = makeKalshiDecoder({ venue: "venue_a", traderField: VENUE_A_TRADER_FIELD })

/** Decodes frame text (`string`) or an already-parsed JSON value. */
export const decodeVenueA = (frame: unknown, receivedAt: number): Decoded => decode(frame, receivedAt)
