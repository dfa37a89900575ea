// An unreachable REDIS_URL stops the start with one line naming it (no ioredis retry traces), and a
// password in the URL is not printed.
import { Cause, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Redis } from "../../src/store/redis.js"

const startWith = (url: string) => Effect.runPromiseExit(Effect.scoped(Layer.build(Redis.layer(url))))

describe("Redis.layer", () => {
  it("fails at once with one line naming REDIS_URL when nothing listens, password hidden", async () => {
    const started = Date.now()
    const exit = await startWith("redis://user:secret@127.0.0.1:1")
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(Exit.isFailure(exit)).toBe(true)
    if (!Exit.isFailure(exit)) return
    const defect = Cause.dieOption(exit.cause)
    expect(defect._tag).toBe("Some")
    const message = defect._tag === "Some" ? (defect.value as Error).message : ""
    expect(message).toMatch(/^REDIS_URL redis:\/\/user:\*\*\*@127\.0\.0\.1:1: cannot connect \(.*ECONNREFUSED/)
    expect(message).not.toContain("secret")
    expect(message.split("\n")).toHaveLength(1)
  })
})
