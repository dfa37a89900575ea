#!/usr/bin/env node
// The `whalewatch` command: runs the TypeScript sources through tsx, so a plain clone needs no build step.
import { register } from "tsx/esm/api"

register()
// The runtime's V8 flags first, before the service's code is loaded (src/v8-flags.ts says why).
const { applyV8Flags } = await import("../src/v8-flags.ts")
applyV8Flags()
await import("../src/cli.ts")
