// Paper orders and their idempotency keys in PostgreSQL (migrations 0005, 0018). Plain functions over
// SqlClient, like ./webhooks.ts. Writes are multi-row: the accounts layer hands every order waiting at that
// moment to `record` (group commit), one statement for all of them.
//
// Idempotency: a key is held on its order's row (`held_key`, unique per account while set), so a crash
// leaves an order with its key or neither, and a key's replay is its order (`paperOrderOf`). The
// `in_progress` marker of a request still running lives in the memory of the node that owns the account
// (actors are owned by one node: ARCHITECTURE, Scale); a stored marker would outlive a crash (kill -9) and
// answer 409 to the client's retry until some lease ran out. Two nodes racing on one key cannot both
// record: the unique index lets one row hold it, the other order is not inserted, and `record` reports
// which were. A key older than 24 hours is expired: the next order that uses it takes it over.
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import { type MarketObject, marketObjectInOrder } from "../domain/market-object.js"
import type { PaperOrder } from "../domain/paper.js"
import { isoOf } from "../intel/rows.js"
import type { HeldConnection } from "./held-connection.js"
import { LeaseLost, type LeaseToken, Leases, lostMessage } from "./leases.js"
import { jsonColumn, olderThan } from "./sql-helpers.js"

/** Keys are kept 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000

export interface StoredOrder {
  readonly id: string
  readonly accountId: string
  readonly seq: number
  readonly idempotencyKey: string | null
  readonly requestHash: string | null
  /** Contract ref. */
  readonly market: string
  readonly marketObject: MarketObject
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly contracts: number
  readonly avgPrice: number
  readonly cost: number
  readonly fee: number
  readonly unfilled: number
  /** Epoch ms. */
  readonly filledAt: number
  readonly profit: number | null
  readonly source: "hand" | "bot"
  readonly botId: string | null
  readonly botName: string | null
  /** A bot's fill: its id in bot_fill_outbox (recorded once whatever happens); null on a hand order. */
  readonly botFillId: string | null
}

export interface StoredKey {
  readonly requestHash: string
  /** What a replay of the key answers: the order that holds it. */
  readonly response: PaperOrder
}

interface OrderRow {
  readonly id: string
  readonly account_id: string
  readonly seq: number | string
  readonly idempotency_key: string | null
  readonly request_hash: string | null
  readonly market: string
  readonly market_object: unknown
  readonly outcome: string
  readonly action: "buy" | "sell"
  readonly contracts: number
  readonly avg_price: number
  readonly cost: number
  readonly fee: number
  readonly unfilled: number
  readonly filled_at: number | string
  readonly profit: number | null
  readonly source: "hand" | "bot"
  readonly bot_id: string | null
  readonly bot_name: string | null
  readonly bot_fill_id: string | null
}


const fromRow = (row: OrderRow): StoredOrder => ({
  id: row.id, accountId: row.account_id, seq: Number(row.seq), idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash, market: row.market, marketObject: marketObjectInOrder(jsonColumn(row.market_object) as MarketObject),
  outcome: row.outcome, action: row.action, contracts: row.contracts, avgPrice: row.avg_price, cost: row.cost,
  fee: row.fee, unfilled: row.unfilled, filledAt: Number(row.filled_at), profit: row.profit, source: row.source,
  botId: row.bot_id, botName: row.bot_name, botFillId: row.bot_fill_id,
})

/** The order as the API shows it (POST /v2/paper-orders answers it; a replay of its key answers it again). */
export const paperOrderOf = (o: StoredOrder): PaperOrder => ({
  id: o.id, market: o.marketObject, outcome: o.outcome, action: o.action, contracts: o.contracts,
  avgPrice: o.avgPrice, cost: o.cost, unfilledContracts: o.unfilled, filledAt: isoOf(o.filledAt),
})

const COLUMNS = `id, account_id, seq, idempotency_key, request_hash, market, market_object, outcome, action, contracts,
  avg_price, cost, fee, unfilled, filled_at, profit, source, bot_id, bot_name, bot_fill_id`

/**
 * The orders, one array per column, as one INSERT; the ids inserted. An order that would break a unique
 * index (its key held by another order, a bot fill already recorded, its place in the ledger taken) is
 * left out, the others go in. The text is a constant: the group commit runs it as a prepared statement
 * (src/store/held-connection.ts), and `record` with `sql.unsafe` (building it from a template with 20
 * interpolations cost ~0.45 ms an order, stop 18).
 */
const INSERT_INTO = `INSERT INTO paper_orders AS o (id, account_id, seq, idempotency_key, held_key, request_hash, market,
    market_object, outcome, action, contracts, avg_price, cost, fee, unfilled, filled_at, profit, source, bot_id, bot_name,
    bot_fill_id)
  SELECT t.id, t.account_id, round(t.seq)::bigint, t.key, t.key, t.hash, t.market, t.market_object::jsonb, t.outcome,
    t.action, t.contracts, t.avg_price, t.cost, t.fee, t.unfilled, round(t.filled_at)::bigint, t.profit, t.source, t.bot_id,
    t.bot_name, t.bot_fill_id
  FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::float8[], $17::text[],
    $18::text[], $19::text[], $20::text[])
    AS t (id, account_id, seq, key, hash, market, market_object, outcome, action, contracts, avg_price, cost, fee, unfilled,
      filled_at, profit, source, bot_id, bot_name, bot_fill_id)`

const INSERT_ORDERS = `${INSERT_INTO}
  ON CONFLICT DO NOTHING
  RETURNING o.id`

/**
 * The same, where nodes share the paper lease: written only while the lease row ($21 to $23) names this
 * node at its epoch, locked until the statement commits (src/actors/write-fence.ts). Refused, it inserts
 * nothing and answers one row whose id is null.
 */
const FENCED_INSERT_ORDERS = `${Leases.fenceClause(21)},
  inserted AS (${INSERT_INTO}
    WHERE EXISTS (SELECT 1 FROM fence)
    ON CONFLICT DO NOTHING
    RETURNING o.id)
  SELECT id FROM inserted
  UNION ALL SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM fence)`

/** Frees the keys (account, key pairs) whose holder filled before $3: they are expired. (A holder's key is its own.) */
const RELEASE_EXPIRED = `UPDATE paper_orders SET held_key = NULL
  WHERE held_key IS NOT NULL AND (account_id, held_key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND filled_at < $3
  RETURNING account_id, idempotency_key AS held_key`

/** Runs one constant statement (named, for a held connection's prepared statements) with $n parameters. */
type Run = <Row extends object>(name: string, text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>

/** The ids inserted; LeaseLost, with nothing inserted, when the store refuses `fence`. */
const insertOrders = (run: Run, orders: ReadonlyArray<StoredOrder>, fence: LeaseToken | null) => {
  const col = <A>(f: (o: StoredOrder) => A): Array<A> => orders.map(f)
  const columns = [
    col((o) => o.id), col((o) => o.accountId), col((o) => o.seq), col((o) => o.idempotencyKey), col((o) => o.requestHash),
    col((o) => o.market), col((o) => JSON.stringify(o.marketObject)), col((o) => o.outcome), col((o) => o.action),
    col((o) => o.contracts), col((o) => o.avgPrice), col((o) => o.cost), col((o) => o.fee), col((o) => o.unfilled),
    col((o) => o.filledAt), col((o) => o.profit), col((o) => o.source), col((o) => o.botId), col((o) => o.botName),
    col((o) => o.botFillId),
  ]
  if (fence === null) return run<{ id: string }>("ww_insert_paper_orders", INSERT_ORDERS, columns)
  return run<{ id: string | null }>("ww_insert_paper_orders_fenced", FENCED_INSERT_ORDERS, [...columns, fence.name, fence.nodeId, fence.epoch]).pipe(
    Effect.flatMap((rows) =>
      rows.length === 1 && rows[0]!.id === null
        ? Effect.fail(new LeaseLost({ message: lostMessage(fence) }))
        : Effect.succeed(rows as ReadonlyArray<{ id: string }>)),
  )
}

const pairOf = (accountId: string, key: string): string => `${accountId}\u0000${key}`

/**
 * Inserts orders with their keys; the ids actually inserted. An order whose key is already held
 * (unexpired) by another order is not inserted. Committed before it returns. The one INSERT is the whole
 * of it unless a keyed order was left out: then the keys among those whose holder has expired are freed
 * and those orders inserted (an expired key is taken over by the next order that uses it). With `fence`,
 * each INSERT is checked against the lease (src/actors/write-fence.ts): LeaseLost when refused.
 */
const recordWith = (run: Run) =>
  Effect.fnUntraced(function* (orders: ReadonlyArray<StoredOrder>, now: number, fence: LeaseToken | null = null) {
    const stored = new Set<string>()
    if (orders.length === 0) return stored
    for (const r of yield* insertOrders(run, orders, fence)) stored.add(r.id)
    const keyedOut = orders.filter((o) => o.idempotencyKey !== null && !stored.has(o.id))
    if (keyedOut.length === 0) return stored
    const freed = yield* run<{ account_id: string; held_key: string }>("ww_release_expired_keys", RELEASE_EXPIRED, [
      keyedOut.map((o) => o.accountId), keyedOut.map((o) => o.idempotencyKey), now - IDEMPOTENCY_RETENTION_MS,
    ])
    if (freed.length === 0) return stored
    const free = new Set(freed.map((r) => pairOf(r.account_id, r.held_key)))
    const retry = keyedOut.filter((o) => free.has(pairOf(o.accountId, o.idempotencyKey ?? "")))
    for (const r of yield* insertOrders(run, retry, fence)) stored.add(r.id)
    return stored
  }, Effect.catchTag("SqlError", Effect.die)) // every order's path: no span (each one provides and restores a service)

/** `record` on a held connection (the accounts layer's group commit: prepared statements, no pool checkout). */
const recordOn = (
  held: HeldConnection,
): ((orders: ReadonlyArray<StoredOrder>, now: number, fence?: LeaseToken | null) => Effect.Effect<ReadonlySet<string>, LeaseLost>) =>
  recordWith(held.execute)

/** `record` through the pool (tests and tools). */
const record = (
  orders: ReadonlyArray<StoredOrder>,
  now: number,
  fence: LeaseToken | null = null,
): Effect.Effect<ReadonlySet<string>, LeaseLost, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => recordWith((_name, text, params) => sql.unsafe(text, params))(orders, now, fence))

/** The key's first result, when it is held and younger than 24 hours. */
const findKey = (accountId: string, key: string, now: number): Effect.Effect<StoredKey | null, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<OrderRow>`
      SELECT ${sql.literal(COLUMNS)} FROM paper_orders
      WHERE account_id = ${accountId} AND held_key = ${key} AND filled_at >= ${now - IDEMPOTENCY_RETENTION_MS}`
    const row = rows[0]
    return row === undefined ? null : { requestHash: row.request_hash ?? "", response: paperOrderOf(fromRow(row)) }
  }).pipe(Effect.orDie, Effect.withSpan("PaperStore.findKey"))

/** A key held now (younger than 24 hours): whose, and when its order took it. */
export interface HeldKey {
  readonly accountId: string
  readonly key: string
  /** Epoch ms (the order's fill time). */
  readonly createdAt: number
}

/** The newest `limit` keys held at `now`, newest first: what the accounts layer's key index is rebuilt from. */
const loadKeys = (now: number, limit: number): Effect.Effect<ReadonlyArray<HeldKey>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly account_id: string; readonly held_key: string; readonly filled_at: number | string }>`
      SELECT account_id, held_key, filled_at FROM paper_orders
      WHERE held_key IS NOT NULL AND filled_at >= ${now - IDEMPOTENCY_RETENTION_MS}
      ORDER BY filled_at DESC LIMIT ${limit}`
    return rows.map((row) => ({ accountId: row.account_id, key: row.held_key, createdAt: Number(row.filled_at) }))
  }).pipe(Effect.orDie, Effect.withSpan("PaperStore.loadKeys"))

/** Every order, by account and sequence: what the accounts are rebuilt from. */
const loadAll: Effect.Effect<ReadonlyArray<StoredOrder>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<OrderRow>`
    SELECT ${sql.literal(COLUMNS)} FROM paper_orders ORDER BY account_id, seq`
  return rows.map(fromRow)
}).pipe(Effect.orDie, Effect.withSpan("PaperStore.loadAll"))

/**
 * An account's orders at or after `since`, newest first, strictly after the key `after`: its hand orders,
 * or its copies (fills of its trader and signal bots, `botId` narrowing to one bot; market bots' fills
 * belong to their bots, not here).
 */
const orders = Effect.fnUntraced(function* (options: {
  readonly accountId: string
  readonly kind: "hand" | "copies"
  readonly botId?: string | undefined
  readonly since: number | null
  readonly after: readonly [filledAt: number, id: string] | null
  readonly take: number
}) {
  const sql = yield* SqlClient.SqlClient
  const since = options.since ?? -1
  const source = options.kind === "hand"
    ? sql`source = 'hand'`
    : options.botId === undefined
    ? sql`source = 'bot' AND bot_id NOT LIKE 'market:%'`
    : sql`source = 'bot' AND bot_id NOT LIKE 'market:%' AND bot_id = ${options.botId}`
  const rows = yield* sql<OrderRow>`
    SELECT ${sql.literal(COLUMNS)} FROM paper_orders
    WHERE account_id = ${options.accountId} AND ${source} AND filled_at >= ${since}
      AND ${olderThan(sql, "filled_at", "id", options.after)}
    ORDER BY filled_at DESC, id DESC
    LIMIT ${options.take}`
  return rows.map(fromRow)
}, Effect.orDie, Effect.withSpan("PaperStore.orders"))

/** Frees the keys older than 24 hours (their orders stay, with the key they were placed with); how many. */
const purgeKeys = (now: number): Effect.Effect<number, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`
      UPDATE paper_orders SET held_key = NULL
      WHERE held_key IS NOT NULL AND filled_at < ${now - IDEMPOTENCY_RETENTION_MS} RETURNING id`
    return rows.length
  }).pipe(Effect.orDie, Effect.withSpan("PaperStore.purgeKeys"))

/** How many orders hold each key (tests and checks: exactly once). */
const countByKey = (accountId: string): Effect.Effect<ReadonlyMap<string, number>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ idempotency_key: string; n: number | string }>`
      SELECT idempotency_key, count(*) AS n FROM paper_orders
      WHERE account_id = ${accountId} AND idempotency_key IS NOT NULL GROUP BY idempotency_key`
    return new Map(rows.map((r) => [r.idempotency_key, Number(r.n)]))
  }).pipe(Effect.orDie, Effect.withSpan("PaperStore.countByKey"))

export const PaperStore = { record, recordOn, findKey, loadKeys, loadAll, orders, purgeKeys, countByKey } as const
