// The schedule both load generators keep (load-worker.mjs, raw-load-worker.mjs): open loop at `rate`
// requests a second (a request leaves on schedule whatever the answers; its latency counts from the
// scheduled time), or, at rate 0, a closed loop of `connections` clients each sending as soon as its
// last answer came. `one(t0)` sends the next request and ends once it is answered; `issued()` says how
// many have left. Ends at `requests` or after `seconds`.
export const drive = async (options, one, issued) => {
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  if (options.rate > 0) {
    const pending = []
    while (issued() < options.requests && performance.now() < deadline) {
      const due = started + (issued() * 1000) / options.rate
      const wait = due - performance.now()
      if (wait > 1) await new Promise((r) => setTimeout(r, wait))
      pending.push(one(Math.min(due, performance.now()))) // a departure up to 1 ms early counts from itself
    }
    await Promise.all(pending)
  } else {
    const connection = async () => {
      while (issued() < options.requests && performance.now() < deadline) await one(performance.now())
    }
    await Promise.all(Array.from({ length: options.connections }, connection))
  }
  return performance.now() - started
}
