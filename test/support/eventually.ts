// Retries an assertion until it passes or `timeoutMs` runs out (then throws its last failure): for state a
// background fiber reaches a moment after the event that causes it (a watcher's sale, a flush).
export const eventually = async <A>(check: () => Promise<A> | A, timeoutMs = 5_000, everyMs = 10): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (performance.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, everyMs))
    }
  }
}

/** Resolves once `size()` is 0 (a queue or PubSub drained by its subscribers), or throws after `timeoutMs`. */
export const drained = (size: () => number, timeoutMs = 5_000) =>
  eventually(() => {
    if (size() !== 0) throw new Error(`still ${size()} waiting`)
  }, timeoutMs, 2)
