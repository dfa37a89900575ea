import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeInbox } from "./inbox.js"

describe("Inbox", () => {
  it("gives the items in the order they came, at most max a take, and leaves the rest", () => {
    const inbox = makeInbox<number>()
    for (let i = 1; i <= 5; i++) inbox.offer(i)
    expect(inbox.take(2)).toEqual([1, 2])
    expect(inbox.size()).toBe(3)
    expect(inbox.take(10)).toEqual([3, 4, 5])
    expect(inbox.take(10)).toEqual([])
  })

  it("ready ends at once while items wait, and otherwise with the next offer", async () => {
    const inbox = makeInbox<string>()
    inbox.offer("a")
    await Effect.runPromise(inbox.ready)
    expect(inbox.take(1)).toEqual(["a"])
    const result = await Effect.runPromise(Effect.gen(function* () {
      const waiting = yield* Effect.fork(inbox.ready)
      yield* Effect.yieldNow()
      expect(waiting.unsafePoll()).toBeNull()
      inbox.offer("b")
      yield* Fiber.join(waiting)
      return inbox.take(5)
    }))
    expect(result).toEqual(["b"])
  })

  it("an interrupted wait takes nothing, and the next wait is woken by the next offer", async () => {
    const inbox = makeInbox<string>()
    const taken = await Effect.runPromise(Effect.gen(function* () {
      const first = yield* Effect.fork(inbox.ready)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      inbox.offer("kept")
      expect(inbox.size()).toBe(1)
      yield* inbox.ready
      inbox.take(1)
      const second = yield* Effect.fork(inbox.ready)
      yield* Effect.yieldNow()
      inbox.offer("later")
      yield* Fiber.join(second)
      return inbox.take(5)
    }))
    expect(taken).toEqual(["later"])
  })
})
