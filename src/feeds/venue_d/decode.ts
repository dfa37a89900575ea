// venue_d decoder: the Kalshi-family decoder with venue_d's id and no trader identity (a
// `taker_handle` field, if one ever appears, is ignored). Pure and total; see ../kalshi/decode.ts.
import type { Decoded } from "../../domain/feed-events.js"
import { makeKalshiDecoder } from "../kalshi/decode.js"

const decode = makeKalshiDecoder({ venue: "venue_d", traderField: null })

/** Decodes frame text (`string`) or an already-parsed JSON value. */
export const decodeVenueD = (frame: unknown, receivedAt: number): Decoded => decode(frame, receivedAt)
