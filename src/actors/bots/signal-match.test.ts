import { describe, expect, it } from "vitest"
import type { TraderRef } from "../../domain/refs.js"
import type { Signal } from "../../domain/signal.js"
import { matchesSignal, signalName, stakeOf } from "./signal-match.js"

const trade = {
  action: "buy" as const, whale: true, trader: "venue_a:alice", venue: "venue_a" as const, category: "crypto" as const,
  usd: 30_000, price: 0.4, entry: "open" as const, title: "Bitcoin above 100k?",
}
const sig = (s: Partial<Signal>): Signal => ({ entry: "all", ...s }) as Signal

describe("signal matching", () => {
  it("applies every condition, buys only, whales unless traders are named", () => {
    expect(matchesSignal(sig({}), trade)).toBe(true)
    expect(matchesSignal(sig({}), { ...trade, action: "sell" })).toBe(false)
    expect(matchesSignal(sig({}), { ...trade, whale: false })).toBe(false)
    expect(matchesSignal(sig({ traders: ["venue_a:alice" as never] }), { ...trade, whale: false })).toBe(true)
    expect(matchesSignal(sig({ venue: ["venue_b"] }), trade)).toBe(false)
    expect(matchesSignal(sig({ category: ["crypto"] }), { ...trade, category: null })).toBe(false)
    expect(matchesSignal(sig({ minUsd: 30_000, maxUsd: 30_000 }), trade)).toBe(true)
    expect(matchesSignal(sig({ priceMin: 0.41 }), trade)).toBe(false)
    expect(matchesSignal(sig({ entry: "add" }), trade)).toBe(false)
    expect(matchesSignal(sig({ entry: "open" }), { ...trade, entry: null })).toBe(false)
    expect(matchesSignal(sig({ keywords: ["BITCOIN", "eth"] }), trade)).toBe(true)
    expect(matchesSignal(sig({ keywords: ["eth"] }), trade)).toBe(false)
  })

  it("stakes and names", () => {
    expect(stakeOf({ usd: 100 }, 5_000)).toBe(100)
    expect(stakeOf({ percent: 1, maxUsd: 150 }, 50_000)).toBe(150)
    expect(signalName(sig({ category: ["crypto"], minUsd: 25_000 }))).toBe("Whale buys: crypto, ≥ $25k")
    expect(signalName(sig({}))).toBe("Whale buys: all")
    expect([...signalName(sig({ keywords: Array.from({ length: 10 }, (_, i) => `keyword-number-${i}`) }))].length).toBeLessThanOrEqual(60)
  })

  it("names one trader by handle, a wallet shortened as a trader bot's name is (never the whole address)", () => {
    const wallet = "venue_b:0x7a2b2c03eb766b4f0656cc3a981d29c901f82810" as TraderRef
    expect(signalName(sig({ traders: [wallet], venue: ["venue_b"] }))).toBe("Buys by 0x7a2b…2810: venue_b")
    expect(signalName(sig({ traders: ["venue_a:whale_fox" as TraderRef] }))).toBe("Buys by whale_fox: all")
    expect(signalName(sig({ traders: [wallet, "venue_a:whale_fox" as TraderRef] }))).toBe("Buys by 2 traders: all")
  })
})
