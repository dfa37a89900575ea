import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { civilFromDays, daysFromCivil, easternTime, isEasternDaylightTime, utcMonth } from "./calendar.js"

const eastern = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York", hourCycle: "h23", weekday: "short", hour: "2-digit", year: "numeric", month: "2-digit", day: "2-digit",
})
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const intl = (time: number) => {
  const parts = Object.fromEntries(eastern.formatToParts(time).map((p) => [p.type, p.value]))
  return { weekday: WEEKDAYS.indexOf(parts.weekday ?? ""), hour: Number(parts.hour), day: Number(parts.day), month: Number(parts.month), year: Number(parts.year) }
}
const utc = (iso: string) => Date.parse(iso)

describe("US Eastern time", () => {
  it("switches to daylight time at 07:00 UTC on the second Sunday of March", () => {
    expect(isEasternDaylightTime(utc("2025-03-09T06:59:59.999Z"))).toBe(false)
    expect(isEasternDaylightTime(utc("2025-03-09T07:00:00Z"))).toBe(true)
    expect(easternTime(utc("2025-03-09T07:00:00Z")).hour).toBe(3)
  })

  it("switches back at 06:00 UTC on the first Sunday of November", () => {
    expect(isEasternDaylightTime(utc("2025-11-02T05:59:59.999Z"))).toBe(true)
    expect(isEasternDaylightTime(utc("2025-11-02T06:00:00Z"))).toBe(false)
    expect(easternTime(utc("2025-11-02T06:00:00Z")).hour).toBe(1)
  })

  it("weekday 0 is Sunday", () => {
    expect(easternTime(utc("2024-01-07T17:00:00Z"))).toMatchObject({ weekday: 0, hour: 12, day: 7, month: 1, year: 2024 })
    expect(easternTime(utc("2024-01-07T03:00:00Z"))).toMatchObject({ weekday: 6, hour: 22 })
  })

  it("agrees with Intl's America/New_York from 1990 to 2040", () => {
    const time = fc.integer({ min: utc("1990-01-01T00:00:00Z"), max: utc("2040-01-01T00:00:00Z") })
    fc.assert(fc.property(time, (t) => {
      const ours = easternTime(t)
      expect({ weekday: ours.weekday, hour: ours.hour, day: ours.day, month: ours.month, year: ours.year }).toEqual(intl(t))
    }), { numRuns: 500 })
  })
})

describe("civil dates", () => {
  it("round-trip and name UTC months", () => {
    fc.assert(fc.property(fc.integer({ min: -200_000, max: 200_000 }), (days) => {
      const { year, month, day } = civilFromDays(days)
      expect(daysFromCivil(year, month, day)).toBe(days)
    }), { numRuns: 200 })
    expect(utcMonth(utc("2024-02-29T23:59:59Z"))).toBe("2024-02")
    expect(utcMonth(utc("2024-03-01T00:00:00Z"))).toBe("2024-03")
  })
})
