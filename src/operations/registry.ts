// Every documented operation, once. Adding an operation = one file in src/operations + one line here;
// the HTTP door (and later MCP) serves exactly this list.
import type { AnyOperation } from "./operation.js"
import { createWebhook, deleteWebhook, listWebhooks } from "./webhooks.js"

export const registry = [
  createWebhook,
  listWebhooks,
  deleteWebhook,
] as const satisfies ReadonlyArray<AnyOperation>

export type Registry = typeof registry
