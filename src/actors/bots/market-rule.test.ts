import { describe, expect, it } from "vitest"
import { buyTriggered, exitDue, HOUR_MS } from "./market-rule.js"

describe("market-bot rule", () => {
  it("buy triggers: levels, distances from the start price, none = at once, no price = wait", () => {
    expect(buyTriggered({ repeat: false }, null, null)).toBe(true)
    expect(buyTriggered({ repeat: false, buyBelow: 0.4 }, 0.4, null)).toBe(true)
    expect(buyTriggered({ repeat: false, buyBelow: 0.4 }, 0.41, null)).toBe(false)
    expect(buyTriggered({ repeat: false, buyAbove: 0.6 }, 0.6, null)).toBe(true)
    expect(buyTriggered({ repeat: false, dropsBy: 0.05 }, 0.45, 0.5)).toBe(true)
    expect(buyTriggered({ repeat: false, dropsBy: 0.05 }, 0.46, 0.5)).toBe(false)
    expect(buyTriggered({ repeat: false, risesBy: 0.05 }, 0.55, 0.5)).toBe(true)
    expect(buyTriggered({ repeat: false, risesBy: 0.05 }, 0.55, null)).toBe(false)
    expect(buyTriggered({ repeat: false, buyBelow: 0.4 }, null, null)).toBe(false)
  })

  it("exits: levels, points from the price paid, hold time in feed time", () => {
    const held = { entryPrice: 0.5, openedAt: 0 }
    expect(exitDue({ repeat: false }, held, 0.99, 10 * HOUR_MS)).toBeNull()
    expect(exitDue({ repeat: false, takeProfit: 0.7 }, held, 0.7, 0)).toBe("takeProfit")
    expect(exitDue({ repeat: false, stopLoss: 0.3 }, held, 0.3, 0)).toBe("stopLoss")
    expect(exitDue({ repeat: false, takeProfitPoints: 0.1 }, held, 0.6, 0)).toBe("takeProfitPoints")
    expect(exitDue({ repeat: false, takeProfitPoints: 0.1 }, held, 0.59, 0)).toBeNull()
    expect(exitDue({ repeat: false, stopLossPoints: 0.1 }, held, 0.4, 0)).toBe("stopLossPoints")
    expect(exitDue({ repeat: false, maxHoldHours: 2 }, held, null, 2 * HOUR_MS - 1)).toBeNull()
    expect(exitDue({ repeat: false, maxHoldHours: 2 }, held, null, 2 * HOUR_MS)).toBe("maxHoldHours")
  })
})
