// Test edge for feed sockets: a manual clock whose timers fire only when the test advances it, and a
// fake link the test drives by hand (open, frames, close) while it records what the client sent.
import type { Dial, Edge, Link, LinkEvents } from "../../src/feeds/socket.js"

export class ManualTime {
  private t: number
  private seq = 0
  private readonly pending = new Map<number, { at: number; seq: number; f: () => void }>()

  constructor(start = 1_700_000_000_000) {
    this.t = start
  }

  now = (): number => this.t

  readonly timers = {
    setTimeout: (f: () => void, ms: number): unknown => {
      const id = ++this.seq
      this.pending.set(id, { at: this.t + Math.max(0, ms), seq: id, f })
      return id
    },
    clearTimeout: (handle: unknown): void => {
      this.pending.delete(handle as number)
    },
  }

  /** Moves time forward, firing due timers in time order (timers set meanwhile fire too if due). */
  advance(ms: number): void {
    const end = this.t + ms
    for (;;) {
      let next: { id: number; at: number; seq: number; f: () => void } | undefined
      for (const [id, timer] of this.pending) {
        if (timer.at <= end && (next === undefined || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq))) {
          next = { id, ...timer }
        }
      }
      if (next === undefined) break
      this.pending.delete(next.id)
      this.t = Math.max(this.t, next.at)
      next.f()
    }
    this.t = end
  }

  get timerCount(): number {
    return this.pending.size
  }
}

export class FakeLink implements Link {
  readonly sent: Array<string> = []
  terminated = false
  constructor(readonly url: string, readonly on: LinkEvents) {}
  send = (text: string): void => {
    this.sent.push(text)
  }
  terminate = (): void => {
    this.terminated = true
  }
  /** Delivers a text frame as the server would. */
  frame(text: string): void {
    this.on.message(text, Buffer.byteLength(text))
  }
}

export class FakeNetwork {
  readonly links: Array<FakeLink> = []
  readonly dial: Dial = (url, on) => {
    const link = new FakeLink(url, on)
    this.links.push(link)
    return link
  }
  get last(): FakeLink {
    const link = this.links[this.links.length - 1]
    if (link === undefined) throw new Error("no link dialled yet")
    return link
  }
}

export const testEdge = (
  time: ManualTime,
  network: FakeNetwork,
  random: () => number = () => 0.5,
  logs: Array<string> = [],
): Edge => ({
  now: time.now,
  random,
  timers: time.timers,
  dial: network.dial,
  log: (message) => {
    logs.push(message)
  },
})
