// Migration 16: a bot's fills reach its paper account exactly once, crash or not. A flush stores the bots'
// snapshots and trades together with their fills in `bot_fill_outbox` (one transaction); each fill is then
// recorded as a paper order carrying the fill's id (`paper_orders.bot_fill_id`, unique), and its outbox row
// deleted. A start records every outbox row no paper order carries yet (src/actors/bots/bots-live.ts), so a
// kill -9 between the bot's save and its paper order no longer leaves a bot trade the account never saw.
// record_paper_orders (migration 12) takes the fill ids and skips a fill already recorded.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE paper_orders ADD COLUMN bot_fill_id text`
  yield* sql`CREATE UNIQUE INDEX paper_orders_bot_fill ON paper_orders (bot_fill_id) WHERE bot_fill_id IS NOT NULL`
  yield* sql`
    CREATE TABLE bot_fill_outbox (
      id text PRIMARY KEY,
      n bigserial NOT NULL,
      account_id text NOT NULL,
      fill jsonb NOT NULL
    )`
  yield* sql.unsafe(`DROP FUNCTION record_paper_orders(text[], text[], float8[], text[], text[], text[], text[], text[], text[],
    float8[], float8[], float8[], float8[], float8[], float8[], float8[], text[], text[], text[], text[], bigint)`)
  yield* sql.unsafe(`
    CREATE FUNCTION record_paper_orders(
      p_id text[], p_account text[], p_seq float8[], p_key text[], p_hash text[], p_market text[], p_market_object text[],
      p_outcome text[], p_action text[], p_contracts float8[], p_avg_price float8[], p_cost float8[], p_fee float8[],
      p_unfilled float8[], p_filled_at float8[], p_profit float8[], p_source text[], p_bot_id text[], p_bot_name text[],
      p_response text[], p_bot_fill text[], p_expired bigint
    ) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
    BEGIN
      RETURN QUERY
      WITH input AS (
        SELECT * FROM unnest(p_id, p_account, p_seq, p_key, p_hash, p_market, p_market_object, p_outcome, p_action,
          p_contracts, p_avg_price, p_cost, p_fee, p_unfilled, p_filled_at, p_profit, p_source, p_bot_id, p_bot_name, p_response,
          p_bot_fill)
          AS t (id, account_id, seq, idempotency_key, request_hash, market, market_object, outcome, action, contracts,
            avg_price, cost, fee, unfilled, filled_at, profit, source, bot_id, bot_name, response, bot_fill_id)
      ),
      keys AS (
        INSERT INTO idempotency_keys AS k (account_id, key, request_hash, status, response, created_at)
        SELECT i.account_id, i.idempotency_key, i.request_hash, 'done', i.response::jsonb, round(i.filled_at)::bigint
        FROM input i WHERE i.idempotency_key IS NOT NULL
        ON CONFLICT (account_id, key) DO UPDATE SET
          request_hash = EXCLUDED.request_hash, status = 'done', response = EXCLUDED.response, created_at = EXCLUDED.created_at
        WHERE k.created_at < p_expired
        RETURNING k.account_id, k.key
      )
      INSERT INTO paper_orders AS o (id, account_id, seq, idempotency_key, request_hash, market, market_object, outcome, action,
        contracts, avg_price, cost, fee, unfilled, filled_at, profit, source, bot_id, bot_name, bot_fill_id)
      SELECT i.id, i.account_id, round(i.seq)::bigint, i.idempotency_key, i.request_hash, i.market, i.market_object::jsonb,
        i.outcome, i.action, i.contracts, i.avg_price, i.cost, i.fee, i.unfilled, round(i.filled_at)::bigint, i.profit,
        i.source, i.bot_id, i.bot_name, i.bot_fill_id
      FROM input i
      WHERE (i.idempotency_key IS NULL
          OR EXISTS (SELECT 1 FROM keys WHERE keys.account_id = i.account_id AND keys.key = i.idempotency_key))
        AND (i.bot_fill_id IS NULL OR NOT EXISTS (SELECT 1 FROM paper_orders p WHERE p.bot_fill_id = i.bot_fill_id))
      RETURNING o.id;
    END
    $fn$`)
})
