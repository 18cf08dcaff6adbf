// The pipeline: the five chain stages (docs/architecture.md), run as the segments of the configured shape
// (shape.ts), plus `rejected`, the dead-letter topic's reader. `faultline start --only` runs a subset of
// segments, so each segment can also be its own process (segments meet only through the topics).
import type pg from 'pg';
import { databaseReady } from '../db/pool.js';
import type { ModelMap } from '../domain/model-replacement.js';
import { dedupStage } from './dedup/index.js';
import { enrichStage } from './enrich/index.js';
import { faultComputeStage } from './fault-compute/index.js';
import { notifyStage } from './notify/index.js';
import { persistStage } from './persist/index.js';
import { rejectedStage } from './rejected/index.js';
import { chainStages } from './runtime/chain.js';
import { groupName, runStage } from './runtime/runner.js';
import { storedBarrier } from './runtime/stored-barrier.js';
import type { Stage } from './runtime/stage.js';
import { withTestSeam } from './runtime/test-seam.js';
import type { Subscription, Transport } from './runtime/transport/transport.js';
import { CHAIN, type ChainStage } from '../config/pipeline-split.js';
import { loadSettings, type NotifySettings } from '../config/settings.js';
import { CHAIN_INPUT, segmentLabel, segmentsFor } from './shape.js';

export const STAGE_NAMES = [...CHAIN, 'rejected'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export interface PipelineOptions {
  transport: Transport;
  pool: pg.Pool;
  modelMap: ModelMap;
  lowCurrentA: number;
  /** notify's sweep and chunk bounds (Settings.notify); default: the settings' defaults. */
  notify?: NotifySettings;
  /** Where the chain is cut (shape.ts parseSplit); none: one chained segment. */
  split?: readonly ChainStage[];
  /** The stages this process runs (whole segments of the shape); default: all. */
  stages?: readonly StageName[];
  /** Attempts at a poison record before it is dead-lettered (runtime/runner.ts); default 5. */
  maxRecordAttempts?: number;
}

/**
 * Every stage, by name. Each reads a different record type (its input topic's schema); the map holds them
 * side by side as `Stage<never>`, which the runner accepts without knowing the type.
 */
export function buildStages({ transport, pool, modelMap, lowCurrentA, notify = loadSettings({}).notify, split = [] }: PipelineOptions): Record<StageName, Stage<never>> {
  // persist in a segment of its own: fault-compute reads from Postgres only what persist has stored
  // (docs/pipeline.md#state-across-a-cut); chained, persist commits in the batch that computed, and nothing waits.
  const stored = split.includes('persist')
    ? storedBarrier({ transport, stage: 'fault-compute', input: CHAIN_INPUT['fault-compute'], group: groupName('persist'), topic: CHAIN_INPUT.persist })
    : undefined;
  const stages = {
    enrich: enrichStage({ pool, modelMap }),
    dedup: dedupStage({ pool }),
    'fault-compute': faultComputeStage({ pool, rules: { modelMap, lowCurrentA }, ...(stored ? { stored } : {}) }),
    persist: persistStage({ pool }),
    notify: notifyStage({ pool, transport, ...notify }),
    rejected: rejectedStage({ pool }),
  } as Record<StageName, Stage<never>>;
  // Unchanged unless a test installed its hook in this process (runtime/test-seam.ts).
  return Object.fromEntries(Object.entries(stages).map(([name, stage]) => [name, withTestSeam(stage)])) as Record<StageName, Stage<never>>;
}

export interface Pipeline {
  /** By segment label (`enrich..notify`, `persist`, ...) in chain order, then `rejected`. */
  subscriptions: Map<string, Subscription>;
  stop(): Promise<void>;
}

/** The consumers this process runs: one per segment of the shape it was asked for, and `rejected`. */
export function pipelineConsumers(options: PipelineOptions): Stage<never>[] {
  const stages = buildStages(options);
  const wanted = new Set(options.stages ?? STAGE_NAMES);
  const segments = segmentsFor(new Set(CHAIN.filter((s) => wanted.has(s))), options.split ?? []);
  const consumers = segments.map((segment) => (segment.length === 1 ? stages[segment[0]!] : chainStages(segmentLabel(segment), segment.map((s) => stages[s]))));
  return wanted.has('rejected') ? [...consumers, stages.rejected] : consumers;
}

export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const consumers = pipelineConsumers(options);
  const subscriptions = new Map<string, Subscription>();
  // Downstream first, so each segment's output already has a reader when the upstream one starts.
  // A poison record is dead-lettered only while the database and the transport answer (runtime/runner.ts).
  const dependenciesUp = async () => (await databaseReady(options.pool)) && (await options.transport.ready());
  const run = { transport: options.transport, dependenciesUp, ...(options.maxRecordAttempts !== undefined ? { maxRecordAttempts: options.maxRecordAttempts } : {}) };
  for (const consumer of [...consumers].reverse()) subscriptions.set(consumer.name, await runStage(consumer, run));
  return {
    subscriptions: new Map(consumers.map((c) => [c.name, subscriptions.get(c.name)!])),
    async stop() {
      for (const consumer of consumers) await subscriptions.get(consumer.name)?.stop();
    },
  };
}
