// Service configuration through Effect Config. A bad value stops the start with one line naming it.
import { Config, Option } from "effect"

/**
 * A whole number written as plain digits, from 0 to `max`: `Config.integer` would take "" as 0, "0x10" as 16
 * and "1e1" as 10.
 */
export const isWholeNumberText = (text: string, max: number): boolean => /^\d{1,10}$/.test(text) && Number(text) <= max

export const MAX_PORT = 65_535
export const portMessage = (name: string): string => `${name} must be a TCP port from 0 to ${MAX_PORT}`

const wholeNumber = (name: string, fallback: number, max: number, message: string) =>
  Config.string(name).pipe(
    Config.validate({ message, validation: (s) => isWholeNumberText(s, max) }),
    Config.map(Number),
    Config.withDefault(fallback),
  )

const port = (name: string, fallback: number) => wholeNumber(name, fallback, MAX_PORT, portMessage(name))

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
  /** Interface the HTTP server binds; unset = every interface. */
  host: Config.option(Config.string("HOST").pipe(
    Config.validate({ message: "HOST must name an interface address (it is empty)", validation: (s) => s.trim().length > 0 }),
  )),
  dataDir: Config.string("DATA_DIR").pipe(
    Config.validate({ message: "DATA_DIR must name a directory (it is empty)", validation: (s) => s.trim().length > 0 }),
    Config.withDefault("./data"),
  ),
  databaseUrl: url("DATABASE_URL", ["postgres", "postgresql"]),
  redisUrl: url("REDIS_URL", ["redis", "rediss"]),
  logLevel: LogLevelName,
  simPort: port("SIM_PORT", 8090),
  simSeed: wholeNumber("SIM_SEED", 42, 4_294_967_295, "SIM_SEED must be a whole number from 0 to 4294967295"),
  /** Base `ws://host:port` of the venues; unset = run the built-in simulator in-process on SIM_PORT. */
  venuesUrl: url("VENUES_URL", ["ws", "wss"]),
  historyDays: wholeNumber("HISTORY_DAYS", 30, 365, "HISTORY_DAYS must be an integer from 0 to 365"),
  /**
   * This node's name in the paper lease (DATABASE_URL only); unset = `<hostname>:<PORT>`, so a node
   * restarted with the same settings takes its lease back at once.
   */
  nodeId: Config.option(Config.string("NODE_ID").pipe(
    Config.validate({ message: "NODE_ID must be 1 to 200 characters", validation: (s) => s.length >= 1 && s.length <= 200 }),
  )),
  /** Where the other nodes reach this one's doors; unset = the address the server listens on. */
  nodeUrl: url("NODE_URL", ["http", "https"]),
  /** How long the paper lease lasts unrenewed (renewed every third of it): how soon another node takes over. */
  leaseSeconds: Config.string("PAPER_LEASE_SECONDS").pipe(
    Config.validate({ message: "PAPER_LEASE_SECONDS must be an integer from 1 to 300", validation: (s) => isWholeNumberText(s, 300) && Number(s) >= 1 }),
    Config.map(Number),
    Config.withDefault(10),
  ),
})
export type AppConfig = Config.Config.Success<typeof AppConfig>

export const isEmbedded = (config: AppConfig): boolean => Option.isNone(config.databaseUrl)
