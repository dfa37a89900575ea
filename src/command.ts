// Runs one command of the `whalewatch` CLI as a process: a failure becomes one line on stderr and an exit
// code (1, or 2 for bad arguments), never a stack trace; SIGINT/SIGTERM interrupt the command so its
// finalizers run (HTTP, the pool, the PGlite worker, the lock file). Commands live in src/cli.ts.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Console, Data, Effect, Exit, Option } from "effect"

/** Raised by a command for bad arguments; exits with code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

const formatConfigError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${formatConfigError(error.left)}; ${formatConfigError(error.right)}`
    default: {
      const name = error.path.join(".")
      return error.message.startsWith(name) ? error.message : `${name}: ${error.message}`
    }
  }
}

/** Words for failures that carry no message of their own. */
const LABELS: Record<string, string> = { ServeError: "cannot start the HTTP server" }

const describe = (error: unknown): { readonly line: string; readonly code: number } => {
  if (error instanceof UsageError) return { line: `whalewatch: ${error.message}`, code: 2 }
  if (ConfigError.isConfigError(error)) {
    return { line: `whalewatch: invalid configuration: ${formatConfigError(error)}`, code: 1 }
  }
  if (error instanceof Error) {
    const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : error.name
    const head = error.message !== "" ? error.message : (LABELS[tag] ?? tag)
    const cause = "cause" in error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
    return { line: `whalewatch: ${head}${cause}`, code: 1 }
  }
  return { line: `whalewatch: ${String(error)}`, code: 1 }
}

/**
 * Runs a command to completion: its failure becomes one line on stderr and exit code 1 (2 for a
 * UsageError); SIGINT/SIGTERM interrupt it so its finalizers (HTTP, pool, PGlite worker, lock) run.
 */
export const runCommand = (command: Effect.Effect<void, unknown>): void =>
  NodeRuntime.runMain(
    command.pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.gen(function* () {
          const failure = Cause.failureOption(cause)
          const { line, code } = Option.isSome(failure)
            ? describe(failure.value)
            : describe(Option.getOrElse(Cause.dieOption(cause), () => Cause.pretty(cause)))
          yield* Console.error(line.split("\n")[0])
          yield* Effect.logDebug("failure cause", cause)
          process.exitCode = code
        })
      ),
    ),
    {
      disableErrorReporting: true,
      teardown: (exit) => {
        const code = Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : Number(process.exitCode ?? 0)
        // runMain leaves a zero exit to the event loop; a command is done, so do not wait for idle handles.
        process.exit(code)
      },
    },
  )
