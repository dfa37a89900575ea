// The generic feed socket: backoff bounds, heartbeat timeouts, malformed frames, resubscribe on reconnect.
import { describe, expect, it } from "vitest"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { backoffDelay, DEFAULT_BACKOFF, FeedSocket, type Heartbeat, type StreamSession } from "../../src/feeds/socket.js"
import { FakeNetwork, ManualTime, testEdge } from "./harness.js"

const trade = (receivedAt: number, price: number): FeedEvent => ({
  _tag: "TradePrinted", venue: "venue_b", ts: receivedAt, receivedAt, contract: "c", tradeId: `t${price}`,
  outcome: "yes", action: "buy", price, contracts: 1, trader: null, txId: null,
})

/** A toy session: frame "p:<price>" is a trade, "bad:<reason>" is rejected, anything else is ignored. */
const toySession = (subscribe: ReadonlyArray<string> = ["SUB"]): StreamSession & { closes: number } => {
  const session = {
    closes: 0,
    opened: () => subscribe,
    frame: (text: string, receivedAt: number) => {
      if (text.startsWith("p:")) return { events: [trade(receivedAt, Number(text.slice(2)))], rejected: [], replies: [], resyncs: 0 }
      if (text.startsWith("bad:")) return { events: [], rejected: [{ _tag: "FrameRejected" as const, venue: "venue_b" as const, reason: text.slice(4) }], replies: [], resyncs: 0 }
      return { events: [], rejected: [], replies: [], resyncs: 0 }
    },
    closed: () => {
      session.closes += 1
    },
  }
  return session
}

const setup = (options: { heartbeat?: Heartbeat; random?: () => number; session?: StreamSession } = {}) => {
  const time = new ManualTime()
  const network = new FakeNetwork()
  const logs: Array<string> = []
  const delivered: Array<FeedEvent> = []
  const socket = new FeedSocket({
    venue: "venue_b", stream: "market", connection: "market#0", url: "ws://sim/ws/venue_b",
    heartbeat: options.heartbeat ?? { silenceMs: 20_000 },
    session: options.session ?? toySession(),
    sink: (events) => delivered.push(...events),
    edge: testEdge(time, network, options.random ?? (() => 0.5), logs),
  })
  return { time, network, logs, delivered, socket }
}

describe("backoffDelay", () => {
  it("stays within [0, min(cap, base·2^attempt)) for any random draw", () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      const ceiling = Math.min(DEFAULT_BACKOFF.capMs, DEFAULT_BACKOFF.baseMs * 2 ** attempt)
      for (const r of [0, 0.25, 0.5, 0.999999]) {
        const d = backoffDelay(attempt, () => r)
        expect(d).toBeGreaterThanOrEqual(0)
        expect(d).toBeLessThan(ceiling)
        expect(d).toBe(Math.floor(ceiling * r))
      }
    }
  })

  it("grows exponentially from 250 ms and caps at 30 s", () => {
    const top = (attempt: number) => backoffDelay(attempt, () => 0.9999999)
    expect(top(0)).toBe(249)
    expect(top(1)).toBe(499)
    expect(top(3)).toBe(1999)
    expect(top(7)).toBe(29_999)
    expect(top(1000)).toBe(29_999)
  })

  it("treats an out-of-range draw as zero rather than exceeding the ceiling", () => {
    expect(backoffDelay(3, () => 1)).toBe(0)
    expect(backoffDelay(3, () => Number.NaN)).toBe(0)
  })
})

describe("FeedSocket", () => {
  it("subscribes on open, delivers decoded events stamped with the client's clock", () => {
    const { time, network, delivered, socket } = setup()
    socket.start()
    network.last.on.open()
    expect(network.last.sent).toEqual(["SUB"])
    time.advance(1234)
    network.last.frame("p:0.42")
    expect(delivered).toEqual([trade(time.now(), 0.42)])
    const c = socket.counters.snapshot()
    expect(c).toMatchObject({ frames: 1, bytes: 6, events: 1, connects: 1, reconnects: 0, state: "open", lastFrameAt: time.now() })
  })

  it("reconnects with jittered backoff and resubscribes after a drop", () => {
    const { time, network, socket } = setup()
    socket.start()
    network.last.on.open()
    network.last.on.closed("closed 1006")
    expect(network.links).toHaveLength(1)
    time.advance(124) // 0.5 × 250 = 125 ms
    expect(network.links).toHaveLength(1)
    time.advance(1)
    expect(network.links).toHaveLength(2)
    // Failing again before any frame: the ceiling doubles (0.5 × 500 = 250 ms).
    network.last.on.closed("closed 1006")
    time.advance(249)
    expect(network.links).toHaveLength(2)
    time.advance(1)
    expect(network.links).toHaveLength(3)
    network.last.on.open()
    expect(network.last.sent).toEqual(["SUB"])
    const c = socket.counters.snapshot()
    expect(c.connects).toBe(2)
    expect(c.reconnects).toBe(1)
    expect(c.resyncs).toBe(1)
    expect(c.lastDisconnect?.reason).toBe("closed 1006")
  })

  it("starts the backoff over once a connection delivers a frame", () => {
    const { time, network, socket } = setup({ random: () => 0.999, heartbeat: { silenceMs: 1e9 } })
    socket.start()
    for (let i = 0; i < 5; i++) {
      network.last.on.closed("refused")
      time.advance(30_000)
    }
    network.last.on.open()
    network.last.frame("p:0.5")
    network.last.on.closed("closed 1006")
    const before = network.links.length
    time.advance(249) // attempt 0 again: < 250 ms
    expect(network.links.length).toBe(before + 1)
  })

  it("sends the heartbeat ping and drops a silent connection, then reconnects", () => {
    const { time, network, socket, delivered } = setup({ heartbeat: { pingText: "PING", pingEveryMs: 10_000, silenceMs: 20_000 } })
    socket.start()
    const first = network.last
    first.on.open()
    time.advance(10_000)
    expect(first.sent).toEqual(["SUB", "PING"])
    first.frame("PONG")
    time.advance(10_000)
    expect(first.sent).toEqual(["SUB", "PING", "PING"])
    expect(first.terminated).toBe(false)
    // Silence from here: 20 s after the PONG the link is declared dead.
    time.advance(9_999)
    expect(first.terminated).toBe(false)
    time.advance(1)
    expect(first.terminated).toBe(true)
    expect(socket.counters.snapshot().lastDisconnect?.reason).toBe("heartbeat timeout")
    time.advance(250)
    expect(network.links).toHaveLength(2)
    network.last.on.open()
    network.last.frame("p:0.3")
    expect(delivered).toHaveLength(1)
    // Frames of the dead link no longer count.
    first.frame("p:0.9")
    expect(delivered).toHaveLength(1)
  })

  it("counts transport pings as proof of life (Kalshi keeps alive with WS pings)", () => {
    const { time, network, socket } = setup({ heartbeat: { silenceMs: 25_000 } })
    socket.start()
    network.last.on.open()
    for (let i = 0; i < 10; i++) {
      time.advance(10_000)
      network.last.on.alive()
    }
    expect(network.last.terminated).toBe(false)
    time.advance(25_000)
    expect(network.last.terminated).toBe(true)
  })

  it("gives up on a dial that never opens and tries again", () => {
    const s = setup({ heartbeat: { silenceMs: 5_000 } })
    s.socket.start()
    s.time.advance(5_000)
    expect(s.network.last.terminated).toBe(true)
    expect(s.socket.counters.snapshot().state).toBe("backoff")
    s.time.advance(250)
    expect(s.network.links).toHaveLength(2)
  })

  it("counts a malformed frame per reason, logs each reason once and keeps the connection", () => {
    const { network, socket, logs, delivered } = setup()
    socket.start()
    network.last.on.open()
    network.last.frame("bad:not JSON")
    network.last.frame("bad:not JSON")
    network.last.frame("bad:unknown event_type")
    network.last.frame("bad:not JSON")
    network.last.frame("p:0.1")
    expect(network.last.terminated).toBe(false)
    expect(delivered).toHaveLength(1)
    const c = socket.counters.snapshot()
    expect(c.rejected).toEqual({ "not JSON": 3, "unknown event_type": 1 })
    expect(c.rejectedTotal).toBe(4)
    expect(logs).toHaveLength(2)
    expect(logs[0]).toContain("not JSON")
  })

  it("tells the session about each disconnect and stops for good when stopped", () => {
    const session = toySession()
    const { time, network, socket } = setup({ session })
    socket.start()
    network.last.on.open()
    network.last.on.closed("closed 1001")
    expect(session.closes).toBe(1)
    time.advance(1_000)
    network.last.on.open()
    socket.stop()
    expect(session.closes).toBe(2)
    expect(network.last.terminated).toBe(true)
    time.advance(60_000)
    expect(network.links).toHaveLength(2)
    expect(time.timerCount).toBe(0)
    expect(socket.counters.snapshot().state).toBe("stopped")
  })

  it("survives a sink that throws", () => {
    const time = new ManualTime()
    const network = new FakeNetwork()
    const logs: Array<string> = []
    const socket = new FeedSocket({
      venue: "venue_b", stream: "market", connection: "market#0", url: "ws://x", heartbeat: { silenceMs: 20_000 },
      session: toySession(), sink: () => {
        throw new Error("boom")
      },
      edge: testEdge(time, network, () => 0.5, logs),
    })
    socket.start()
    network.last.on.open()
    network.last.frame("p:0.2")
    network.last.frame("p:0.3")
    expect(network.last.terminated).toBe(false)
    expect(socket.counters.snapshot().rejected).toEqual({ "sink threw": 2 })
  })
})
