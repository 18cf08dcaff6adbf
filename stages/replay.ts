// Replay (docs/decisions.md#replay): re-read fi.raw.v1 from a time through a second enrich consumer under its
// own consumer group, so the live groups keep their offsets. Its output joins fi.enriched.v1 and the running
// stages treat it like any other record: stored rows meet their unique keys and stay as they are, and notify
// sends nothing for records marked `source: replay`. With `reprocess`, persist rewrites the derived columns of
// the stored rows (model, Ongoing_fault, ActualOngoingFault) with the current rules.
//
// Two phases, each reported: reading (this process re-reads the range that existed when it started, no more:
// a record appended later is live traffic and must be notified as such), then applying (the running pipeline's
// dedup, fault-compute, persist and notify groups catch up with what was re-read). The replay's consumer group
// is deleted when it ends, fails or is interrupted, so no group is left behind to raise lag alarms.
import type pg from 'pg';
import type { ModelMap } from '../domain/model-replacement.js';
import { TOPICS } from '../schemas/avro/topics.js';
import { enrichStage } from './enrich/index.js';
import { runStage } from './runtime/runner.js';
import type { Transport } from './runtime/transport/transport.js';
import { REPLAY_SOURCE, REPROCESS_SOURCE } from './runtime/sources.js';

/** The live stages a replayed record passes after enrich, each with the topic it reads. */
const DOWNSTREAM = [
  { stage: 'dedup', topic: TOPICS.enriched },
  { stage: 'fault-compute', topic: TOPICS.deduped },
  { stage: 'persist', topic: TOPICS.computed },
  { stage: 'notify', topic: TOPICS.persisted },
] as const;

export type ReplayProgress =
  | { phase: 'reading'; reread: number; total: number }
  | { phase: 'applying'; stage: string; behind: bigint };

export interface ReplayOptions {
  transport: Transport;
  pool: pg.Pool;
  modelMap: ModelMap;
  /** ms since the epoch of the broker's append time (not the device's time); 0 replays the whole retained log. */
  from: number;
  /** Recompute the derived columns of stored check-ins with the rules now running. Customers are not notified. */
  reprocess?: boolean;
  onProgress?: (progress: ReplayProgress) => void;
  pollMs?: number;
  /** How long to wait for the running pipeline to apply what was re-read. */
  applyTimeoutMs?: number;
  /** Aborting stops the replay where it is (the group is still removed). */
  signal?: AbortSignal;
  /** Prefix of the live consumer groups (the runner's default). */
  groupPrefix?: string;
}

export interface ReplayResult {
  /** Records of fi.raw.v1 in the range when the replay started. */
  total: number;
  reread: number;
  /** Of those, refused by enrich (dead-lettered again). */
  deadLettered: number;
  /** Handed on to the running pipeline (reread - deadLettered). */
  forwarded: number;
  /** Of those, processed by every live stage: equals forwarded once the pipeline caught up. */
  applied: number;
  caughtUp: boolean;
  /** The replay's consumer group, removed at the end. */
  group: string;
}

export class ReplayError extends Error {
  constructor(readonly code: 'NO_PIPELINE' | 'INTERRUPTED', message: string, readonly partial?: Omit<ReplayResult, 'caughtUp'>) {
    super(message);
  }
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

const behindOf = (lag: { partition: number; next: string }[], targets: Map<number, bigint>) =>
  lag.reduce((sum, p) => {
    const end = targets.get(p.partition) ?? 0n;
    const next = BigInt(p.next);
    return sum + (end > next ? end - next : 0n);
  }, 0n);

export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const { transport, pool, modelMap, from, reprocess = false, onProgress, pollMs = 500, applyTimeoutMs = 600_000, signal, groupPrefix = 'faultline' } = options;

  // Without the live stages a replayed record would wait in fi.enriched.v1 with nobody to apply it.
  const idle: string[] = [];
  for (const { stage } of DOWNSTREAM) if ((await transport.groupMembers(`${groupPrefix}.${stage}`)) === 0) idle.push(stage);
  if (idle.length) {
    throw new ReplayError('NO_PIPELINE', `no running pipeline: consumer group${idle.length > 1 ? 's' : ''} ${idle.map((s) => `${groupPrefix}.${s}`).join(', ')} ha${idle.length > 1 ? 've' : 's'} no member. Start the service (faultline start, or its dedup, fault-compute, persist and notify stages) on this Kafka first; nothing was re-read`);
  }

  const range = await transport.topicRange(TOPICS.raw, from);
  const ends = new Map(range.map((r) => [r.partition, BigInt(r.end)]));
  const empty = new Set(range.filter((r) => BigInt(r.start) >= BigInt(r.end)).map((r) => r.partition));
  const total = range.reduce((sum, r) => sum + Number(BigInt(r.end) - BigInt(r.start)), 0);
  const group = `${groupPrefix}.replay-${Date.now()}`;
  let reread = 0;
  let deadLettered = 0;
  const tally = () => ({ total, reread, deadLettered, forwarded: reread - deadLettered, applied: 0, group });
  if (total === 0) return { ...tally(), caughtUp: true };

  const enrich = enrichStage({ pool, modelMap, source: reprocess ? REPROCESS_SOURCE : REPLAY_SOURCE });
  // Only the range that existed at the start: later records are live traffic for the live enrich. A batch
  // delivered again (its send failed) is counted once: `counted` is the next offset not yet counted.
  const counted = new Map<number, bigint>();
  const bounded = { ...enrich, handle: async (batch: Parameters<typeof enrich.handle>[0]) => {
    const end = ends.get(batch.partition) ?? 0n;
    const messages = batch.messages.filter((m) => BigInt(m.offset) < end);
    const result = await enrich.handle({ ...batch, messages });
    const last = messages.at(-1);
    return { ...result, onSent: () => {
      result.onSent?.();
      const fresh = messages.filter((m) => BigInt(m.offset) >= (counted.get(batch.partition) ?? 0n));
      const freshIds = new Set(fresh.map((m) => m.value.messageId));
      reread += fresh.length;
      deadLettered += result.deadLetters.filter((l) => freshIds.has(l.messageId)).length;
      if (last) counted.set(batch.partition, BigInt(last.offset) + 1n);
    } };
  } };

  const subscription = await runStage(bounded, { transport, groupPrefix: group, fromTimestamp: from });
  try {
    for (;;) {
      onProgress?.({ phase: 'reading', reread, total });
      if (signal?.aborted) throw new ReplayError('INTERRUPTED', `interrupted after re-reading ${reread} of ${total} records`, tally());
      // A partition with nothing in the range gets no commit from the replay's group: it is done from the start.
      const lag = await subscription.lag();
      if (lag.every((p) => BigInt(p.next) >= (ends.get(p.partition) ?? 0n) || empty.has(p.partition))) break;
      await sleep(pollMs, signal);
    }
  } finally {
    await subscription.stop();
    await transport.deleteGroup(`${group}.enrich`);
  }
  onProgress?.({ phase: 'reading', reread, total });

  // Applying: each live stage in turn reaches the end its input had once the stage before it caught up.
  const deadline = Date.now() + applyTimeoutMs;
  for (const { stage, topic } of DOWNSTREAM) {
    const targets = new Map((await transport.groupLag(`${groupPrefix}.${stage}`, topic)).map((p) => [p.partition, BigInt(p.end)]));
    for (;;) {
      const behind = behindOf(await transport.groupLag(`${groupPrefix}.${stage}`, topic), targets);
      onProgress?.({ phase: 'applying', stage, behind });
      if (behind === 0n) break;
      if (signal?.aborted) throw new ReplayError('INTERRUPTED', `interrupted while the pipeline applied the ${reread} re-read records (its ${stage} stage was ${behind} records behind); they are applied in the background`, tally());
      if (Date.now() > deadline) return { ...tally(), caughtUp: false };
      await sleep(pollMs, signal);
    }
  }
  return { ...tally(), applied: reread - deadLettered, caughtUp: true };
}
