import { describe, expect, it } from "vitest"
import { aTraderBot } from "../../../test/bots/builders.js"
import { summaryOf } from "./view.js"

describe("summaryOf", () => {
  it("names a trader by its public name, else by its handle with a wallet shortened (never given out whole)", () => {
    expect(summaryOf(aTraderBot())).toBe("Copies ALICE's buys at $100 a trade")
    const wallet = aTraderBot({ trader: "venue_b:0x893a1c9d3e6f2b7a8c4d5e6f7a8b9c0d1e2f3919" })
    const unnamed = { ...wallet, settings: { ...wallet.settings, trader: { ...wallet.settings.trader, name: null } } }
    expect(summaryOf(unnamed)).toBe("Copies 0x893a…3919's buys at $100 a trade")
  })
})
