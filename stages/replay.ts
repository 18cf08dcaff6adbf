// Replay (docs/decisions.md#replay): re-read fi.raw.v1 from a time and send every check-in through the running
// pipeline again. The replay reads under a consumer group of its own (the live groups keep their offsets)
// and appends a copy of each record to fi.raw.v1 marked `source: replay` (or `reprocess`); the live
// pipeline, whatever its shape, handles the copies like any other record: stored rows meet their unique
// keys and stay as they are, notify sends nothing for re-read records, and with `reprocess` persist rewrites
// the derived columns of the stored rows (model, Ongoing_fault, ActualOngoingFault) with the rules running
// now. Every rule therefore runs in the `start` processes, with their settings, and their per-device state
// sees the copies in order with live traffic.
//
// Two phases, each reported: reading (the range that existed when the replay started, no more: a record
// appended later is live traffic, and copies made by earlier replays are skipped), then applying (each
// segment of the running pipeline catches up with what was re-sent). The replay's consumer group is deleted
// when it ends, fails or is interrupted, so no group is left behind to raise lag alarms.
//
// Bounds: `from` and `to` (broker append time) and `imeis` (only those devices' check-ins are re-sent). A dry
// run reads the same range and counts what would be re-sent per day and device, and sends nothing. How far
// back any replay reaches is fi.raw.v1's retention (RAW_RETENTION_DAYS; replay-reach.ts says where it is now).
import { TOPICS } from '../schemas/avro/topics.js';
import type { RawMessage } from '../schemas/avro/values.js';
import { groupName, LIVE_GROUP_PREFIX, runStage } from './runtime/runner.js';
import { isReread, REPLAY_SOURCE, REPROCESS_SOURCE } from '../plumbing/sources.js';
import type { Stage } from './runtime/stage.js';
import type { Transport } from './runtime/transport/transport.js';
import type { ChainStage } from '../config/pipeline-split.js';
import { CHAIN_INPUT, segmentsOf } from './shape.js';
import { FaultlineError } from '../errors/base.js';
import { endsOf, recordsBehind, type Behind } from './runtime/catch-up.js';
import { sleep, waitForGroup } from './runtime/wait-for-group.js';

export type ReplayProgress =
  | { phase: 'reading'; reread: number; total: number }
  | { phase: 'applying'; segment: string; behind: bigint };

export interface ReplayOptions {
  transport: Transport;
  /** ms since the epoch of the broker's append time (not the device's time); 0 replays the whole retained log. */
  from: number;
  /** End of the range (exclusive), in broker append time as `from`; default: the end of the log when the replay starts. */
  to?: number;
  /** Only these devices' check-ins (fi.raw.v1 is keyed by IMEI); default: every device. */
  imeis?: ReadonlySet<string>;
  /** Count what would be re-sent, per day (UTC, append time) and device, and send nothing. Needs no running pipeline. */
  dryRun?: boolean;
  /** Recompute the derived columns of stored check-ins with the rules now running. Customers are not notified. */
  reprocess?: boolean;
  /** The running pipeline's shape (PIPELINE_SPLIT): which consumer groups must catch up. */
  split?: readonly ChainStage[];
  onProgress?: (progress: ReplayProgress) => void;
  pollMs?: number;
  /** How long to wait for the running pipeline to apply what was re-sent. */
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
  /** Of those, copies an earlier replay made (skipped: their originals are the check-ins). */
  copiesSkipped: number;
  /** Of those, originals of devices `imeis` leaves out (not re-sent). */
  otherDevices: number;
  /** Sent through the running pipeline again (reread - copiesSkipped - otherDevices); with dryRun, what would be. */
  resent: number;
  /** Of those, processed by every segment of the running pipeline: equals resent once it caught up. */
  applied: number;
  caughtUp: boolean;
  /** The replay's consumer group, removed at the end. */
  group: string;
  /** dryRun only: what would be re-sent, per day and per device. */
  preview?: ReplayPreview;
}

export interface ReplayPreview {
  /** By UTC day of broker append time (YYYY-MM-DD), ascending. */
  days: { day: string; records: number; devices: number }[];
  /** By IMEI, ascending; first and last append time (ms). */
  devices: { imei: string; records: number; first: number; last: number }[];
}

/** Code -> what it means. */
export const REPLAY_ERRORS = {
  NO_PIPELINE: 'no pipeline consumer is running to replay through',
  INTERRUPTED: 'the replay was stopped before it caught up (partial says how far it got)',
} as const;

export class ReplayError extends FaultlineError<keyof typeof REPLAY_ERRORS> {
  constructor(code: keyof typeof REPLAY_ERRORS, message: string, readonly partial?: Omit<ReplayResult, 'caughtUp'>) {
    super(code, message, { retriable: false });
  }
}

/** The running pipeline's segments: the group that reads each one's input, and that topic. */
function liveSegments(split: readonly ChainStage[]): { group: string; topic: string }[] {
  return segmentsOf(split).map(([head]) => ({ group: head!, topic: CHAIN_INPUT[head!] }));
}

/** Without the live pipeline the copies would wait in fi.raw.v1 with nobody to apply them: refused. */
export async function requireRunningPipeline(transport: Transport, split: readonly ChainStage[] = [], groupPrefix = LIVE_GROUP_PREFIX): Promise<void> {
  const idle: string[] = [];
  for (const { group } of liveSegments(split)) if ((await transport.groupMembers(groupName(group, groupPrefix))) === 0) idle.push(groupName(group, groupPrefix));
  if (idle.length) {
    throw new ReplayError('NO_PIPELINE', `no running pipeline: consumer group${idle.length > 1 ? 's' : ''} ${idle.join(', ')} ha${idle.length > 1 ? 've' : 's'} no member. Start the service (faultline start, with the same PIPELINE_SPLIT) on this Kafka first; nothing was re-read`);
  }
}

export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const { transport, from, to, imeis, dryRun = false, reprocess = false, split = [], onProgress, pollMs = 500, applyTimeoutMs = 600_000, signal, groupPrefix = LIVE_GROUP_PREFIX } = options;
  const segments = dryRun ? [] : liveSegments(split);
  if (!dryRun) await requireRunningPipeline(transport, split, groupPrefix);

  // Per partition [start, end): the first record at or after `from`, up to the first at or after `to`.
  const range = await transport.topicRange(TOPICS.raw, from);
  const until = to === undefined ? null : new Map((await transport.topicRange(TOPICS.raw, to)).map((r) => [r.partition, BigInt(r.start)]));
  const starts = new Map(range.map((r) => [r.partition, BigInt(r.start)]));
  const ends = new Map(range.map((r) => {
    const end = BigInt(r.end);
    const cut = until?.get(r.partition) ?? end;
    return [r.partition, cut < end ? (cut > BigInt(r.start) ? cut : BigInt(r.start)) : end];
  }));
  const empty = new Set(range.filter((r) => starts.get(r.partition)! >= ends.get(r.partition)!).map((r) => r.partition));
  const total = range.reduce((sum, r) => sum + Number(ends.get(r.partition)! - starts.get(r.partition)!), 0);
  const group = `replay-${Date.now()}`;
  let reread = 0;
  let copiesSkipped = 0;
  let otherDevices = 0;
  const days = new Map<string, { records: number; devices: Set<string> }>();
  const devices = new Map<string, { records: number; first: number; last: number }>();
  const preview = (): ReplayPreview => ({
    days: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, d]) => ({ day, records: d.records, devices: d.devices.size })),
    devices: [...devices].sort(([a], [b]) => a.localeCompare(b)).map(([imei, d]) => ({ imei, ...d })),
  });
  const tally = () => ({
    total, reread, copiesSkipped, otherDevices, resent: reread - copiesSkipped - otherDevices, applied: 0, group: groupName(group, groupPrefix), ...(dryRun ? { preview: preview() } : {}),
  });
  if (total === 0) return { ...tally(), caughtUp: true };

  const source = reprocess ? REPROCESS_SOURCE : REPLAY_SOURCE;
  // A batch delivered again (its send failed) is counted once: `counted` is the next offset not yet counted.
  const counted = new Map<number, bigint>();
  const copier: Stage<RawMessage> = {
    name: 'replay', group, input: TOPICS.raw, outputs: [TOPICS.raw],
    async handle(batch) {
      // The group seeks to the start when it joins; the lower bound also holds if it joined again before its
      // first commit and began at the beginning of the log.
      const [start, end] = [starts.get(batch.partition) ?? 0n, ends.get(batch.partition) ?? 0n];
      const inRange = batch.messages.filter((m) => BigInt(m.offset) >= start && BigInt(m.offset) < end);
      const wanted = (m: (typeof inRange)[number]) => !isReread(m.value.source) && (!imeis || imeis.has(m.key));
      const selected = inRange.filter(wanted);
      const last = inRange.at(-1);
      return {
        produce: dryRun ? [] : selected.map((m) => ({ topic: TOPICS.raw, key: m.key, value: { ...m.value, source } })),
        deadLetters: [],
        onSent: () => {
          const fresh = inRange.filter((m) => BigInt(m.offset) >= (counted.get(batch.partition) ?? 0n));
          reread += fresh.length;
          copiesSkipped += fresh.filter((m) => isReread(m.value.source)).length;
          otherDevices += fresh.filter((m) => !isReread(m.value.source) && !wanted(m)).length;
          if (dryRun) {
            for (const m of fresh.filter(wanted)) {
              const day = new Date(m.timestamp).toISOString().slice(0, 10);
              const d = days.get(day) ?? { records: 0, devices: new Set<string>() };
              days.set(day, d);
              d.records++;
              d.devices.add(m.key);
              const device = devices.get(m.key);
              if (device) { device.records++; device.first = Math.min(device.first, m.timestamp); device.last = Math.max(device.last, m.timestamp); }
              else devices.set(m.key, { records: 1, first: m.timestamp, last: m.timestamp });
            }
          }
          if (last) counted.set(batch.partition, BigInt(last.offset) + 1n);
        },
      };
    },
  };

  const subscription = await runStage(copier, { transport, groupPrefix, fromTimestamp: from });
  try {
    for (;;) {
      onProgress?.({ phase: 'reading', reread, total });
      if (signal?.aborted) throw new ReplayError('INTERRUPTED', `interrupted after re-reading ${reread} of ${total} records (the ${tally().resent} re-sent are applied in the background)`, tally());
      // A partition with nothing in the range gets no commit from the replay's group: it is done from the start.
      const lag = await subscription.lag();
      if (lag.every((p) => BigInt(p.next) >= (ends.get(p.partition) ?? 0n) || empty.has(p.partition))) break;
      await sleep(pollMs, signal);
    }
  } finally {
    await subscription.stop();
    await transport.deleteGroup(groupName(group, groupPrefix));
  }
  onProgress?.({ phase: 'reading', reread, total });

  // Applying: each segment in turn reaches the end its input had once the segment before it caught up.
  const deadline = AbortSignal.timeout(applyTimeoutMs);
  const applying = signal ? AbortSignal.any([signal, deadline]) : deadline;
  for (const segment of segments) {
    const live = groupName(segment.group, groupPrefix);
    const targets = endsOf(await transport.groupLag(live, segment.topic), null);
    const onLook = (behind: Behind[]) => onProgress?.({ phase: 'applying', segment: live, behind: recordsBehind(behind) });
    const { caughtUp, behind } = await waitForGroup(transport, live, segment.topic, targets, { pollMs, signal: applying, onLook });
    if (caughtUp) continue;
    if (signal?.aborted) throw new ReplayError('INTERRUPTED', `interrupted while the pipeline applied the ${tally().resent} re-sent records (its group ${live} was ${recordsBehind(behind)} records behind); they are applied in the background`, tally());
    return { ...tally(), caughtUp: false };
  }
  return { ...tally(), applied: dryRun ? 0 : tally().resent, caughtUp: true };
}
