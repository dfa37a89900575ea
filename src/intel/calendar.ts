// Calendar arithmetic on epoch milliseconds without reading a clock or the host's time zone: UTC
// civil dates (for `YYYY-MM` months) and US Eastern wall time (for trading hours), with the US
// daylight-saving rule written out so the result never depends on the host's zone data.
import { DAY_MS, HOUR_MS, MINUTE_MS } from "./config.js"

export interface CivilDate {
  readonly year: number
  /** 1..12 */
  readonly month: number
  /** 1..31 */
  readonly day: number
}

/** Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days). */
export const civilFromDays = (days: number): CivilDate => {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** 0 = Sunday .. 6 = Saturday, of a day count since 1970-01-01 (a Thursday). */
export const weekdayOfDays = (days: number): number => (((days + 4) % 7) + 7) % 7

/** `YYYY-MM` of an instant, in UTC. */
export const utcMonth = (time: number): string => {
  const { year, month } = civilFromDays(Math.floor(time / DAY_MS))
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`
}

// Day of month of the n-th Sunday (n ≥ 1) of a month, or of the last Sunday when n = -1.
const sunday = (year: number, month: number, n: number): number => {
  if (n === -1) {
    const nextFirst = month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)
    const last = nextFirst - 1
    return civilFromDays(last - weekdayOfDays(last)).day
  }
  const first = daysFromCivil(year, month, 1)
  return 1 + ((7 - weekdayOfDays(first)) % 7) + (n - 1) * 7
}

/**
 * Whether US Eastern daylight time is in effect at an instant. Since 2007: from the second Sunday of
 * March, 02:00 EST (07:00 UTC), to the first Sunday of November, 02:00 EDT (06:00 UTC). 1987–2006:
 * first Sunday of April to last Sunday of October, same hours. Earlier years use the 1987 rule.
 */
export const isEasternDaylightTime = (time: number): boolean => {
  const { year } = civilFromDays(Math.floor((time - 5 * HOUR_MS) / DAY_MS))
  const [startMonth, startSunday, endMonth, endSunday] = year >= 2007 ? [3, 2, 11, 1] : [4, 1, 10, -1]
  const start = daysFromCivil(year, startMonth, sunday(year, startMonth, startSunday)) * DAY_MS + 7 * HOUR_MS
  const end = daysFromCivil(year, endMonth, sunday(year, endMonth, endSunday)) * DAY_MS + 6 * HOUR_MS
  return time >= start && time < end
}

/** Offset of US Eastern time from UTC at an instant, in minutes (−300 or −240). */
export const easternOffsetMinutes = (time: number): number => (isEasternDaylightTime(time) ? -240 : -300)

export interface WallTime extends CivilDate {
  /** 0 = Sunday .. 6 = Saturday */
  readonly weekday: number
  readonly hour: number
  readonly minute: number
}

/** US Eastern wall time of an instant (America/New_York). */
export const easternTime = (time: number): WallTime => {
  const local = time + easternOffsetMinutes(time) * MINUTE_MS
  const days = Math.floor(local / DAY_MS)
  const intoDay = local - days * DAY_MS
  return {
    ...civilFromDays(days),
    weekday: weekdayOfDays(days),
    hour: Math.floor(intoDay / HOUR_MS),
    minute: Math.floor((intoDay % HOUR_MS) / MINUTE_MS),
  }
}
