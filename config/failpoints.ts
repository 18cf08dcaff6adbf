// Failpoints: named seams between two durable writes (or at a component's start) where a test can make the
// process die or wait, in the manner of etcd's gofail and TiKV's fail-rs (docs/decisions.md#failpoints).
//
// Armed only through FAULTLINE_FAILPOINTS, read once here: `name=action[;name=action]`, action `exit`
// (SIGKILL this process at the seam: nothing after it runs, no drain, no flush) or `hold` (the step waits
// there for ever, the process kept alive, so a test can signal the process while that step is under way).
// Unarmed, a seam costs one Map lookup. Every seam is declared in SEAMS, so the crash-point suite can tell when
// one has no case.

/** Every seam in the product, with the two writes (or the step) it sits between. */
export const SEAMS = {
  // The path from the queue to the OMS, the alarm channels and the SCADA master (test/resilience/crash-points):
  // docs/decisions.md#effects-exactly-once-across-a-crash has the table of its durable writes.
  'bridge.after-publish': 'the bridge published a batch to fi.raw.v1; the queue messages are not deleted',
  'persist.after-commit': 'persist committed a batch and what it owes notify; notify has written nothing of it',
  'notify.after-effects': 'notify committed a chunk\'s rows (outbox, marks, alarms), marked applied; their DNP3 feed records are not produced',
  'notify.after-feed': 'notify produced a chunk\'s DNP3 feed records; the clearing of what was owed is not committed',
  'chain.before-commit': 'every output and database write of a batch is done; its offsets are not committed',
  // The alarm router's round (test/integration/alarms/chatter-crash.test.ts): one transaction, so a kill here
  // must leave neither the messages nor the marks (docs/decisions.md#review-of-the-held-clear-and-the-rollup).
  'alarms.router-before-mark': 'the router stored a round\'s alarm messages; their changes are not marked routed',
  // Fleet health as a crash (test/integration/alarms/fleet-digest-crash.test.ts, test/integration/fleet/crash.test.ts;
  // docs/decisions.md#review-of-fleet-health-as-a-crash).
  'alarms.fleet-digest-queued': 'the router queued the round\'s fleet digests; its transaction is not committed',
  'fleet.between-steps': 'the fleet worker committed a step (assess, triage); the next has not begun',
  'fleet.sections-written': 'triage wrote the de-energised sections it opened and closed; their alarms are not raised or cleared',
  // A change of partition cut (test/integration/storage/partition-cut.test.ts, docs/decisions.md#partition-granularity).
  'storage.cut-recorded': 'maintenance recorded a new partition cut; the months ahead are not created at it',
  'storage.month-created': 'a month\'s missing partitions were created at the recorded cut; the following months are not',
  // Start-up: each component's start can be held, so a signal arrives while it is under way (test/integration/start-signals.test.ts).
  'start.database': 'start: the database and the demo data',
  'start.transport': 'start: the transport',
  'start.pipeline': 'start: the pipeline stages',
  'start.bridge': 'start: the queue bridge',
  'start.api': 'start: the API',
  'start.workers': 'start: delivery, incidents and alarm workers',
  'start.dnp3': 'start: the DNP3 outstation',
  'start.iec104': 'start: the IEC 104 station',
  'start.simulate': 'start: the device simulator',
} as const;

export type Seam = keyof typeof SEAMS;
export type FailpointAction = 'exit' | 'hold';

/** Parses FAULTLINE_FAILPOINTS; an unknown seam or action is an error, so a typo cannot arm nothing silently. */
export function parseFailpoints(text: string | undefined): Map<Seam, FailpointAction> {
  const armed = new Map<Seam, FailpointAction>();
  for (const part of (text ?? '').split(';').map((s) => s.trim()).filter(Boolean)) {
    const [name, action] = part.split('=').map((s) => s.trim());
    if (!name || !(name in SEAMS)) throw new Error(`FAULTLINE_FAILPOINTS: unknown seam ${JSON.stringify(name)}; known: ${Object.keys(SEAMS).join(', ')}`);
    if (action !== 'exit' && action !== 'hold') throw new Error(`FAULTLINE_FAILPOINTS: ${name}: action must be exit or hold, not ${JSON.stringify(action)}`);
    armed.set(name as Seam, action);
  }
  return armed;
}

const ARMED = parseFailpoints(process.env.FAULTLINE_FAILPOINTS);

/**
 * The seam `name`: nothing unless armed. `exit` kills the process with SIGKILL on the spot (as a crash or the
 * OOM killer would); `hold` returns a promise that never settles.
 * @example await failpoint('persist.after-commit');
 */
export function failpoint(name: Seam): Promise<void> | undefined {
  const action = ARMED.get(name);
  if (!action) return undefined;
  if (action === 'exit') {
    process.stderr.write(`failpoint ${name}: exit\n`);
    process.kill(process.pid, 'SIGKILL');
  }
  process.stderr.write(`failpoint ${name}: hold\n`);
  // A timer keeps the process alive while held: a bare pending promise would let it end at 'beforeExit'.
  return new Promise<void>(() => { setInterval(() => {}, 1 << 30); });
}
