// The MarketActor: one xstate v5 statechart per contract for its lifecycle (open → closed → settled |
// void; settle and void also straight from open). Market data arrives as ONE `feed.batch` event per
// frame or batch (never one per book level); the book, prices and bars live in a plain mutable
// MarketLive the actor owns (./market-live.ts holds that arithmetic). Outputs leave only by `emit`
// ({ type: <MarketEvent tag>, event }); the registry forwards them to the MarketBus. The actor never
// touches the clock, the database or the bus.
//
// How one batch with a lifecycle change inside is sequenced: `applyBatch` applies data inputs up to
// the first control input (listing, close, settle, void), then raises that control input as its own
// event followed by the rest of the batch; both are processed in the same macrostep, in order. So a
// trade after a settlement in the same frame is ignored exactly as in a later frame.
//
// The hot path skips the statechart: `applyDataDirect` applies a batch's data inputs (book, trades,
// ticker prices) straight to the actor's MarketLive, in the actor's current state, exactly as
// `applyBatch` would; only a batch holding a control input needs a `send` (from that input on). Data
// never changes the lifecycle, so the statechart sees every event that can change its state. A `send`
// costs microseconds; a book frame is applied in well under one (see the STACK notes).
import { type ActorRefFrom, assign, emit, enqueueActions, setup, type SnapshotFrom } from "xstate"
import type { MarketEvent, MarketInfo, MarketLifecycle, MarketRecord, MarketSide } from "../../domain/market-events.js"
import { type ControlInput, type MarketInput, MarketLive } from "./market-live.js"

/** What the actor emits: each MarketEvent under its own tag (listen with `actor.on("*", …)`). */
export type MarketEmitted = { readonly [K in MarketEvent["_tag"]]: { readonly type: K; readonly event: Extract<MarketEvent, { _tag: K }> } }[MarketEvent["_tag"]]

export type MarketCommand =
  | { readonly type: "feed.batch"; readonly inputs: ReadonlyArray<MarketInput> }
  | { readonly type: "market.listed"; readonly info: MarketInfo }
  | { readonly type: "market.close"; readonly ts: number }
  | { readonly type: "market.settle"; readonly ts: number; readonly winner: MarketSide }
  | { readonly type: "market.void"; readonly ts: number }

export interface MarketContext {
  readonly info: MarketInfo
  /** Book, prices and bars: mutated in place by `applyBatch`, never replaced. */
  readonly live: MarketLive
  readonly winner: MarketSide | null
  readonly closedAt: number | null
  readonly settledAt: number | null
  /** Set on a fresh listing: the actor announces itself (MarketOpened) when it starts. */
  readonly announce: boolean
  /** The lifecycle it was started in (a restore resumes there). */
  readonly start: MarketLifecycle
}

export interface MarketStart {
  /** The stored state to resume from (a fresh listing: status open, nothing else known). */
  readonly record: MarketRecord
  /** True for a fresh listing (emit MarketOpened), false when restored from the store. */
  readonly announce: boolean
  readonly barsKept?: number
}

/** A fresh listing's start. */
export const listedStart = (info: MarketInfo): MarketStart => ({
  record: { info, status: "open", winner: null, closedAt: null, settledAt: null, lastPrice: null, lastTradeAt: null },
  announce: true,
})

const controlEvent = (input: ControlInput): MarketCommand => {
  switch (input._tag) {
    case "listed": return { type: "market.listed", info: input.info }
    case "close": return { type: "market.close", ts: input.ts }
    case "settle": return { type: "market.settle", ts: input.ts, winner: input.winner }
    case "void": return { type: "market.void", ts: input.ts }
  }
}

const emitted = (event: MarketEvent): MarketEmitted => ({ type: event._tag, event }) as MarketEmitted

export const marketMachine = setup({
  types: {
    context: {} as MarketContext,
    input: {} as MarketStart,
    events: {} as MarketCommand,
    emitted: {} as MarketEmitted,
  },
  actions: {
    /** Data up to the first control input; that input and the rest are raised, in order. */
    applyBatch: enqueueActions(({ context, event, enqueue }, params: { readonly data: boolean }) => {
      if (event.type !== "feed.batch") return
      const out: Array<MarketEvent> = []
      const stop = context.live.applyData(context.info, event.inputs, 0, params.data, out)
      for (const e of out) enqueue.emit(emitted(e))
      const control = event.inputs[stop]
      if (control === undefined) return
      enqueue.raise(controlEvent(control as ControlInput))
      if (stop + 1 < event.inputs.length) enqueue.raise({ type: "feed.batch", inputs: event.inputs.slice(stop + 1) })
    }),
    updateInfo: assign({ info: ({ context, event }) => (event.type === "market.listed" ? event.info : context.info) }),
    announce: emit(({ context }) => emitted({ _tag: "MarketOpened", ts: context.info.listedAt, market: context.info })),
    close: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.close") return
      enqueue.assign({ closedAt: event.ts })
      enqueue.emit(emitted({ _tag: "MarketClosed", ts: event.ts, ref: context.info.ref }))
    }),
    settle: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.settle") return
      enqueue.assign({ winner: event.winner, settledAt: event.ts })
      enqueue.emit(emitted({ _tag: "MarketSettled", ts: event.ts, ref: context.info.ref, winner: event.winner }))
    }),
    void: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "market.void") return
      enqueue.assign({ settledAt: event.ts })
      enqueue.emit(emitted({ _tag: "MarketVoided", ts: event.ts, ref: context.info.ref }))
    }),
  },
  guards: {
    startsAs: ({ context }, params: { readonly status: MarketLifecycle }) => context.start === params.status,
    announces: ({ context }) => context.announce,
  },
}).createMachine({
  id: "market",
  context: ({ input }) => ({
    info: input.record.info,
    live: new MarketLive({
      lastPrice: input.record.lastPrice,
      lastTradeAt: input.record.lastTradeAt,
      ...(input.barsKept === undefined ? {} : { barsKept: input.barsKept }),
    }),
    winner: input.record.winner,
    closedAt: input.record.closedAt,
    settledAt: input.record.settledAt,
    announce: input.announce,
    start: input.record.status,
  }),
  initial: "starting",
  on: {
    "market.listed": { actions: "updateInfo" },
  },
  states: {
    /** Resumes the stored lifecycle; a fresh listing announces itself and opens. */
    starting: {
      always: [
        { guard: { type: "startsAs", params: { status: "closed" } }, target: "closed" },
        { guard: { type: "startsAs", params: { status: "settled" } }, target: "settled" },
        { guard: { type: "startsAs", params: { status: "void" } }, target: "void" },
        { guard: "announces", target: "open", actions: "announce" },
        { target: "open" },
      ],
    },
    open: {
      on: {
        "feed.batch": { actions: { type: "applyBatch", params: { data: true } } },
        "market.close": { target: "closed", actions: "close" },
        "market.settle": { target: "settled", actions: "settle" },
        "market.void": { target: "void", actions: "void" },
      },
    },
    /** Trading has stopped; late prints and book clearing still apply until the outcome is known. */
    closed: {
      on: {
        "feed.batch": { actions: { type: "applyBatch", params: { data: true } } },
        "market.settle": { target: "settled", actions: "settle" },
        "market.void": { target: "void", actions: "void" },
      },
    },
    /** Final in meaning, not in xstate (a done actor would refuse reads of later listings): data, closes and repeated settlements are ignored. */
    settled: {
      on: { "feed.batch": { actions: { type: "applyBatch", params: { data: false } } } },
    },
    void: {
      on: { "feed.batch": { actions: { type: "applyBatch", params: { data: false } } } },
    },
  },
})

export type MarketActor = ActorRefFrom<typeof marketMachine>
export type MarketSnapshot = SnapshotFrom<typeof marketMachine>

/**
 * Applies `inputs` up to the first control input straight to the actor's MarketLive (no `send`),
 * exactly as its `feed.batch` handler would in its current state, pushing what it would emit onto
 * `out`; returns that input's index (`inputs.length` when none). The caller sends the rest, from that
 * index, as a `feed.batch`. A stopped actor applies nothing (its `send`s are ignored too).
 */
export const applyDataDirect = (actor: MarketActor, inputs: ReadonlyArray<MarketInput>, out: Array<MarketEvent>): number => {
  const snapshot = actor.getSnapshot()
  if (snapshot.status !== "active") return 0
  const data = snapshot.value === "open" || snapshot.value === "closed"
  return snapshot.context.live.applyData(snapshot.context.info, inputs, 0, data, out)
}

/** The lifecycle a snapshot is in (`starting` never outlives the actor's start). */
export const lifecycleOf = (snapshot: MarketSnapshot): MarketLifecycle =>
  snapshot.value === "starting" ? "open" : snapshot.value

/** What a snapshot says of the contract, in stored form. */
export const recordOf = (snapshot: MarketSnapshot): MarketRecord => ({
  info: snapshot.context.info,
  status: lifecycleOf(snapshot),
  winner: snapshot.context.winner,
  closedAt: snapshot.context.closedAt,
  settledAt: snapshot.context.settledAt,
  lastPrice: snapshot.context.live.lastPrice,
  lastTradeAt: snapshot.context.live.lastTradeAt,
})
