// The configuration's edges: every value the README's table allows is read, and a bad one fails naming
// its variable (plain digits only for the numbers: "", hex and exponents are refused, not read as numbers).
import { ConfigProvider, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "./config.js"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(AppConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))))

const refused = (env: Record<string, string>): string => {
  const result = read(env)
  if (Either.isRight(result)) throw new Error(`accepted ${JSON.stringify(env)}`)
  return String(result.left)
}

describe("AppConfig", () => {
  it("defaults as the README says", () => {
    const config = read({})
    expect(Either.isRight(config) && config.right).toMatchObject({ port: 8080, dataDir: "./data", simPort: 8090, simSeed: 42, historyDays: 30, logLevel: "info" })
  })

  it("reads each number at its edges", () => {
    const config = read({ PORT: "65535", SIM_PORT: "0", HISTORY_DAYS: "365", SIM_SEED: "4294967295" })
    expect(Either.isRight(config) && config.right).toMatchObject({ port: 65_535, simPort: 0, historyDays: 365, simSeed: 4_294_967_295 })
    expect(Either.isRight(read({ HISTORY_DAYS: "0" }))).toBe(true)
  })

  it("refuses one past each edge, naming the variable", () => {
    expect(refused({ PORT: "65536" })).toContain("PORT must be a TCP port from 0 to 65535")
    expect(refused({ HISTORY_DAYS: "366" })).toContain("HISTORY_DAYS must be an integer from 0 to 365")
    expect(refused({ SIM_SEED: "4294967296" })).toContain("SIM_SEED must be a whole number")
  })

  it("PAPER_LEASE_SECONDS: 10 by default, 1 to 300", () => {
    const lease = (env: Record<string, string>) => {
      const config = read(env)
      return Either.isRight(config) ? config.right.leaseSeconds : null
    }
    expect(lease({})).toBe(10)
    expect(lease({ PAPER_LEASE_SECONDS: "1" })).toBe(1)
    expect(lease({ PAPER_LEASE_SECONDS: "300" })).toBe(300)
    for (const bad of ["0", "301", "", "1.5", "-1"]) {
      expect(refused({ PAPER_LEASE_SECONDS: bad })).toContain("PAPER_LEASE_SECONDS must be an integer from 1 to 300")
    }
  })

  it("NODE_ID: 1 to 200 characters; NODE_URL: an http(s) URL", () => {
    const config = read({ NODE_ID: "a".repeat(200), NODE_URL: "http://10.0.0.2:8080" })
    expect(Either.isRight(config) && config.right.nodeId._tag).toBe("Some")
    expect(refused({ NODE_ID: "a".repeat(201) })).toContain("NODE_ID must be 1 to 200 characters")
    expect(refused({ NODE_ID: "" })).toContain("NODE_ID must be 1 to 200 characters")
    expect(refused({ NODE_URL: "10.0.0.2:8080" })).toContain("NODE_URL must be a URL starting with http:// or https://")
  })

  it("refuses an empty value, hex, exponents, signs, fractions and blanks instead of reading a number", () => {
    for (const bad of ["", "0x10", "1e1", "-1", "+5", "1.5", " 8", "8 ", "abc"]) {
      expect(refused({ PORT: bad })).toContain("PORT must be a TCP port")
      expect(refused({ HISTORY_DAYS: bad })).toContain("HISTORY_DAYS must be an integer")
      expect(refused({ SIM_SEED: bad })).toContain("SIM_SEED must be a whole number")
    }
  })

  it("HOST: unset binds every interface; an empty one is refused", () => {
    const config = read({})
    expect(Either.isRight(config) && config.right.host._tag).toBe("None")
    const set = read({ HOST: "127.0.0.1" })
    expect(Either.isRight(set) && Option.getOrNull(set.right.host)).toBe("127.0.0.1")
    expect(refused({ HOST: "" })).toContain("HOST must name an interface address")
  })

  it("refuses an empty DATA_DIR (the database would land in the working directory)", () => {
    expect(refused({ DATA_DIR: "" })).toContain("DATA_DIR must name a directory")
    expect(refused({ DATA_DIR: "  " })).toContain("DATA_DIR must name a directory")
  })
})
