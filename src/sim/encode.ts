// Which encoder speaks for which venue: every model event belongs to one venue's contract and is
// turned into that venue's frames by its `sim/<venue>/encode.ts`.
import type { Venue } from "../domain/enums.js"
import type { Encoded } from "./encoded.js"
import type { ModelEvent } from "./types.js"
import { encodeVenueA } from "./venue_a/encode.js"
import { encodeVenueB } from "./venue_b/encode.js"
import { encodeVenueBUs } from "./venue_b_us/encode.js"
import { encodeVenueD } from "./venue_d/encode.js"

export type Encoder = (event: ModelEvent) => ReadonlyArray<Encoded>

const ENCODERS: Record<Venue, Encoder> = {
  venue_a: encodeVenueA,
  venue_b: encodeVenueB,
  venue_b_us: encodeVenueBUs,
  venue_d: encodeVenueD,
}

export const encoderOf = (venue: Venue): Encoder => ENCODERS[venue]

export const encode = (event: ModelEvent): ReadonlyArray<Encoded> => ENCODERS[event.contract.venue](event)
