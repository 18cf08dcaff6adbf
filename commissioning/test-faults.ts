// Starting, clearing and reading test faults (docs/decisions.md#test-faults). A test fault is a row in
// test_faults and two synthetic check-ins sent through the deployment's queue: the fault now, the clearing one
// when clear_due_at passes (sent by whichever process's clearer claims it first, so a restart loses nothing).
import type pg from 'pg';
import { log } from '../config/log.js';
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS } from '../domain/checkin.js';
import type { TestFaultPhase } from '../domain/checkin.js';
import { DEFAULT_TEST_FAULT_CODE, missingSteps, presentTimeline, syntheticCheckIn, type LatestValues, type StepExpectations, type TimelineEntry } from '../domain/test-fault.js';
import type { TestFaultQueue } from './queue.js';
import { readSteps, recordStep } from '../plumbing/test-fault-timeline.js';
import type { IntegrationKind } from '../integrations/store.js';
import { FaultlineError } from '../errors/base.js';

/** Code -> what it means; neither changes on a retry. */
export const TEST_FAULT_ERRORS = {
  NOT_FOUND: 'no device with this IMEI',
  CONFLICT: 'the device reports a fault now, or a test fault of it is still running',
} as const;

export class TestFaultError extends FaultlineError<keyof typeof TEST_FAULT_ERRORS> {
  constructor(code: keyof typeof TEST_FAULT_ERRORS, message: string) {
    super(code, message, { retriable: false });
  }
}

export interface StartOptions {
  imei: string;
  organizationId: string;
  /** The user's email, or `command line`. */
  startedBy: string;
  clearAfterMs: number;
  faultCode?: number;
  now?: Date;
}

const LATEST_COLUMNS = [...DEVICE_STRING_FIELDS, ...DEVICE_NUMBER_FIELDS].map((c) => `r."${c}"`).join(', ');

async function latestOf(pool: pg.Pool, imei: string): Promise<{ values: LatestValues; date: Date; fault: number } | null> {
  const { rows } = await pool.query<LatestValues & { date: Date; ActualOngoingFault: number }>(
    `select ${LATEST_COLUMNS}, r."date", r."ActualOngoingFault"
       from device_latest l join device_records r on r."RecordID" = l."RecordID" and r."date" = l."date"
      where l."IMEINumber" = $1`, [imei]);
  const r = rows[0];
  return r ? { values: r, date: r.date, fault: r.ActualOngoingFault } : null;
}

/** After the device's newest record, so the synthetic check-in is the newest in device time too. */
const dateAfter = (now: Date, latest: Date | undefined) => new Date(Math.max(now.getTime(), (latest?.getTime() ?? 0) + 1000)).toISOString();

async function send(pool: pg.Pool, queue: TestFaultQueue, id: number, imei: string, phase: TestFaultPhase, faultCode: number, now: Date): Promise<void> {
  const latest = await latestOf(pool, imei);
  const body = syntheticCheckIn(imei, latest?.values ?? {}, { id, phase }, dateAfter(now, latest?.date), faultCode);
  // Queued is the moment the check-in was handed to the queue, recorded once the queue accepted it: the
  // bridge and the pipeline may store it before the queue's answer reaches us, and stored must not come first.
  const handedAt = new Date();
  // Names sort after the simulator's and the devices' own in a spool inbox read in name order.
  await queue.send(`test-fault-${String(id).padStart(10, '0')}-${phase}`, JSON.stringify(body));
  await recordStep(pool, id, phase, 'queued', handedAt, { queue: queue.description });
}

/**
 * Starts a test fault for a device of the organisation: refused (CONFLICT) while the device is in a fault
 * (the test would change nothing a master or an OMS sees) or another test fault of it is still running.
 */
export async function startTestFault(pool: pg.Pool, queue: TestFaultQueue, o: StartOptions): Promise<{ id: number }> {
  const now = o.now ?? new Date();
  const { rows: devices } = await pool.query('select 1 from device_information where "IMEINumber" = $1 and "OrganizationID" = $2 and deleted_at is null', [o.imei, o.organizationId]);
  if (devices.length === 0) throw new TestFaultError('NOT_FOUND', `Device ${o.imei} was not found.`);
  const latest = await latestOf(pool, o.imei);
  if (latest && latest.fault !== 0) throw new TestFaultError('CONFLICT', `Device ${o.imei} reports a fault now (ActualOngoingFault ${latest.fault}): a test fault would change nothing the SCADA master or the OMS sees. Try again once it is clear.`);
  const faultCode = o.faultCode ?? DEFAULT_TEST_FAULT_CODE;
  const { rows } = await pool.query<{ id: number }>(
    `insert into test_faults ("OrganizationID", "IMEINumber", started_by, fault_code, clear_due_at)
       select $1, $2, $3, $4, $5
        where not exists (select 1 from test_faults where "IMEINumber" = $2 and clear_sent_at is null)
     returning id`,
    [o.organizationId, o.imei, o.startedBy, faultCode, new Date(now.getTime() + o.clearAfterMs)],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new TestFaultError('CONFLICT', `A test fault of device ${o.imei} is still running; it clears itself when its time is up.`);
  try {
    await send(pool, queue, id, o.imei, 'fault', faultCode, now);
  } catch (err) {
    // Nothing reached the queue: no test fault to clear.
    await pool.query('delete from test_faults where id = $1', [id]);
    throw err;
  }
  return { id };
}

/** Sends the clearing check-in of every test fault that is due; returns how many it sent. */
export async function sendDueClears(pool: pg.Pool, queue: TestFaultQueue, now = new Date()): Promise<number> {
  const { rows } = await pool.query<{ id: number; IMEINumber: string; fault_code: number }>(
    `update test_faults set clear_sent_at = now()
      where id in (select id from test_faults where clear_sent_at is null and clear_due_at <= $1 order by id limit 20 for update skip locked)
     returning id, "IMEINumber", fault_code`, [now]);
  for (const r of rows) {
    try {
      await send(pool, queue, r.id, r.IMEINumber, 'clear', r.fault_code, now);
    } catch (err) {
      await pool.query('update test_faults set clear_sent_at = null where id = $1', [r.id]);
      throw err;
    }
  }
  return rows.length;
}

/** Sends due clearing check-ins every `everyMs` until stopped. */
export function startClearer(pool: pg.Pool, queue: TestFaultQueue, everyMs = 1000): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => sendDueClears(pool, queue)).catch((err: unknown) => log.warn({ component: 'test-faults', err: (err as Error).message }, 'sending a test fault\'s clearing check-in failed; trying again'));
  }, everyMs);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}

export interface TestFaultView {
  id: number;
  IMEINumber: string;
  OrganizationID: string;
  startedBy: string;
  startedAt: string;
  faultCode: number;
  clearDueAt: string;
  clearSentAt: string | null;
  /** What this organisation delivers to, so which steps a complete timeline has. */
  expects: StepExpectations;
  /** Every expected step of both phases is recorded. */
  complete: boolean;
  timeline: TimelineEntry[];
}

interface Row { id: number; IMEINumber: string; OrganizationID: string; started_by: string; started_at: Date; fault_code: number; clear_due_at: Date; clear_sent_at: Date | null; dnp3: boolean; iec104: boolean; oms: boolean }

const SELECT = `select t.*,
    exists (select 1 from integrations i where i."OrganizationID" = t."OrganizationID" and i.kind = 'dnp3' and i.enabled) as dnp3,
    exists (select 1 from integrations i where i."OrganizationID" = t."OrganizationID" and i.kind = 'iec104' and i.enabled) as iec104,
    exists (select 1 from integrations i where i."OrganizationID" = t."OrganizationID" and i.kind = 'multispeak' and i.enabled) as oms
  from test_faults t`;

async function view(pool: pg.Pool, r: Row): Promise<TestFaultView> {
  const steps = await readSteps(pool, r.id);
  const expects = { dnp3: r.dnp3, iec104: r.iec104, oms: r.oms };
  return {
    id: r.id, IMEINumber: r.IMEINumber, OrganizationID: r.OrganizationID, startedBy: r.started_by, startedAt: r.started_at.toISOString(),
    faultCode: r.fault_code, clearDueAt: r.clear_due_at.toISOString(), clearSentAt: r.clear_sent_at?.toISOString() ?? null, expects,
    complete: missingSteps(steps, 'fault', expects).length === 0 && missingSteps(steps, 'clear', expects).length === 0,
    timeline: presentTimeline(steps),
  };
}

/**
 * A reader's reach over test fault `t` and its device `d` (the API passes api/device-records/reach.ts's
 * condition; docs/decisions.md#reach-applied-once), given a placeholder source that continues the statement's.
 */
export type TestFaultReach = (p: { add(value: unknown): string }) => string;

function placeholders(values: unknown[]) {
  return { add: (value: unknown) => { values.push(value); return `$${values.length}`; } };
}

/** One test fault of the organisation (and in `reach` when given), or null. */
export async function readTestFault(pool: pg.Pool, organizationId: string, id: number, reach?: TestFaultReach): Promise<TestFaultView | null> {
  const values: unknown[] = [id, organizationId];
  const join = reach ? ` join device_information d on d."IMEINumber" = t."IMEINumber" and ${reach(placeholders(values))}` : '';
  const { rows } = await pool.query<Row>(`${SELECT}${join} where t.id = $1 and t."OrganizationID" = $2`, values);
  return rows[0] ? view(pool, rows[0]) : null;
}

/** The organisation's test faults (in `reach` when given), newest first, of one device or all. */
export async function listTestFaults(pool: pg.Pool, organizationId: string, imei: string | null, limit: number, reach?: TestFaultReach): Promise<TestFaultView[]> {
  const values: unknown[] = [organizationId, imei, limit];
  const join = reach ? ` join device_information d on d."IMEINumber" = t."IMEINumber" and ${reach(placeholders(values))}` : '';
  const { rows } = await pool.query<Row>(`${SELECT}${join} where t."OrganizationID" = $1 and ($2::text is null or t."IMEINumber" = $2) order by t.id desc limit $3`, values);
  return Promise.all(rows.map((r) => view(pool, r)));
}

/** An integration a test fault of the organisation reaches (the portal names them before starting one). */
export interface TestFaultTarget { id: string; kind: IntegrationKind; channel: string }

/** The organisation's enabled integrations: where a test fault's check-ins are delivered. */
export async function testFaultTargets(pool: pg.Pool, organizationId: string): Promise<TestFaultTarget[]> {
  const { rows } = await pool.query<TestFaultTarget>(
    `select id, kind, channel from integrations where "OrganizationID" = $1 and enabled order by kind, id`, [organizationId]);
  return rows;
}
