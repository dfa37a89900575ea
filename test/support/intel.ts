// Intel over a pipeline the test feeds by hand: live reads from the pipeline's memory, whale trades from
// an index the test fills with what it persisted (`trades.upsert(changes.trades)`), as IntelLive does.
import { Effect } from "effect"
import { TRADES_WINDOW_DAYS } from "../../src/domain/limits.js"
import type { IntelService } from "../../src/intel/live.js"
import type { IntelPipeline } from "../../src/intel/pipeline.js"
import { TradeIndex } from "../../src/intel/trade-index.js"
import { marketCall, marketFigures, winningPositionRows } from "../../src/intel/views.js"

export const intelOf = (pipeline: IntelPipeline, trades = new TradeIndex(TRADES_WINDOW_DAYS)): IntelService => ({
  pipeline,
  trades,
  now: () => pipeline.now,
  market: (ref) => marketFigures(pipeline, ref),
  marketRefs: () => pipeline.marketRefs(),
  positions: Effect.sync(() => winningPositionRows(pipeline)),
  call: (ref) => Effect.sync(() => marketCall(pipeline, ref)),
  summary: (trader, category, kind) => pipeline.summary(trader, category, kind),
  record: (trader, category, kind) => pipeline.recordRow(trader, category, kind),
  backfill: () => ({ _tag: "done", rows: 0, ms: 0 }),
})
