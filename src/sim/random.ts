// The simulator's one source of chance: a seeded sfc32 generator. Every random draw in the market
// model comes from here, so one SIM_SEED and one sequence of steps always give the same frames.
// Never Math.random, never the wall clock.

const HEX = "0123456789abcdef"

export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    // splitmix32 spreads the seed over the four words so nearby seeds diverge immediately.
    let s = seed >>> 0
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    for (let i = 0; i < 12; i++) this.uint32()
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0
    this.c = (this.c + t) >>> 0
    return t
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296
  }

  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next()
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: ReadonlyArray<T>): T {
    if (items.length === 0) throw new RangeError("pick from an empty list")
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Index drawn with the given non-negative weights. */
  weighted(weights: ReadonlyArray<number>): number {
    let total = 0
    for (const w of weights) total += w
    let x = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i] ?? 0
      if (x < 0) return i
    }
    return weights.length - 1
  }

  /** Standard normal (Box-Muller; one value per call keeps the stream simple to reason about). */
  normal(): number {
    const u = 1 - this.next()
    const v = this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  lognormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal())
  }

  /** Pareto with scale xm and shape alpha (heavy tail for small alpha). */
  pareto(xm: number, alpha: number): number {
    return xm / Math.pow(1 - this.next(), 1 / alpha)
  }

  /** Exponential waiting time with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean
  }

  hex(length: number): string {
    let out = ""
    while (out.length < length) out += this.uint32().toString(16).padStart(8, "0")
    return out.slice(0, length)
  }

  /** A decimal string of `length` digits with no leading zero (token ids, numeric ids). */
  digits(length: number): string {
    const out: Array<number> = [this.int(1, 9)]
    for (let i = 1; i < length; i++) out.push(this.int(0, 9))
    return out.join("")
  }

  /** A version-4-shaped uuid from this stream. */
  uuid(): string {
    const h = this.hex(32)
    const variant = HEX[8 + (this.uint32() & 3)] ?? "8"
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
  }
}
