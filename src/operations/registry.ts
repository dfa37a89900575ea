// Every documented operation, once. Adding an operation = one file in src/operations + one line here;
// the HTTP door (and later MCP) serves exactly this list.
import type { AnyOperation } from "./operation.js"

export const registry = [
] as const satisfies ReadonlyArray<AnyOperation>

export type Registry = typeof registry
