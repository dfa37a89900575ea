// V8 flags the service runs with, set at start: bin/whalewatch.js applies them before anything else of the
// service is loaded, and the benches that measure the service in their own process apply them first too
// (bench/support/service-v8.ts).
//
// --no-allocation-site-pretenuring: V8 moves an allocation site to old space once most of what it makes
// outlives a young-generation GC, and never moves it back. Under load sites on the request path were
// pretenured (--trace-pretenuring-statistics shows them go "tenure" at ratio 1.0): their objects then
// began life in old space, where, dead or alive, they keep the young objects they point at alive through
// every scavenge until the next full GC. bench/gc-promotion.ts at 250 req/s: the door's scavenges copied ~800 KB each
// (2.6 ms pauses) with the default and ~200 KB (1.3 ms) without.
import { setFlagsFromString } from "node:v8"

export const V8_FLAGS: ReadonlyArray<string> = ["--no-allocation-site-pretenuring"]

export const applyV8Flags = (): void => {
  for (const flag of V8_FLAGS) setFlagsFromString(flag)
}
