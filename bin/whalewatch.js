#!/usr/bin/env node
// The `whalewatch` command: runs the TypeScript sources through tsx, so a plain clone needs no build step.
import { register } from "tsx/esm/api"

register()
await import("../src/cli.ts")
