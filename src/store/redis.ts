// The Redis connection (ioredis) as a scoped service: opened from a URL, closed with its scope.
// It owns the connection only; what is stored in Redis belongs to the services that use it (counters,
// bus, idempotency locks). Connection failures are defects: Redis is infrastructure, not an API error.
import { Context, Effect, Layer } from "effect"
import { Redis as IORedis } from "ioredis"

export class Redis extends Context.Tag("whalewatch/Redis")<Redis, IORedis>() {
  /** A connection to `url`, waited for at start (a wrong URL stops the start) and quit at scope end. */
  static readonly layer = (url: string): Layer.Layer<Redis> =>
    Layer.scoped(
      Redis,
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            // No retries until the first connection: an unreachable Redis stops the start with one line,
            // rather than ioredis's retries printing "Unhandled error event" traces. After it, ioredis
            // reconnects as usual (up to 2 s apart), and its errors are logged by the services using it.
            let ready = false
            let failure: Error | undefined
            const client = new IORedis(url, {
              lazyConnect: true, maxRetriesPerRequest: 3, retryStrategy: (times) => (ready ? Math.min(times * 100, 2_000) : null),
            })
            client.on("error", (error: Error) => { failure ??= error })
            client.once("ready", () => { ready = true })
            try {
              await client.connect()
            } catch (error) {
              client.disconnect()
              throw failure ?? error
            }
            return client
          },
          catch: (error) => new Error(`REDIS_URL ${redacted(url)}: cannot connect (${describeError(error)})`),
        }).pipe(Effect.orDie),
        (client) => Effect.promise(() => client.quit().catch(() => "closed")),
      ),
    )
}

/** The URL without its password, for a message. */
const redacted = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "(not a URL)"
  }
}

const describeError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message
  }
  return String(error)
}
