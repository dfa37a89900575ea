// Migration 17: a change counter for authentication (src/store/keys-live.ts). `key_changes` holds one row
// whose `n` goes up, in the same transaction, whenever something an authentication result depends on
// changes: a key updated (revoked) or deleted, an account's subscription flag changed, an account deleted.
// Every lookup reads `n` in its own snapshot, and a node that sees `n` move drops what it cached before,
// so one cheap read a second (per node) replaces re-reading every key in use. Creating a key changes
// nothing a cached result says, so it does not count (a cached miss lasts 1 s on its own).
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE key_changes (id smallint PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)`
  yield* sql`INSERT INTO key_changes (id, n) VALUES (1, 0)`
  yield* sql.unsafe(`
    CREATE FUNCTION count_key_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE key_changes SET n = n + 1 WHERE id = 1;
      RETURN NULL;
    END
    $fn$`)
  yield* sql.unsafe(`CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION count_key_change()`)
  yield* sql.unsafe(`CREATE TRIGGER accounts_subscription_changed AFTER UPDATE ON accounts
    FOR EACH ROW WHEN (OLD.subscription_active IS DISTINCT FROM NEW.subscription_active) EXECUTE FUNCTION count_key_change()`)
  yield* sql.unsafe(`CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION count_key_change()`)
})
