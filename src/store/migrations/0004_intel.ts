// Migration 4: whale intelligence. Whale trades (one row per whale trade, every trade-row field flat),
// named trades (every trade by a named trader: records, backtests, positions), moves, trader
// positions, settlements, the markets intel has seen, and how far each venue's history is backfilled.
// Times are epoch milliseconds (bigint `*_ms`): the pipeline's feed time, exact and zone-free. Ids are
// the stable ids of src/intel/ids.ts, so re-ingesting a feed upserts the same rows. `seq` is the
// pipeline's processing order: a restart replays trades and settlements in it.
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE intel_markets (
      ref text PRIMARY KEY,
      venue text NOT NULL,
      event text,
      title text NOT NULL,
      event_title text,
      category text,
      kind text,
      info jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'closed', 'settled', 'void')),
      result text,
      settled_at_ms bigint,
      listed_at_ms bigint NOT NULL
    )`
  yield* sql`CREATE INDEX intel_markets_event_idx ON intel_markets (event) WHERE event IS NOT NULL`
  yield* sql`
    CREATE TABLE whale_trades (
      id text PRIMARY KEY,
      seq bigint NOT NULL,
      trade_id text NOT NULL,
      tx_id text,
      time_ms bigint NOT NULL,
      venue text NOT NULL,
      market text NOT NULL,
      contract text NOT NULL,
      event text,
      title text NOT NULL,
      category text,
      kind text,
      outcome text NOT NULL,
      outcome_label text NOT NULL,
      action text NOT NULL CHECK (action IN ('buy', 'sell')),
      entry text CHECK (entry IN ('open', 'add', 'flip', 'trim', 'close')),
      price double precision NOT NULL,
      usd double precision NOT NULL,
      contracts double precision NOT NULL,
      trader text,
      trader_name text,
      trader_win_rate double precision,
      trader_profit double precision,
      trader_settled integer,
      same_trades integer NOT NULL,
      same_usd double precision NOT NULL,
      other_trades integer NOT NULL,
      other_usd double precision NOT NULL,
      result text NOT NULL CHECK (result IN ('open', 'win', 'loss', 'void')),
      profit double precision,
      settled_at_ms bigint
    )`
  yield* sql`CREATE INDEX whale_trades_time_idx ON whale_trades (time_ms DESC, id)`
  yield* sql`CREATE INDEX whale_trades_market_idx ON whale_trades (market, time_ms DESC)`
  yield* sql`CREATE INDEX whale_trades_contract_idx ON whale_trades (contract, time_ms DESC)`
  yield* sql`CREATE INDEX whale_trades_trader_idx ON whale_trades (trader, time_ms DESC) WHERE trader IS NOT NULL`
  yield* sql`CREATE INDEX whale_trades_scope_idx ON whale_trades (venue, category, kind, time_ms DESC)`
  yield* sql`CREATE INDEX whale_trades_usd_idx ON whale_trades (time_ms, usd)`
  yield* sql`CREATE INDEX whale_trades_seq_idx ON whale_trades (seq)`
  yield* sql`
    CREATE TABLE named_trades (
      id text PRIMARY KEY,
      seq bigint NOT NULL,
      trade_id text NOT NULL,
      tx_id text,
      time_ms bigint NOT NULL,
      venue text NOT NULL,
      trader text NOT NULL,
      trader_name text,
      market text NOT NULL,
      contract text NOT NULL,
      event text,
      category text,
      kind text,
      outcome text NOT NULL,
      outcome_label text NOT NULL,
      action text NOT NULL CHECK (action IN ('buy', 'sell')),
      entry text,
      price double precision NOT NULL,
      usd double precision NOT NULL,
      contracts double precision NOT NULL,
      whale boolean NOT NULL,
      result text NOT NULL,
      settled_at_ms bigint
    )`
  yield* sql`CREATE INDEX named_trades_trader_idx ON named_trades (trader, time_ms)`
  yield* sql`CREATE INDEX named_trades_contract_idx ON named_trades (contract)`
  yield* sql`CREATE INDEX named_trades_seq_idx ON named_trades (seq)`
  yield* sql`
    CREATE TABLE moves (
      id text PRIMARY KEY,
      time_ms bigint NOT NULL,
      type text NOT NULL CHECK (type IN ('move', 'flip', 'whales')),
      venue text NOT NULL,
      market text NOT NULL,
      contract text NOT NULL,
      event text,
      title text NOT NULL,
      category text,
      kind text,
      outcome text NOT NULL,
      price_before double precision,
      price_after double precision,
      minutes integer,
      traders integer,
      usd double precision,
      started_at_ms bigint NOT NULL,
      reached_at_ms bigint NOT NULL
    )`
  yield* sql`CREATE INDEX moves_time_idx ON moves (time_ms DESC, id)`
  yield* sql`CREATE INDEX moves_market_idx ON moves (market, time_ms DESC)`
  yield* sql`
    CREATE TABLE trader_positions (
      id text PRIMARY KEY,
      trader text NOT NULL,
      contract text NOT NULL,
      outcome text NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'reduced', 'exited', 'settled')),
      bought_contracts double precision NOT NULL,
      sold_contracts double precision NOT NULL,
      held_contracts double precision NOT NULL,
      usd double precision NOT NULL,
      sold_usd double precision,
      entry_price double precision,
      exit_price double precision,
      realized double precision NOT NULL,
      profit double precision,
      result text,
      opened_at_ms bigint NOT NULL,
      last_trade_at_ms bigint NOT NULL,
      last_bought_at_ms bigint NOT NULL,
      settled_at_ms bigint
    )`
  yield* sql`CREATE INDEX trader_positions_trader_idx ON trader_positions (trader, last_trade_at_ms DESC)`
  yield* sql`CREATE INDEX trader_positions_contract_idx ON trader_positions (contract)`
  yield* sql`
    CREATE TABLE intel_settlements (
      contract text PRIMARY KEY,
      seq bigint NOT NULL,
      status text NOT NULL CHECK (status IN ('settled', 'void')),
      winner text,
      time_ms bigint NOT NULL
    )`
  yield* sql`
    CREATE TABLE backfill_progress (
      venue text PRIMARY KEY,
      until_ms bigint NOT NULL
    )`
})
