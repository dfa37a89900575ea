// Service configuration through Effect Config. A bad value stops the start with one line naming it.
import { Config, Option } from "effect"

const port = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a TCP port from 0 to 65535`, validation: (n) => n >= 0 && n <= 65535 }),
  )

const url = (name: string, schemes: ReadonlyArray<string>) =>
  Config.option(
    Config.string(name).pipe(
      Config.validate({
        message: `${name} must be a URL starting with ${schemes.map((s) => `${s}://`).join(" or ")}`,
        validation: (s) => schemes.some((scheme) => s.startsWith(`${scheme}://`)),
      }),
    ),
  )

export const LogLevelName = Config.literal("trace", "debug", "info", "warn", "error", "fatal", "none")("LOG_LEVEL").pipe(
  Config.withDefault("info" as const),
)

export const AppConfig = Config.all({
  port: port("PORT", 8080),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseUrl: url("DATABASE_URL", ["postgres", "postgresql"]),
  redisUrl: url("REDIS_URL", ["redis", "rediss"]),
  logLevel: LogLevelName,
  simPort: port("SIM_PORT", 8090),
  simSeed: Config.integer("SIM_SEED").pipe(Config.withDefault(42)),
  /** Base `ws://host:port` of the venues; unset = run the built-in simulator in-process on SIM_PORT. */
  venuesUrl: url("VENUES_URL", ["ws", "wss"]),
  historyDays: Config.integer("HISTORY_DAYS").pipe(
    Config.withDefault(30),
    Config.validate({ message: "HISTORY_DAYS must be an integer from 0 to 365", validation: (n) => n >= 0 && n <= 365 }),
  ),
})
export type AppConfig = Config.Config.Success<typeof AppConfig>

export const isEmbedded = (config: AppConfig): boolean => Option.isNone(config.databaseUrl)
