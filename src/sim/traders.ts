// The simulated trader population of each venue: identity (handles on venue_a; wallets with a
// name, a pseudonym or nothing on venue_b; anonymous elsewhere), size scale (small to whale) and
// skill (a minority informed). Drawn once from the seed; pure.
import { VENUES, type Venue } from "../domain/enums.js"
import type { Rng } from "./random.js"

export interface SimTrader {
  readonly venue: Venue
  /** Venue-native id: handle on venue_a, proxy wallet on venue_b, an internal id elsewhere. */
  readonly id: string
  /** Public name (venue_b username, venue_a handle); never a wallet address. */
  readonly name: string | null
  /** venue_b auto pseudonym ("Ultimate-Precedence"), else null. */
  readonly pseudonym: string | null
  /** Informed traders know the eventual result on a share `accuracy` of their trades; the rest never do. */
  readonly informed: boolean
  readonly accuracy: number
  /** Median trade in dollars; whales have medians in the thousands. */
  readonly medianUsd: number
  /** Relative trading frequency. */
  readonly activity: number
}

const ADJECTIVES = ["quiet", "bold", "lucky", "sharp", "rapid", "deep", "golden", "silent", "iron", "cosmic", "wild", "steady", "clever", "dark", "bright"]
const NOUNS = ["whale", "otter", "falcon", "trader", "oracle", "shark", "fox", "owl", "bull", "bear", "tiger", "wolf", "comet", "raven", "maven"]
const PSEUDO_A = ["Ultimate", "Brisk", "Frayed", "Gentle", "Hollow", "Mellow", "Rustic", "Vivid", "Sunny", "Nimble"]
const PSEUDO_B = ["Precedence", "Harbor", "Lantern", "Meadow", "Summit", "Canyon", "Orchard", "Compass", "Thicket", "Pebble"]

const POPULATION: Record<Venue, number> = { venue_a: 240, venue_b: 320, venue_b_us: 150, venue_d: 150 }

/** Share of informed traders and of whales in every population. */
export const INFORMED_SHARE = 0.15
export const WHALE_SHARE = 0.12

const handleOf = (rng: Rng, taken: Set<string>): string => {
  for (;;) {
    const style = rng.int(0, 2)
    const a = rng.pick(ADJECTIVES)
    const n = rng.pick(NOUNS)
    const h = style === 0 ? `${a}_${n}${rng.int(1, 999)}` : style === 1 ? `${a}${n[0]?.toUpperCase()}${n.slice(1)}` : `${n}${rng.int(10, 9999)}`
    if (!taken.has(h)) {
      taken.add(h)
      return h
    }
  }
}

export const drawTraders = (rng: Rng): ReadonlyMap<Venue, ReadonlyArray<SimTrader>> => {
  const out = new Map<Venue, ReadonlyArray<SimTrader>>()
  for (const venue of VENUES) {
    const taken = new Set<string>()
    const list: Array<SimTrader> = []
    for (let i = 0; i < POPULATION[venue]; i++) {
      const informed = rng.chance(INFORMED_SHARE)
      const whale = rng.chance(WHALE_SHARE)
      const medianUsd = whale ? rng.lognormal(Math.log(9000), 0.6) : rng.lognormal(Math.log(150), 0.9)
      const common = {
        venue, informed, accuracy: informed ? rng.uniform(0.35, 0.7) : 0, medianUsd,
        activity: rng.lognormal(0, 0.8),
      }
      if (venue === "venue_a") {
        const handle = handleOf(rng, taken)
        list.push({ ...common, id: handle, name: handle, pseudonym: null })
      } else if (venue === "venue_b") {
        const wallet = `0x${rng.hex(40)}`
        const style = rng.next()
        const name = style < 0.6 ? handleOf(rng, taken) : null
        const pseudonym = style < 0.88 ? `${rng.pick(PSEUDO_A)}-${rng.pick(PSEUDO_B)}` : null
        list.push({ ...common, id: wallet, name, pseudonym })
      } else {
        list.push({ ...common, id: `${venue}-t${i + 1}`, name: null, pseudonym: null })
      }
    }
    out.set(venue, list)
  }
  return out
}
