// Expiring integer counters keyed by string: the storage under every per-key limit (requests per minute,
// daily trade allowance, concurrent streams, spend cap). In process by default; in Redis when REDIS_URL
// is set, so several service nodes share one count. This file holds no limit policy: callers choose
// keys, windows and ceilings.
import { Clock, Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config.js"
import { Redis } from "./redis.js"

export interface CountersService {
  /**
   * Adds `n` (may be negative) and returns the new value, atomically. A key that did not exist starts
   * at 0 and expires `ttlSeconds` after this first write; later writes do not move the expiry, so a
   * key named after a window lives exactly as long as the window.
   */
  readonly incrBy: (key: string, n: number, ttlSeconds: number) => Effect.Effect<number>
  /** Subtracts `n`; never creates a key and never moves an expiry. Returns the new value (0 if gone). */
  readonly decrBy: (key: string, n: number) => Effect.Effect<number>
  /** The current value; 0 for a missing or expired key. */
  readonly get: (key: string) => Effect.Effect<number>
  /**
   * Adds `want` when the value stays ≤ `ceiling`, atomically; with `partial`, adds what room there is
   * instead (0 when none). Returns what was added and the value before. Nothing is added and taken back,
   * so a request at the edge never makes another one see the count inflated (as incrBy then decrBy did).
   * The expiry is set as incrBy sets it.
   */
  readonly take: (key: string, want: number, ceiling: number, ttlSeconds: number, partial: boolean) =>
    Effect.Effect<{ readonly taken: number; readonly before: number }>
}

export class Counters extends Context.Tag("whalewatch/Counters")<Counters, CountersService>() {
  /** In-process counters (one node). Expiry is read from Effect's Clock, so TestClock moves it. */
  static readonly memory: Layer.Layer<Counters> = Layer.sync(Counters, () => makeMemoryCounters())

  /**
   * Redis counters. `prefix` namespaces every key (tests use a per-run prefix so runs never collide).
   * INCRBY and the first EXPIRE run in one Lua script, so the expiry cannot be lost between the two.
   */
  static readonly redis = (options: { readonly prefix?: string } = {}): Layer.Layer<Counters, never, Redis> =>
    Layer.effect(Counters, Effect.map(Redis, (client) => makeRedisCounters(client, options.prefix ?? "ww:")))

  /** Redis when AppConfig.redisUrl is set, else in process. */
  static readonly live: Layer.Layer<Counters, import("effect/ConfigError").ConfigError> = Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      Option.match(config.redisUrl, {
        onNone: () => Counters.memory,
        onSome: (url) => Counters.redis().pipe(Layer.provide(Redis.layer(url))),
      })),
  )
}

const makeMemoryCounters = (): CountersService => {
  const entries = new Map<string, { value: number; expiresAt: number }>()
  const live = (key: string, now: number) => {
    const entry = entries.get(key)
    if (entry !== undefined && entry.expiresAt <= now) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  // Expired entries are swept at most once a second of clock time, so the map stays bounded by the
  // number of live windows without a timer.
  let lastSweep = 0
  const sweep = (now: number) => {
    if (now - lastSweep < 1000) return
    lastSweep = now
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key)
  }
  return {
    incrBy: (key, n, ttlSeconds) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        sweep(now)
        const entry = live(key, now)
        if (entry === undefined) {
          entries.set(key, { value: n, expiresAt: now + ttlSeconds * 1000 })
          return n
        }
        entry.value += n
        return entry.value
      }),
    decrBy: (key, n) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const entry = live(key, now)
        if (entry === undefined) return 0
        entry.value -= n
        return entry.value
      }),
    get: (key) => Effect.map(Clock.currentTimeMillis, (now) => live(key, now)?.value ?? 0),
    take: (key, want, ceiling, ttlSeconds, partial) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        sweep(now)
        const entry = live(key, now)
        const before = entry?.value ?? 0
        const taken = takenOf(want, ceiling - before, partial)
        if (taken > 0) {
          if (entry === undefined) entries.set(key, { value: taken, expiresAt: now + ttlSeconds * 1000 })
          else entry.value += taken
        }
        return { taken, before }
      }),
  }
}

/** What `take` adds: all of `want` when it fits the room, else the room (partial) or nothing. */
const takenOf = (want: number, room: number, partial: boolean): number =>
  want <= room ? Math.max(0, want) : partial ? Math.max(0, room) : 0

// The same rule as takenOf, in Redis: {taken, before}.
const TAKE = `
local want = tonumber(ARGV[1])
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
local room = tonumber(ARGV[2]) - before
local taken = 0
if want <= room then taken = want elseif ARGV[4] == '1' then taken = room end
if taken < 0 then taken = 0 end
if taken > 0 then
  redis.call('INCRBY', KEYS[1], taken)
  if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
end
return {taken, before}`

const INCR_WITH_FIRST_EXPIRY = `
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return v`

const DECR_IF_PRESENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('DECRBY', KEYS[1], ARGV[1])`

const makeRedisCounters = (client: Redis["Type"], prefix: string): CountersService => {
  const run = (script: string, key: string, ...args: ReadonlyArray<number>) =>
    Effect.tryPromise(() => client.eval(script, 1, prefix + key, ...args.map(String))).pipe(
      Effect.map(Number),
      Effect.orDie,
    )
  return {
    incrBy: (key, n, ttlSeconds) => run(INCR_WITH_FIRST_EXPIRY, key, n, Math.max(1, Math.ceil(ttlSeconds))),
    decrBy: (key, n) => run(DECR_IF_PRESENT, key, n),
    get: (key) =>
      Effect.tryPromise(() => client.get(prefix + key)).pipe(
        Effect.map((v) => (v === null ? 0 : Number(v))),
        Effect.orDie,
      ),
    take: (key, want, ceiling, ttlSeconds, partial) =>
      Effect.tryPromise(() =>
        client.eval(TAKE, 1, prefix + key, String(want), String(ceiling), String(Math.max(1, Math.ceil(ttlSeconds))), partial ? "1" : "0"),
      ).pipe(
        Effect.map((reply) => {
          const [taken, before] = reply as [number, number]
          return { taken: Number(taken), before: Number(before) }
        }),
        Effect.orDie,
      ),
  }
}
