import { describe, expect, it } from "vitest"
import { aSignalBot, aTraderBot } from "../../../test/bots/builders.js"
import { VENUES } from "../../domain/enums.js"
import type { TraderRef } from "../../domain/refs.js"
import { settingsOf, summaryOf, venuesOf } from "./view.js"

describe("summaryOf", () => {
  it("names a trader by its public name, else by its handle with a wallet shortened (never given out whole)", () => {
    expect(summaryOf(aTraderBot())).toBe("Copies ALICE's buys at $100 a trade")
    const wallet = aTraderBot({ trader: "venue_b:0x893a1c9d3e6f2b7a8c4d5e6f7a8b9c0d1e2f3919" })
    const unnamed = { ...wallet, settings: { ...wallet.settings, trader: { ...wallet.settings.trader, name: null } } }
    expect(summaryOf(unnamed)).toBe("Copies 0x893a…3919's buys at $100 a trade")
  })
})

describe("venuesOf", () => {
  it("a signal bot's venues: those it names, each once, in the venues' order; with traders, only theirs", () => {
    expect(venuesOf(aSignalBot())).toEqual(VENUES)
    expect(venuesOf(aSignalBot({ venue: ["venue_d", "venue_a", "venue_d"] }))).toEqual(VENUES.filter((v) => v === "venue_a" || v === "venue_d"))
    expect(venuesOf(aSignalBot({ traders: ["venue_a:ann" as TraderRef] }))).toEqual(["venue_a"])
    expect(venuesOf(aSignalBot({ venue: ["venue_b"], traders: ["venue_a:ann" as TraderRef] }))).toEqual([])
  })
})

describe("settingsOf", () => {
  it("a signal bot's signal, or null when the bot holds settings only the app can edit (spec: Bot settings)", () => {
    const bot = aSignalBot({ category: ["crypto"] })
    expect(settingsOf(bot)).toMatchObject({ signal: { category: ["crypto"] } })
    expect(settingsOf({ ...bot, settings: { ...bot.settings, appOnly: true } })).toEqual({ signal: null, sizing: { usd: 100 }, alerts: bot.alerts })
  })
})
