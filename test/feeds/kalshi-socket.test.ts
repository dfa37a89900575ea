// Kalshi-family conversation: subscribe on open, per-sid gap → get_snapshot, deltas held back until
// the market's snapshot, books equal to the venue's after resync; error 25 counts as a gap.
import { describe, expect, it } from "vitest"
import { Book } from "../../src/actors/markets/book.js"
import type { FeedEvent } from "../../src/domain/feed-events.js"
import { kalshiSession } from "../../src/feeds/kalshi/socket.js"
import { FeedSocket } from "../../src/feeds/socket.js"
import { FakeNetwork, ManualTime, testEdge } from "./harness.js"

const snapshot = (sid: number, seq: number, ticker: string, yes: Array<[string, string]>, no: Array<[string, string]>) =>
  JSON.stringify({ type: "orderbook_snapshot", sid, seq, msg: { market_ticker: ticker, market_id: "m", yes_dollars_fp: yes, no_dollars_fp: no } })
const delta = (sid: number, seq: number, ticker: string, side: "yes" | "no", price: string, change: string) =>
  JSON.stringify({ type: "orderbook_delta", sid, seq, msg: { market_ticker: ticker, market_id: "m", price_dollars: price, delta_fp: change, side, ts_ms: 1 } })

const setup = () => {
  const time = new ManualTime()
  const network = new FakeNetwork()
  const delivered: Array<FeedEvent> = []
  const socket = new FeedSocket({
    venue: "venue_a", stream: "market", connection: "market#0", url: "ws://sim/ws/venue_a",
    heartbeat: { silenceMs: 25_000 }, session: kalshiSession({ venue: "venue_a" }),
    sink: (events) => delivered.push(...events), edge: testEdge(time, network),
  })
  socket.start()
  network.last.on.open()
  return { time, network, delivered, socket }
}

const booksOf = (events: ReadonlyArray<FeedEvent>) => {
  const books = new Map<string, Book>()
  for (const e of events) {
    if (e._tag !== "BookSnapshot" && e._tag !== "BookDelta") continue
    const book = books.get(e.contract) ?? new Book()
    books.set(e.contract, book)
    book.apply(e)
  }
  return books
}

describe("Kalshi session", () => {
  it("subscribes to the book and the data channels on open", () => {
    const { network } = setup()
    expect(network.last.sent.map((s) => JSON.parse(s))).toEqual([
      { id: 1, cmd: "subscribe", params: { channels: ["orderbook_delta"] } },
      { id: 2, cmd: "subscribe", params: { channels: ["trade", "ticker", "market_lifecycle_v2"] } },
    ])
  })

  it("on a seq gap drops the sid's deltas, sends get_snapshot for its markets and resumes after the snapshots", () => {
    const { network, delivered, socket } = setup()
    const link = network.last
    link.frame(JSON.stringify({ id: 1, type: "subscribed", msg: { channel: "orderbook_delta", sid: 7 } }))
    link.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], [["0.50", "5.00"]]))
    link.frame(snapshot(7, 2, "B", [["0.20", "3.00"]], []))
    link.frame(delta(7, 3, "A", "yes", "0.41", "2.00"))
    // seq 4 and 5 are lost; 6 reveals the gap.
    link.frame(delta(7, 6, "B", "yes", "0.20", "1.00"))
    const request = JSON.parse(link.sent[link.sent.length - 1] ?? "null")
    expect(request).toEqual({ id: 3, cmd: "update_subscription", params: { sids: [7], market_tickers: ["A", "B"], action: "get_snapshot" } })
    link.frame(delta(7, 7, "A", "yes", "0.41", "1.00")) // held back: A untrusted
    const before = delivered.length
    link.frame(snapshot(7, 8, "A", [["0.40", "10.00"], ["0.41", "9.00"]], [["0.50", "5.00"]]))
    link.frame(delta(7, 9, "A", "no", "0.50", "-5.00")) // A trusted again
    link.frame(delta(7, 10, "B", "yes", "0.20", "1.00")) // B still waiting
    link.frame(snapshot(7, 11, "B", [["0.20", "7.00"]], []))
    const after = delivered.slice(before)
    expect(after.filter((e) => e._tag === "BookDelta").map((e) => e._tag === "BookDelta" && e.contract)).toEqual(["A"])
    const books = booksOf(delivered)
    expect(books.get("A")?.levels("yes", "bid")).toEqual([{ price: 0.41, size: 9 }, { price: 0.4, size: 10 }])
    expect(books.get("A")?.levels("yes", "ask")).toEqual([])
    expect(books.get("B")?.levels("yes", "bid")).toEqual([{ price: 0.2, size: 7 }])
    const c = socket.counters.snapshot()
    expect(c.gaps).toBe(1)
    expect(c.resyncs).toBe(1)
    expect(c.rejectedTotal).toBe(0)
    expect(link.terminated).toBe(false)
  })

  it("asks for a snapshot when a delta comes for a market never snapshotted", () => {
    const { network, delivered } = setup()
    network.last.frame(delta(3, 1, "C", "yes", "0.30", "4.00"))
    expect(delivered).toEqual([])
    expect(JSON.parse(network.last.sent[2] ?? "null")).toMatchObject({ cmd: "update_subscription", params: { sids: [3], market_tickers: ["C"], action: "get_snapshot" } })
    network.last.frame(delta(3, 2, "C", "yes", "0.30", "4.00"))
    expect(network.last.sent).toHaveLength(3) // asked once
  })

  it("does not read a command response's repeated seq as a gap", () => {
    const { network, socket } = setup()
    network.last.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    network.last.frame(JSON.stringify({ id: 3, sid: 7, seq: 1, type: "ok", msg: { market_tickers: ["A"] } }))
    network.last.frame(delta(7, 2, "A", "yes", "0.40", "1.00"))
    expect(socket.counters.snapshot()).toMatchObject({ gaps: 0, resyncs: 0 })
    expect(network.last.sent).toHaveLength(2)
  })

  const sentJson = (link: { readonly sent: ReadonlyArray<string> }, from: number) => link.sent.slice(from).map((t) => JSON.parse(t))
  const subscribed = (id: number, channel: string, sid: number) => JSON.stringify({ id, type: "subscribed", msg: { channel, sid } })

  it("error 25 (buffer overflow) naming no sid: a gap that renews every subscription", () => {
    const { network, delivered, socket } = setup()
    const link = network.last
    link.frame(subscribed(1, "orderbook_delta", 7))
    link.frame(subscribed(2, "trade", 8))
    link.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    link.frame(JSON.stringify({ id: 9, type: "error", msg: { code: 25, msg: "subscription buffer overflow" } }))
    expect(sentJson(link, 2)).toEqual([
      { id: 3, cmd: "unsubscribe", params: { sids: [7] } },
      { id: 4, cmd: "subscribe", params: { channels: ["orderbook_delta"] } },
      { id: 5, cmd: "unsubscribe", params: { sids: [8] } },
      { id: 6, cmd: "subscribe", params: { channels: ["trade"] } },
    ])
    // Late frames of the old book sid are dropped; the new sid's snapshot rebuilds the book.
    const before = delivered.length
    link.frame(delta(7, 2, "A", "yes", "0.40", "5.00"))
    link.frame(snapshot(7, 3, "A", [["0.40", "1.00"]], []))
    expect(delivered).toHaveLength(before)
    link.frame(subscribed(4, "orderbook_delta", 9))
    link.frame(snapshot(9, 1, "A", [["0.40", "12.00"]], []))
    link.frame(delta(9, 2, "A", "yes", "0.40", "1.00"))
    expect(booksOf(delivered).get("A")?.levels("yes", "bid")).toEqual([{ price: 0.4, size: 13 }])
    expect(socket.counters.snapshot()).toMatchObject({ gaps: 1, resyncs: 2 })
  })

  it("error 25 naming a sid renews that subscription only", () => {
    const { network } = setup()
    const link = network.last
    link.frame(subscribed(1, "orderbook_delta", 7))
    link.frame(subscribed(2, "ticker", 8))
    link.frame(JSON.stringify({ type: "error", sid: 8, msg: { code: 25, msg: "subscription buffer overflow" } }))
    expect(sentJson(link, 2)).toEqual([
      { id: 3, cmd: "unsubscribe", params: { sids: [8] } },
      { id: 4, cmd: "subscribe", params: { channels: ["ticker"] } },
    ])
  })

  it("a refused get_snapshot renews the book subscription instead of waiting for ever", () => {
    const { network, delivered } = setup()
    const link = network.last
    link.frame(subscribed(1, "orderbook_delta", 7))
    link.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    link.frame(delta(7, 3, "A", "yes", "0.40", "1.00")) // seq 2 lost
    expect(sentJson(link, 2)).toEqual([{ id: 3, cmd: "update_subscription", params: { sids: [7], market_tickers: ["A"], action: "get_snapshot" } }])
    link.frame(JSON.stringify({ id: 3, type: "error", msg: { code: 17, msg: "internal" } }))
    expect(sentJson(link, 3)).toEqual([
      { id: 4, cmd: "unsubscribe", params: { sids: [7] } },
      { id: 5, cmd: "subscribe", params: { channels: ["orderbook_delta"] } },
    ])
    link.frame(subscribed(5, "orderbook_delta", 10))
    link.frame(snapshot(10, 1, "A", [["0.40", "3.00"]], []))
    link.frame(delta(10, 2, "A", "yes", "0.40", "1.00"))
    expect(booksOf(delivered).get("A")?.levels("yes", "bid")).toEqual([{ price: 0.4, size: 4 }])
  })

  it("snapshots asked for and not come within 10 s of feed time: the book subscription is renewed", () => {
    const { time, network } = setup()
    const link = network.last
    link.frame(subscribed(1, "orderbook_delta", 7))
    link.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    link.frame(delta(7, 3, "A", "yes", "0.40", "1.00")) // gap: get_snapshot (id 3)
    time.advance(9_000)
    link.frame(delta(7, 4, "A", "yes", "0.40", "1.00"))
    expect(link.sent).toHaveLength(3)
    time.advance(1_000)
    link.frame(delta(7, 5, "A", "yes", "0.40", "1.00"))
    expect(sentJson(link, 3)).toEqual([
      { id: 4, cmd: "unsubscribe", params: { sids: [7] } },
      { id: 5, cmd: "subscribe", params: { channels: ["orderbook_delta"] } },
    ])
  })

  it("a gap revealed by a snapshot nobody asked for untrusts the sid, even while another market awaits its snapshot", () => {
    const { network, delivered, socket } = setup()
    const link = network.last
    link.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    link.frame(snapshot(7, 2, "B", [["0.20", "1.00"]], []))
    link.frame(delta(7, 3, "C", "yes", "0.30", "1.00")) // C never snapshotted: asked for
    // seq 4–9 lost; an unrequested snapshot of B reveals it.
    link.frame(snapshot(7, 10, "B", [["0.20", "2.00"]], []))
    expect(JSON.parse(link.sent[link.sent.length - 1] ?? "null")).toMatchObject({ params: { sids: [7], market_tickers: ["A", "B", "C"], action: "get_snapshot" } })
    const before = delivered.length
    link.frame(delta(7, 11, "A", "yes", "0.40", "1.00")) // A untrusted now: held back
    expect(delivered.slice(before).filter((e) => e._tag === "BookDelta")).toEqual([])
    expect(socket.counters.snapshot()).toMatchObject({ gaps: 1 })
  })

  it("a refused subscribe: the session asks the socket to reconnect, and the backoff grows (no data came)", () => {
    const { time, network, socket } = setup()
    const refuse = () => network.last.frame(JSON.stringify({ id: 1, type: "error", msg: { code: 9, msg: "Authentication required" } }))
    refuse()
    expect(network.last.terminated).toBe(true)
    expect(socket.counters.snapshot().lastDisconnect?.reason).toBe("subscribe refused")
    const dials = network.links.length
    time.advance(125) // the test edge draws 0.5: the first retry after 125 ms
    expect(network.links.length).toBe(dials + 1)
    network.last.on.open()
    refuse()
    // The second waits 250 ms, not 125: an error frame is no data, so it did not reset the backoff.
    time.advance(125)
    expect(network.links.length).toBe(dials + 1)
    time.advance(125)
    expect(network.links.length).toBe(dials + 2)
    expect(socket.counters.snapshot().connects).toBe(2)
  })

  it("starts over after a reconnect: new subscription, sequence state dropped", () => {
    const { time, network, socket } = setup()
    network.last.frame(snapshot(7, 1, "A", [["0.40", "10.00"]], []))
    network.last.frame(delta(7, 2, "A", "yes", "0.40", "1.00"))
    network.last.on.closed("closed 1006")
    time.advance(1000)
    network.last.on.open()
    expect(network.last.sent.map((s) => JSON.parse(s).id)).toEqual([1, 2])
    // The new subscription's seq starts at 1 again: not a gap.
    network.last.frame(snapshot(1, 1, "A", [["0.40", "11.00"]], []))
    network.last.frame(delta(1, 2, "A", "yes", "0.40", "1.00"))
    expect(network.last.sent).toHaveLength(2)
    expect(socket.counters.snapshot()).toMatchObject({ gaps: 0, reconnects: 1, resyncs: 1 })
  })
})
