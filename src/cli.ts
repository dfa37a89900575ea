// The `whalewatch` command line: a small dispatch table of commands. `serve` (the default) runs the service;
// `key` manages API keys through the running server's database (or the data dir itself when none runs).
// Output is JSON lines on stdout; a bad argument is one line on stderr and exit code 2; `help` (or
// `--help`, `-h`, also after a command) prints the usage on stdout and exits 0.
import { parseArgs } from "node:util"
import { Console, Effect, Logger, LogLevel } from "effect"
import { Scope } from "./domain/enums.js"
import { runCommand, UsageError } from "./command.js"
import { Keys } from "./store/keys.js"
import { StoreLive } from "./store/store-live.js"

type Command = (args: ReadonlyArray<string>) => Effect.Effect<void, unknown>

const parse = <const O extends NonNullable<Parameters<typeof parseArgs>[0]>["options"]>(
  args: ReadonlyArray<string>,
  options: O,
  usage: string,
) =>
  Effect.try({
    try: () => parseArgs({ args: [...args], options, allowPositionals: true, strict: true }),
    catch: (error) => new UsageError({ message: `${(error as Error).message.split("\n")[0]}; usage: ${usage}` }),
  })

/** Commands that touch only the database log to stderr, so stdout stays pure JSON lines. */
const withStore = <A, E>(effect: Effect.Effect<A, E, Keys>) =>
  effect.pipe(
    Effect.provide(StoreLive("cli")),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
  )

const json = (value: unknown) => Console.log(JSON.stringify(value))

const CREATE_USAGE = "whalewatch key create --scopes read,write [--account NAME] [--no-subscription]"

const keyCreate: Command = (args) =>
  Effect.gen(function* () {
    const { values, positionals } = yield* parse(args, {
      scopes: { type: "string" },
      account: { type: "string" },
      "no-subscription": { type: "boolean" },
    }, CREATE_USAGE)
    if (positionals.length > 0) return yield* new UsageError({ message: `unexpected argument ${positionals[0]}; usage: ${CREATE_USAGE}` })
    if (values.scopes === undefined) return yield* new UsageError({ message: `--scopes is required; usage: ${CREATE_USAGE}` })
    const scopes = values.scopes.split(",").map((scope) => scope.trim())
    const unknown = scopes.filter((scope) => !Scope.literals.some((known) => known === scope))
    if (scopes.length === 0 || unknown.length > 0) {
      return yield* new UsageError({ message: `--scopes must list read and/or write, comma-separated (got "${values.scopes}")` })
    }
    const account = values.account ?? "default"
    if (account.trim().length === 0 || account.length > 100) {
      return yield* new UsageError({ message: "--account must be a name of 1 to 100 characters" })
    }
    const created = yield* withStore(Effect.flatMap(Keys, (keys) =>
      keys.create({
        account,
        scopes: Scope.literals.filter((scope) => scopes.includes(scope)),
        subscription: values["no-subscription"] !== true,
      })))
    yield* json({ key: created.key, keyId: created.keyId, account: created.account, scopes: created.scopes })
  })

const keyList: Command = (args) =>
  Effect.gen(function* () {
    const { positionals } = yield* parse(args, {}, "whalewatch key list")
    if (positionals.length > 0) return yield* new UsageError({ message: "usage: whalewatch key list" })
    const listing = yield* withStore(Effect.flatMap(Keys, (keys) => keys.list()))
    for (const key of listing) yield* json(key)
  })

const keyRevoke: Command = (args) =>
  Effect.gen(function* () {
    const { positionals } = yield* parse(args, {}, "whalewatch key revoke KEY_ID")
    const keyId = positionals[0]
    if (keyId === undefined || positionals.length > 1) return yield* new UsageError({ message: "usage: whalewatch key revoke KEY_ID" })
    const revoked = yield* withStore(Effect.flatMap(Keys, (keys) => keys.revoke(keyId)))
    if (!revoked) return yield* Effect.fail(new Error(`no live key ${keyId}`))
    yield* json({ keyId, revoked: true })
  })

const keyCommands: Record<string, Command> = { create: keyCreate, list: keyList, revoke: keyRevoke }

const key: Command = ([sub, ...rest]) => {
  const command = sub === undefined ? undefined : keyCommands[sub]
  return command === undefined
    ? Effect.fail(new UsageError({ message: `usage: whalewatch key create|list|revoke ...` }))
    : command(rest)
}

// Loaded on demand: the doors' modules are not needed by the other commands.
const serve: Command = (args) =>
  args.length > 0
    ? Effect.fail(new UsageError({ message: `serve takes no arguments (got ${args[0]})` }))
    : Effect.flatMap(Effect.promise(() => import("./main.js")), (main) => main.serve)

/** `whalewatch sim`: the venue simulator alone on SIM_PORT (a fake venue any client can use). */
const sim: Command = (args) =>
  args.length > 0
    ? Effect.fail(new UsageError({ message: `sim takes no arguments; configure it with SIM_PORT, SIM_SEED, HISTORY_DAYS (got ${args[0]})` }))
    : Effect.flatMap(Effect.promise(() => import("./sim/serve.js")), (module) => module.serveSim)

/** `whalewatch record --venue V --out F.jsonl [--seconds N] [--url ws://host:port]`. */
const record: Command = (args) =>
  Effect.flatMap(Effect.promise(() => import("./feeds/record.js")), (module) => module.recordCommand(args))

const USAGE = [
  "usage: whalewatch <command>",
  "  serve                                            run the service (the default; configured by environment variables)",
  `  ${CREATE_USAGE.replace("whalewatch ", "")}`,
  "  key list                                         list keys (never the key text)",
  "  key revoke KEY_ID                                revoke a key (KEY_ID as printed by key create and key list)",
  "  sim                                              the venue simulator alone on SIM_PORT",
  "  record --venue V|all --out F.jsonl [--seconds N] [--url ws://host:port]",
  "                                                   record a venue feed (default url: the simulator on SIM_PORT)",
  "  help                                             this text",
].join("\n")

const help: Command = () => Console.log(USAGE)

const commands: Record<string, Command> = { serve, key, sim, record, help }

const HELP_FLAGS: ReadonlySet<string> = new Set(["help", "--help", "-h"])

/** Options whose next argument is their value (so `--account help` names an account, not a help request). */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(["--scopes", "--account"])

const [name = "serve", ...rest] = process.argv.slice(2)
// `whalewatch --help`, `whalewatch <command> --help` (or -h) for every command but record (which prints its
// own), and `whalewatch key help`; never an option's value or a positional argument such as a key id.
const asksHelp = HELP_FLAGS.has(name) || (name !== "record" && (
  rest.some((arg, i) => (arg === "--help" || arg === "-h") && !VALUE_OPTIONS.has(rest[i - 1] ?? "")) ||
  (name === "key" && rest[0] === "help")
))
const command = asksHelp ? help : commands[name]
runCommand(
  command === undefined
    ? Effect.fail(new UsageError({ message: `unknown command ${name}; commands: ${Object.keys(commands).join(", ")} (whalewatch help)` }))
    : command(rest),
)
