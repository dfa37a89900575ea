// Imported first by the benches that run the service's code in their own process, so they measure it with
// the V8 flags the service runs with (src/v8-flags.ts).
import { applyV8Flags } from "../../src/v8-flags.js"

applyV8Flags()
