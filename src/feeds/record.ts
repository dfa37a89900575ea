// `whalewatch record --venue V --out F.jsonl [--seconds N] [--url ws://host:port]`: connects to a
// venue's feed with the ordinary feed client and writes every raw frame, every frame the client
// sent and every connect/disconnect as JSONL (format: ./recording.ts), until N seconds pass or the
// process is interrupted. The recording replays through ./replay.ts into the same FeedEvents. The url
// defaults to the simulator on SIM_PORT (`whalewatch sim` or `serve` must be running); a venue never
// reached makes the exit code 1.
// The command only wires the client to a file; it decodes nothing itself (decoded counts are shown
// at the end, from the client's own counters).
import { closeSync, createWriteStream, openSync, type WriteStream } from "node:fs"
import { Console, Duration, Effect } from "effect"
import { UsageError } from "../command.js"
import { isWholeNumberText, MAX_PORT, portMessage } from "../config.js"
import { VENUES, type Venue } from "../domain/enums.js"
import { startFeeds, type FeedClient, type FeedClientOptions } from "./client.js"
import type { StreamName } from "./counters.js"
import { formatLine, lineOf } from "./recording.js"
import type { Tap } from "./socket.js"

/** A tap per connection that turns socket entries into recording lines. */
export const recordingTap = (write: (line: string) => void) =>
  (venue: Venue, stream: StreamName, conn: string): Tap =>
    (entry) => write(formatLine(lineOf({ venue, stream, conn }, entry)))

export interface RecordArgs {
  readonly venues: ReadonlyArray<Venue>
  readonly out: string
  readonly seconds: number | null
  readonly url: string
}

const USAGE = "usage: whalewatch record --venue <venue_a|venue_b|venue_b_us|venue_d|all> --out <file.jsonl> [--seconds N] [--url ws://host:port]"

/** Parses the command's arguments, or returns the one-line reason they are wrong. */
export const parseRecordArgs = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}): RecordArgs | string => {
  const venues: Array<Venue> = []
  let out: string | undefined
  let seconds: number | null = null
  const simPort = env["SIM_PORT"] ?? "8090"
  if (!isWholeNumberText(simPort, MAX_PORT)) return portMessage("SIM_PORT")
  let url = `ws://127.0.0.1:${simPort}`
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const [name, inline] = flag?.startsWith("--") === true && flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined]
    const value = (): string | undefined => inline ?? argv[++i]
    switch (name) {
      case "--venue": {
        const v = value()
        if (v === "all") venues.push(...VENUES)
        else if (v !== undefined && (VENUES as ReadonlyArray<string>).includes(v)) venues.push(v as Venue)
        else return `--venue must be one of ${VENUES.join(", ")} or all; ${USAGE}`
        break
      }
      case "--out": {
        out = value()
        if (out === undefined || out.length === 0) return "--out needs a file name"
        break
      }
      case "--seconds": {
        const n = Number(value())
        if (!(Number.isFinite(n) && n > 0)) return "--seconds must be a positive number"
        seconds = n
        break
      }
      case "--url": {
        const u = value()
        if (u === undefined || !/^wss?:\/\//.test(u)) return "--url must start with ws:// or wss://"
        url = u
        break
      }
      case "--help":
      case "-h":
        return USAGE
      default:
        return `unknown argument ${String(flag)}; ${USAGE}`
    }
  }
  if (venues.length === 0) return `--venue is required; ${USAGE}`
  if (out === undefined) return `--out is required; ${USAGE}`
  return { venues: [...new Set(venues)], out, seconds, url }
}

export interface Recording {
  readonly client: FeedClient
  /** Stops the client and closes the file (resolves once everything is written). */
  readonly stop: () => Promise<void>
}

/** Starts recording `options.venues` into `out`; the caller decides when to stop. */
export const startRecording = (out: string, options: Omit<FeedClientOptions, "tap" | "sink"> & { readonly sink?: FeedClientOptions["sink"] }): Recording => {
  const file: WriteStream = createWriteStream(out, { encoding: "utf8" })
  // A write that fails later (a full disk) is reported when the file is closed (`stop`), not thrown here.
  let failed: Error | null = null
  file.on("error", (error) => { failed ??= error })
  const tap = recordingTap((line) => file.write(`${line}\n`))
  const client = startFeeds({ ...options, sink: options.sink ?? (() => {}), tap })
  let stopped: Promise<void> | null = null
  return {
    client,
    stop: () => {
      stopped ??= new Promise<void>((resolve, reject) => {
        client.stop() // writes the final "disconnected" markers synchronously
        file.end((error?: Error | null) => (error ?? failed ? reject(error ?? failed) : resolve()))
      })
      return stopped
    },
  }
}

/**
 * The `record` command. Bad arguments (an unwritable `--out` among them) are a UsageError (one line, exit
 * 2). The recording stops when `--seconds` pass or when the command is interrupted (Ctrl-C, SIGTERM: the
 * CLI's runtime interrupts it), and either way what was received is written and summed up; a venue never
 * reached sets exit code 1.
 */
export const recordCommand = (argv: ReadonlyArray<string>): Effect.Effect<void, UsageError> =>
  Effect.gen(function* () {
    const args = parseRecordArgs(argv, process.env)
    if (args === USAGE) return yield* Console.log(USAGE)
    if (typeof args === "string") return yield* new UsageError({ message: args })
    const { out } = args
    yield* Effect.try({
      try: () => closeSync(openSync(out, "w")),
      catch: (error) => new UsageError({ message: `--out ${out} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})` }),
    })
    yield* Effect.acquireUseRelease(
      Effect.sync(() => startRecording(out, { baseUrl: args.url, venues: args.venues })),
      () => (args.seconds === null ? Effect.never : Effect.sleep(Duration.seconds(args.seconds))),
      (recording) => Effect.promise(() => recording.stop()).pipe(Effect.andThen(Effect.sync(() => summarize(recording, args)))),
    )
  })

const summarize = (recording: Recording, args: RecordArgs): void => {
  for (const h of recording.client.health()) {
    const rejected = Object.entries(h.rejected).map(([r, n]) => `${r} ×${n}`).join(", ")
    console.log(`${h.venue}: ${h.frames} frames, ${h.bytes} bytes, ${h.events} events, ${h.reconnects} reconnects, ${h.resyncs} resyncs${rejected.length > 0 ? `, rejected: ${rejected}` : ""}`)
  }
  console.log(`recorded to ${args.out}`)
  // Nothing listening (no simulator or server on SIM_PORT, a wrong --url): say so rather than succeed.
  const unreached = recording.client.health().filter((h) => h.connections.every((c) => c.connects === 0)).map((h) => h.venue)
  process.exitCode = unreached.length === 0 ? 0 : 1
  if (unreached.length > 0) {
    console.error(`whalewatch: could not connect to ${args.url} for ${unreached.join(", ")} (is the simulator or the venue running?)`)
  }
}
