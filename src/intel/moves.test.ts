import { describe, expect, it } from "vitest"
import { intelConfig, MINUTE_MS } from "./config.js"
import { detectMoves, MoveDetector, type DetectOptions, type PricePoint, type WhaleBuy } from "./moves.js"

const at = (minute: number, price: number): PricePoint => ({ time: minute * MINUTE_MS, price })
let seq = 0
const whaleBuy = (minute: number, whale: string, outcome = "Yes", usd = 20_000): WhaleBuy =>
  ({ id: `b${++seq}`, time: minute * MINUTE_MS, outcome, whale, usd })
const late = { asOf: 10_000 * MINUTE_MS }
const onlyMoves = (points: ReadonlyArray<PricePoint>, options: DetectOptions = late) =>
  detectMoves("m", points, [], options).filter((m) => m.type === "move")

describe("move", () => {
  it("10 points within 15 minutes, held 5 minutes, is recorded at the end of the hold", () => {
    const moves = onlyMoves([at(0, 0.4), at(10, 0.45), at(12, 0.52), at(15, 0.55)])
    expect(moves).toHaveLength(1)
    expect(moves[0]).toMatchObject({
      type: "move", outcome: "Yes", time: 17 * MINUTE_MS, priceBefore: 0.4, priceAfter: 0.55, minutes: 12,
      traders: null, usd: null, startedAt: 0, reachedAt: 12 * MINUTE_MS,
    })
  })

  it("a drop counts too", () => {
    const moves = detectMoves("m", [at(0, 0.7), at(5, 0.6)], [], late)
    expect(moves[0]).toMatchObject({ type: "move", priceBefore: 0.7, priceAfter: 0.6, minutes: 5 })
  })

  it("a move that gives back part of its gain inside the hold is not recorded", () => {
    expect(detectMoves("m", [at(0, 0.4), at(5, 0.5), at(8, 0.45)], [], late)).toEqual([])
  })

  it("a change slower than 15 minutes is not a move", () => {
    expect(onlyMoves([at(0, 0.4), at(8, 0.45), at(16, 0.47), at(24, 0.5)])).toEqual([])
    // Exactly 15 minutes from the price in effect then is.
    expect(onlyMoves([at(0, 0.4), at(8, 0.45), at(16, 0.5)])[0]).toMatchObject({ minutes: 15, startedAt: MINUTE_MS })
  })

  it("measures from the price in effect at the start of the window", () => {
    const moves = detectMoves("m", [at(0, 0.4), at(30, 0.55)], [], late)
    expect(moves[0]).toMatchObject({ priceBefore: 0.4, minutes: 15, startedAt: 15 * MINUTE_MS })
  })

  it("is recorded only once the hold has fully passed", () => {
    const points = [at(0, 0.4), at(5, 0.5)]
    expect(detectMoves("m", points, [], { asOf: 10 * MINUTE_MS })).toEqual([])
    expect(detectMoves("m", points, [], { asOf: 10 * MINUTE_MS + 1 })).toHaveLength(1)
  })

  it("breaking the hold at its last instant cancels the move", () => {
    expect(detectMoves("m", [at(0, 0.4), at(5, 0.5), at(10, 0.45)], [], late)).toEqual([])
  })

  it("the next move is measured from the end of the last one", () => {
    const moves = onlyMoves([at(0, 0.3), at(2, 0.4), at(10, 0.45), at(12, 0.52)])
    expect(moves.map((m) => [m.priceBefore, m.priceAfter])).toEqual([[0.3, 0.4], [0.4, 0.52]])
  })

  it("thresholds come from the config", () => {
    const config = intelConfig({ move: { minPoints: 20 } })
    expect(onlyMoves([at(0, 0.4), at(5, 0.55)], { ...late, config })).toEqual([])
    expect(onlyMoves([at(0, 0.4), at(5, 0.6)], { ...late, config })).toHaveLength(1)
  })

  // Shrunk counterexample: a point replaced within its millisecond was never in effect.
  it("a point replaced in the same millisecond does not break the hold", () => {
    const moves = detectMoves("m", [at(0, 0), at(1, 0), at(1, 0.1), at(2, 0), at(2, 0.1)], [], late)
    expect(moves).toHaveLength(1)
    expect(moves[0]).toMatchObject({ priceBefore: 0, priceAfter: 0.1, reachedAt: MINUTE_MS })
  })
})

describe("flip", () => {
  it("Yes crossing 0.5 and holding 5 minutes makes Yes the favourite", () => {
    const moves = detectMoves("m", [at(0, 0.46), at(3, 0.53)], [], late).filter((m) => m.type === "flip")
    expect(moves).toHaveLength(1)
    expect(moves[0]).toMatchObject({ outcome: "Yes", time: 8 * MINUTE_MS, priceBefore: null, priceAfter: 0.53, minutes: null })
  })

  it("names the side by the market's outcome names; a move row's outcome is `Yes` on every venue (spec: Move row)", () => {
    const sides = { yes: "Lakers", no: "Celtics" }
    const moves = detectMoves("m", [at(0, 0.6), at(3, 0.4)], [], { ...late, sides })
    expect(moves.find((m) => m.type === "flip")?.outcome).toBe("Celtics")
    const move = moves.find((m) => m.type === "move")
    expect(move?.outcome).toBe("Yes")
    // Its id is still made from the side's own name (ids of stored moves did not change).
    expect(move?.id).toBe(detectMoves("m", [at(0, 0.6), at(3, 0.4)], [], { ...late, sides }).find((m) => m.type === "move")?.id)
    expect(move?.id).not.toBe(detectMoves("m", [at(0, 0.6), at(3, 0.4)], [], late).find((m) => m.type === "move")?.id)
  })

  it("a crossing that falls back within the hold is no flip", () => {
    expect(detectMoves("m", [at(0, 0.48), at(3, 0.52), at(5, 0.49)], [], late)).toEqual([])
  })

  // Shrunk counterexample: the first favourite is the price in effect, not a point replaced in its millisecond.
  it("the first favourite is no flip, even when set twice in one millisecond", () => {
    expect(detectMoves("m", [at(0, 0.51), at(0, 0)], [], late).filter((m) => m.type === "flip")).toEqual([])
  })

  // Shrunk counterexample: a failed crossing, a tie, then a crossing that holds.
  it("after a failed crossing and a tie at 0.5, a held crossing flips", () => {
    const flips = detectMoves("m", [at(0, 0), at(1, 0.51), at(2, 0.5), at(3, 0.51)], [], late).filter((m) => m.type === "flip")
    expect(flips.map((f) => [f.outcome, f.time])).toEqual([["Yes", 8 * MINUTE_MS]])
  })
})

describe("whales", () => {
  it("three distinct whales buying one side within 15 minutes", () => {
    const moves = detectMoves("m", [at(0, 0.3)], [whaleBuy(1, "w1"), whaleBuy(9, "w2"), whaleBuy(16, "w3", "Yes", 5_000)], late)
    expect(moves).toHaveLength(1)
    expect(moves[0]).toMatchObject({
      type: "whales", outcome: "Yes", time: 16 * MINUTE_MS, traders: 3, usd: 45_000, priceBefore: null, priceAfter: 0.3, minutes: null,
    })
  })

  it("one whale buying three times is one whale", () => {
    expect(detectMoves("m", [], [whaleBuy(1, "w1"), whaleBuy(2, "w1"), whaleBuy(3, "w1")], late)).toEqual([])
  })

  it("buys more than 15 minutes apart do not add up; nor do buys of different sides", () => {
    expect(detectMoves("m", [], [whaleBuy(0, "w1"), whaleBuy(10, "w2"), whaleBuy(16, "w3")], late)).toEqual([])
    expect(detectMoves("m", [], [whaleBuy(0, "w1"), whaleBuy(1, "w2", "No"), whaleBuy(2, "w3")], late)).toEqual([])
  })

  it("each buy counts toward one whales move; no price yet gives a null priceAfter", () => {
    const moves = detectMoves("m", [], [whaleBuy(0, "w1"), whaleBuy(1, "w2"), whaleBuy(2, "w3"), whaleBuy(3, "w4")], late)
    expect(moves).toHaveLength(1)
    expect(moves[0]?.priceAfter).toBeNull()
  })
})

describe("MoveDetector", () => {
  it("ignores events older than its clock and gives stable ids", () => {
    const detector = new MoveDetector("m")
    detector.price(at(10, 0.4))
    expect(detector.price(at(5, 0.9))).toEqual([])
    const first = detectMoves("m", [at(0, 0.4), at(5, 0.5)], [], late)
    const again = detectMoves("m", [at(0, 0.4), at(5, 0.5)], [], late)
    expect(first.map((m) => m.id)).toEqual(again.map((m) => m.id))
  })
})
