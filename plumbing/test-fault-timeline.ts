// The test-fault timeline in Postgres (test_fault_steps, migration 0010): each component that sees a test
// fault's check-in pass records its step here, the first occurrence wins; the API and the CLI read it back.
import type pg from 'pg';
import { log } from '../config/log.js';
import { isTestFaultMark, type TestFaultPhase } from '../domain/checkin.js';
import type { StepRow, TimelineStep } from '../domain/test-fault.js';

/**
 * Records one step. `omsFailed` keeps the latest failure (each retry overwrites it); every other step keeps
 * its first time, so a redelivered batch or a resent fragment does not move it.
 */
export async function recordStep(pool: pg.Pool, id: number, phase: TestFaultPhase, step: TimelineStep, at: Date, detail: Record<string, unknown> = {}): Promise<void> {
  await pool.query(
    `insert into test_fault_steps (test_fault_id, phase, step, at, detail) values ($1, $2, $3, $4, $5)
     on conflict (test_fault_id, phase, step) do ${step === 'omsFailed' ? 'update set at = excluded.at, detail = excluded.detail' : 'nothing'}`,
    [id, phase, step, at, JSON.stringify(detail)],
  );
}

/** `stored` for every test-fault check-in among these stored records, at the time the database stored it. */
export async function recordStored(db: pg.Pool | pg.ClientBase, stored: readonly { recordId: number; mark: { id: number; phase: TestFaultPhase } }[]): Promise<void> {
  if (stored.length === 0) return;
  await db.query(
    `insert into test_fault_steps (test_fault_id, phase, step, at, detail)
       select x.id, x.phase, 'stored', r."CreatedDate", jsonb_build_object('recordId', r."RecordID")
         from unnest($1::bigint[], $2::bigint[], $3::text[]) as x(record_id, id, phase)
         join device_records r on r."RecordID" = x.record_id
         join test_faults t on t.id = x.id
     on conflict (test_fault_id, phase, step) do nothing`,
    [stored.map((s) => s.recordId), stored.map((s) => s.mark.id), stored.map((s) => s.mark.phase)],
  );
}

export async function readSteps(pool: pg.Pool, id: number): Promise<StepRow[]> {
  const { rows } = await pool.query<{ phase: TestFaultPhase; step: TimelineStep; at: Date; detail: Record<string, unknown> }>(
    'select phase, step, at, detail from test_fault_steps where test_fault_id = $1', [id]);
  return rows.map((r) => ({ phase: r.phase, step: r.step, at: r.at.getTime(), detail: r.detail }));
}

/**
 * The one place MultiSpeak delivery feeds a test fault's timeline: the OMS's answer to the notification of a
 * test fault's check-in, accepted (`omsAnswered`: status, time) or failed (`omsFailed`: the latest reason; the
 * row is retried). Never throws: a timeline step is not worth failing a delivery for.
 */
export async function noteTestFaultAnswer(
  pool: pg.Pool, row: { id: number; integration_id: string; kind: string; attempts: number; payload: unknown }, detail: Record<string, unknown> & { ok: boolean },
): Promise<void> {
  const mark = (row.payload as { test?: unknown } | null)?.test;
  if (!isTestFaultMark(mark)) return;
  const { ok, ...rest } = detail;
  try {
    await recordStep(pool, mark.id, mark.phase, ok ? 'omsAnswered' : 'omsFailed', new Date(), { integration: row.integration_id, kind: row.kind, attempt: row.attempts, ...rest });
  } catch (err) {
    log.warn({ component: 'test-faults', outboxId: row.id, err: (err as Error).message }, 'test fault timeline step not recorded');
  }
}
