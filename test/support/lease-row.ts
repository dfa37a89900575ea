// A write fence for tests (src/actors/write-fence.ts) and the lease row it is checked against: the suites
// that run the paper actors as on a node holding the lease, and move the row to see their writes refused.
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { LeaseLost, type WriteFenceService } from "../../src/actors/write-fence.js"

/** The lease row `name` naming `nodeId` at `epoch` (inserted for an hour, or moved there). */
export const leaseRow = (sql: SqlClient.SqlClient, name: string, nodeId: string, epoch: number) =>
  sql`
    INSERT INTO node_leases (name, node_id, url, epoch, expires_at) VALUES (${name}, ${nodeId}, NULL, ${epoch}, now() + interval '1 hour')
    ON CONFLICT (name) DO UPDATE SET node_id = EXCLUDED.node_id, epoch = EXCLUDED.epoch`

/** The fence of node "this-node" on lease `name`, at the epoch `epoch()` gives; refused by its own check when null. */
export const testFence = (name: string, epoch: () => number | null): WriteFenceService => ({
  token: Effect.suspend(() => {
    const at = epoch()
    return at === null
      ? Effect.fail(new LeaseLost({ message: "the lease is not surely this node's" }))
      : Effect.succeed({ name, nodeId: "this-node", epoch: at, idleMs: 1_000 })
  }),
})
