// The node door (src/http/node-door.ts) against replays: a signed call runs once; the same body again, a
// body signed for another operation, and one sent more than a minute from this node's clock are 401 and
// run nothing (the window at its edge). With a PaperOwner that holds, as on the lease's holder.
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNodeDoor } from "../../src/http/node-door.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { nodeSecret } from "../../src/nodes/paper-lease.js"
import { NODE_ROUTE, REPLAY_WINDOW_MS, ReplayGuard, SIGNATURE_HEADER, sign } from "../../src/nodes/wire.js"
import { Principal } from "../../src/domain/principal.js"
import { Health } from "../../src/operations/health.js"
import { operation } from "../../src/operations/operation.js"
import { owned, PaperOwner } from "../../src/operations/owned.js"
import { CursorKey } from "../../src/operations/paging.js"
import { Counters } from "../../src/store/counters.js"
import { TestStore } from "../support/db.js"
import { aPrincipal } from "../support/memory-keys.js"

let runs: Array<string> = []
const touch = (name: string) =>
  owned(operation({
    name, tool: name, method: "POST", path: `/v2/${name}`, scope: "write",
    input: Schema.Struct({ id: Schema.String }), output: Schema.String,
    run: (input) => Effect.sync(() => {
      runs.push(`${name} ${input.id}`)
      return "ran"
    }),
  }))
const operations = [touch("readThing"), touch("deleteThing")] as const

let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
let url = ""
let secret: Uint8Array
beforeAll(async () => {
  const owner = Layer.succeed(PaperOwner, { holds: Effect.succeed(true), runHere: (self) => Effect.asSome(self), forward: (_op, _input, _ctx, local) => local })
  const layer = makeHttpServer(operations, { port: 0, host: "127.0.0.1" }, makeNodeDoor(operations)).pipe(
    Layer.provide([owner, Counters.memory, Health.layer, CursorKey.layer("door-test")]),
    Layer.provideMerge(TestStore),
  )
  runtime = ManagedRuntime.make(layer) as ManagedRuntime.ManagedRuntime<unknown, unknown>
  url = await runtime.runPromise(serverUrl)
  secret = await runtime.runPromise(nodeSecret as Effect.Effect<Uint8Array, never, never>)
}, 60_000)
afterAll(() => runtime.dispose())

const principal = Schema.encodeSync(Principal)(aPrincipal())
const bodyOf = (operation: string, options: { readonly sentAt?: number; readonly nonce?: string } = {}) =>
  JSON.stringify({
    operation, sentAt: options.sentAt ?? Date.now(), nonce: options.nonce ?? randomBytes(16).toString("hex"),
    principal, input: { id: "x1" }, prepaid: 0,
  })
const send = async (route: string, body: string) => {
  const answer = await fetch(`${url}${NODE_ROUTE}${route}`, {
    method: "POST", headers: { "content-type": "application/json", [SIGNATURE_HEADER]: sign(secret, body) }, body,
  })
  return { status: answer.status, body: await answer.json() as Record<string, unknown> }
}

describe("the node door", () => {
  it("runs a signed call once; the same body again is 401 and runs nothing", async () => {
    runs = []
    const body = bodyOf("readThing")
    expect(await send("readThing", body)).toEqual({ status: 200, body: { outcome: "done", output: "ran", headers: [] } })
    const again = await send("readThing", body)
    expect(again.status).toBe(401)
    expect(again.body).toMatchObject({ code: "UNAUTHORIZED", error: expect.stringContaining("taken before") })
    expect(runs).toEqual(["readThing x1"])
  })

  it("a body signed for one operation, sent to another, is 401 and runs nothing", async () => {
    runs = []
    const stolen = await send("deleteThing", bodyOf("readThing"))
    expect(stolen.status).toBe(401)
    expect(stolen.body.error).toBe("This call was signed for readThing, not deleteThing")
    expect(runs).toEqual([])
  })

  it(`takes a call sent up to ${REPLAY_WINDOW_MS / 1000} s from this node's clock, either way, and refuses one further off`, async () => {
    runs = []
    // A second of slack for the time the request takes.
    expect((await send("readThing", bodyOf("readThing", { sentAt: Date.now() - REPLAY_WINDOW_MS + 1_000 }))).status).toBe(200)
    expect((await send("readThing", bodyOf("readThing", { sentAt: Date.now() + REPLAY_WINDOW_MS - 1_000 }))).status).toBe(200)
    const old = await send("readThing", bodyOf("readThing", { sentAt: Date.now() - REPLAY_WINDOW_MS - 1_000 }))
    expect(old.status).toBe(401)
    expect(old.body.error).toContain("clocks disagree")
    expect((await send("readThing", bodyOf("readThing", { sentAt: Date.now() + REPLAY_WINDOW_MS + 1_000 }))).status).toBe(401)
    expect(runs).toHaveLength(2)
  })
})

describe("ReplayGuard", () => {
  it("refuses a nonce again for at least twice its window, and a sentAt more than the window off", () => {
    const guard = new ReplayGuard(1_000)
    expect(guard.admit("a", 0, 0)).toBe("taken")
    expect(guard.admit("a", 0, 10)).toBe("replayed")
    // A sender one window ahead: its sentAt stays acceptable until 2 windows after; the nonce is still known.
    expect(guard.admit("b", 1_000, 0)).toBe("taken")
    for (let now = 0; now <= 2_000; now += 250) expect(guard.admit("b", 1_000, now)).toBe("replayed")
    expect(guard.admit("b", 1_000, 2_001)).toBe("stale")
    expect(guard.admit("c", 1_000, 2_000)).toBe("taken")
    expect(guard.admit("d", 999, 2_000)).toBe("stale")
  })
})
