// The service as main.ts composes it (store, in-process simulator feeds, market actors) plus the paper
// accounts, serving the paper operations: the process the crash test kills with SIGKILL and restarts.
// It exists because main.ts does not provide Accounts yet (see the paper report); once it does, the
// crash test can spawn `bin/whalewatch.js serve` instead. Prints `listening on <url>`.
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AccountsLive } from "../../src/actors/accounts/registry.js"
import { FeedBus } from "../../src/actors/bus.js"
import { MarketBus, MarketsLive } from "../../src/actors/markets/market-bus.js"
import { runCommand } from "../../src/command.js"
import { AppConfig } from "../../src/config.js"
import { FeedsLive } from "../../src/feeds/live.js"
import { makeHttpServer, serverUrl } from "../../src/http/server.js"
import { Health } from "../../src/operations/health.js"
import { CursorKey } from "../../src/operations/paging.js"
import { getPaperAccount } from "../../src/operations/paper.js"
import { placePaperOrder } from "../../src/operations/paper-orders.js"
import { Counters } from "../../src/store/counters.js"
import { Settings } from "../../src/store/settings.js"
import { StoreLive } from "../../src/store/store-live.js"

const CursorKeyLive = Layer.effect(CursorKey, Effect.map(Settings.secret("cursor"), (hex) => ({ secret: Buffer.from(hex, "hex") })))

const Http = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Layer.effectDiscard(Effect.flatMap(serverUrl, (url) => Effect.sync(() => console.log(`listening on ${url}`)))).pipe(
    Layer.provideMerge(makeHttpServer([placePaperOrder, getPaperAccount], { port: config.port, host: "127.0.0.1" })),
  )))

const Services = AccountsLive.pipe(Layer.provideMerge(MarketsLive), Layer.provideMerge(FeedsLive))

const App = Http.pipe(
  Layer.provide(Services),
  Layer.provide(Layer.mergeAll(Counters.live, CursorKeyLive, Health.layer, FeedBus.layer, MarketBus.layer)),
  Layer.provide(StoreLive("server")),
)

runCommand(Layer.launch(App).pipe(Logger.withMinimumLogLevel(LogLevel.Warning)) as Effect.Effect<void, unknown>)
