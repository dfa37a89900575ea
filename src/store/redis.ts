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
        Effect.tryPromise(async () => {
          const client = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 3 })
          await client.connect()
          return client
        }).pipe(Effect.orDie),
        (client) => Effect.promise(() => client.quit().catch(() => "closed")),
      ),
    )
}
