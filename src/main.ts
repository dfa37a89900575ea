// Composes the service's layers and runs it: configuration, storage (embedded PGlite or DATABASE_URL) with
// migrations, the one-time demo key, then the HTTP server until SIGINT/SIGTERM. Holds no logic; the
// command runner (src/command.ts) reports a failure to start as one line, never a stack trace.
import { SqlClient } from "@effect/sql"
import { hostname } from "node:os"
import { pathToFileURL } from "node:url"
import { Console, DateTime, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { runCommand } from "./command.js"
import { AppConfig, isEmbedded } from "./config.js"
import { makeHttpServer, serverUrl } from "./http/server.js"
import { FeedBus } from "./actors/bus.js"
import { MarketBus, MarketsLive } from "./actors/markets/market-bus.js"
import { FeedsLive } from "./feeds/live.js"
import { AccountsLive } from "./actors/accounts/registry.js"
import { MarketAlertsLive } from "./actors/alerts/market-alerts.js"
import { ExitRulesLive } from "./actors/exits/exit-rules.js"
import { BotsLive } from "./actors/bots/bots-live.js"
import { BacktestHistoryLive } from "./intel/backtest-store.js"
import { IntelBus, OrderedFeed } from "./intel/intel-bus.js"
import { RecentFeed } from "./intel/recent-feed.js"
import { Fanout } from "./sse/fanout.js"
import { StreamDoorLive } from "./sse/door.js"
import { makeMcpDoor } from "./mcp/door.js"
import { makeNodeDoor } from "./http/node-door.js"
import { leasedPaperActors, PaperLease } from "./nodes/paper-lease.js"
import { WebhooksLive } from "./webhooks/deliverer.js"
import { IntelLive } from "./intel/live.js"
import { Health } from "./operations/health.js"
import { CursorKey } from "./operations/paging.js"
import { registry } from "./operations/registry.js"
import { Counters } from "./store/counters.js"
import { Keys } from "./store/keys.js"
import { Settings } from "./store/settings.js"
import { StoreLive } from "./store/store-live.js"

/**
 * On the first start on the embedded default, a demo account and a read,write key, printed once on
 * stdout. The flag and the key commit together, so a crash in between prints it again next time.
 */
const issueDemoKey = Effect.gen(function* () {
  const config = yield* AppConfig
  if (!isEmbedded(config)) return
  const sql = yield* SqlClient.SqlClient
  const issuedAt = DateTime.formatIso(yield* DateTime.now)
  const created = yield* Effect.gen(function* () {
    if (!(yield* Settings.insertIfAbsent("demo_key_issued", issuedAt))) return Option.none()
    const keys = yield* Keys
    return Option.some(yield* keys.create({ account: "demo", scopes: ["read", "write"], subscription: true }))
  }).pipe(sql.withTransaction, Effect.orDie)
  if (Option.isSome(created)) {
    yield* Console.log(`demo API key (read,write): ${created.value.key}  (account "demo"; shown only once)`)
  }
})

/** Readiness of the database for GET /healthz. */
const DatabaseCheckLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const health = yield* Health
    const sql = yield* SqlClient.SqlClient
    yield* health.register(
      "database",
      sql`SELECT 1`.pipe(
        Effect.as({ ready: true, detail: "ok" }),
        Effect.orElseSucceed(() => ({ ready: false, detail: "database unreachable" })),
      ),
    )
  }),
)

const CursorKeyLive = Layer.effect(CursorKey, Effect.map(Settings.secret("cursor"), (hex) => ({ secret: Buffer.from(hex, "hex") })))

/** The doors on HOST:PORT (every interface when HOST is unset), announcing where they listen. */
const HttpLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    const listen = Option.match(config.host, { onNone: () => ({ port: config.port }), onSome: (host) => ({ port: config.port, host }) })
    const where = Option.isNone(config.host) ? " (every interface: set HOST=127.0.0.1 to keep it on this machine)" : ""
    // The paper lease (DATABASE_URL) learns where the other nodes reach this one once it listens, and at
    // shutdown is given up before the server closes (this layer's finalizer runs before the server's).
    const lease = Effect.serviceOption(PaperLease)
    return Layer.scopedDiscard(Effect.gen(function* () {
      const url = yield* serverUrl
      yield* Effect.logInfo(`whalewatch listening on ${url}${where}`)
      const found = yield* lease
      if (Option.isSome(found)) {
        yield* found.value.announce(url)
        yield* Effect.addFinalizer(() => found.value.resign)
      }
    })).pipe(
      Layer.provideMerge(makeHttpServer(registry, listen, Layer.mergeAll(StreamDoorLive, makeMcpDoor(registry), makeNodeDoor(registry)))),
    )
  }),
)

/**
 * Feeds → market actors → intelligence (backfill first), sharing the feed and market buses. Built in
 * that order: the market registry subscribes to the FeedBus before any feed connects, so no listing or
 * snapshot sent on connect is missed; intelligence waits for the feeds to backfill.
 */
const IngestLive = IntelLive.pipe(Layer.provideMerge(FeedsLive), Layer.provideMerge(MarketsLive))

/** The paper accounts and the actors that act on them (bots, market alerts, exit rules). */
// BotsLive records trader and signal bot fills on the paper accounts (the accounts layer is memoised: one instance).
const PaperActorsLive = Layer.mergeAll(
  AccountsLive,
  BotsLive.pipe(Layer.provide(AccountsLive)),
  MarketAlertsLive.pipe(Layer.provide(AccountsLive)),
  ExitRulesLive.pipe(Layer.provide(AccountsLive)),
)

/**
 * On one PostgreSQL shared by nodes (DATABASE_URL), the paper actors run on the holder of the paper lease
 * only (src/nodes/paper-lease.ts, which also gives the PaperOwner and PaperLease the doors look for); the
 * embedded store has one node by construction (its lock), which runs them. The webhooks (outbox and
 * sender), which the actors tell what happened, run on every node.
 */
const PaperLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  isEmbedded(config)
    ? PaperActorsLive
    : leasedPaperActors(PaperActorsLive, {
      // PORT=0 (a port drawn at each start) cannot tell two nodes on one host apart: the process then.
      nodeId: Option.getOrElse(config.nodeId, () => (config.port === 0 ? `${hostname()}:pid${process.pid}` : `${hostname()}:${config.port}`)),
      ttlMs: config.leaseSeconds * 1_000,
      ...Option.match(config.nodeUrl, { onNone: () => ({}), onSome: (url) => ({ url }) }),
    }))).pipe(Layer.provideMerge(WebhooksLive))

/**
 * The recent feed a node that takes the paper lease over gives the bots it restores (src/intel/recent-feed.ts):
 * kept on every node sharing a lease, for twice the lease plus 30 s (at least a minute) of feed time, so
 * it reaches back past a dead holder's last flush; off on the embedded store (one node).
 */
const RecentFeedLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  isEmbedded(config) ? RecentFeed.off : RecentFeed.layer(Math.max(60_000, 2 * config.leaseSeconds * 1_000 + 30_000))))

/** What the operations read and command: paper accounts, bots, backtest history, the stream's fan-out. */
const ServicesLive = Layer.mergeAll(
  PaperLive,
  BacktestHistoryLive,
  Fanout.live,
).pipe(
  Layer.provideMerge(IngestLive),
)

/** Everything that serves, over the store's services. */
const DoorsLive = Layer.mergeAll(HttpLive, DatabaseCheckLive).pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provide(Layer.mergeAll(Counters.live, CursorKeyLive, Health.layer, FeedBus.layer, MarketBus.layer, IntelBus.layer, OrderedFeed.layer, RecentFeedLive)),
)

const logLevels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
} as const

/** `whalewatch serve`: runs until interrupted; closing releases HTTP, then the pool, PGlite and the lock. */
export const serve: Effect.Effect<void, unknown> = Effect.gen(function* () {
  const config = yield* AppConfig
  const storage = Option.match(config.databaseUrl, {
    onNone: () => `embedded PostgreSQL in DATA_DIR ${config.dataDir}`,
    onSome: () => "PostgreSQL at DATABASE_URL",
  })
  // In order: storage (migrated), the demo key, then the doors; released in reverse.
  yield* Effect.gen(function* () {
    const store = yield* Layer.build(StoreLive("server"))
    yield* issueDemoKey.pipe(Effect.provide(store))
    yield* Effect.logInfo(`whalewatch storage ready (${storage})`)
    return yield* Layer.launch(DoorsLive.pipe(Layer.provide(Layer.succeedContext(store))))
  }).pipe(Effect.scoped, Logger.withMinimumLogLevel(logLevels[config.logLevel]))
})

// `node --import tsx src/main.ts` runs the service directly (the CLI's `serve` imports it instead).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) runCommand(serve)
