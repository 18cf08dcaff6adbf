// The pipeline: every stage (docs/architecture.md) on one transport. `faultline start --only` runs a subset, so each
// stage can also be its own process (they meet only through the topics).
import type pg from 'pg';
import type { ModelMap } from '../domain/model-replacement.js';
import { dedupStage } from './dedup/index.js';
import { enrichStage } from './enrich/index.js';
import { faultComputeStage } from './fault-compute/index.js';
import { notifyStage } from './notify/index.js';
import { persistStage } from './persist/index.js';
import { rejectedStage } from './rejected/index.js';
import { runStage } from './runtime/runner.js';
import type { Stage } from './runtime/stage.js';
import type { Subscription, Transport } from './runtime/transport/transport.js';

export const STAGE_NAMES = ['enrich', 'dedup', 'fault-compute', 'persist', 'notify', 'rejected'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export interface PipelineOptions {
  transport: Transport;
  pool: pg.Pool;
  modelMap: ModelMap;
  lowCurrentA: number;
  stages?: readonly StageName[];
}

/**
 * Every stage, by name. Each reads a different record type (its input topic's schema); the map holds them
 * side by side as `Stage<never>`, which the runner accepts without knowing the type.
 */
export function buildStages({ transport, pool, modelMap, lowCurrentA }: PipelineOptions): Record<StageName, Stage<never>> {
  return {
    enrich: enrichStage({ pool, modelMap }),
    dedup: dedupStage({ pool }),
    'fault-compute': faultComputeStage({ pool, rules: { modelMap, lowCurrentA } }),
    persist: persistStage({ pool }),
    notify: notifyStage({ pool, transport }),
    rejected: rejectedStage({ pool }),
  } as Record<StageName, Stage<never>>;
}

export interface Pipeline {
  subscriptions: Map<StageName, Subscription>;
  stop(): Promise<void>;
}

export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const stages = buildStages(options);
  const subscriptions = new Map<StageName, Subscription>();
  // Downstream first, so each stage's output already has a reader when the upstream one starts.
  for (const name of [...(options.stages ?? STAGE_NAMES)].reverse()) {
    subscriptions.set(name, await runStage(stages[name], { transport: options.transport }));
  }
  return {
    subscriptions,
    async stop() {
      for (const name of options.stages ?? STAGE_NAMES) await subscriptions.get(name)?.stop();
    },
  };
}
