// What a test fault's panel says about it, from its record and the clock: "in progress" only while it can
// still be. Once the clearing check-in is overdue, or sent and the steps it waits for are long overdue,
// the panel says what went missing instead of "in progress" for ever (issue 32: one said so forty minutes
// after it should have ended). Pure, so it is tested without a browser.
import { missingSteps, STEP_TEXT, type TimelineStep } from '../../domain/test-fault.js';
import type { TestFault } from './api/types.js';

/** How long after the clearing check-in its steps may still arrive (a master's poll, an OMS retry). */
export const SETTLE_MS = 5 * 60_000;

export type TestFaultStatus =
  | { kind: 'done' }
  | { kind: 'running'; clearsAt: string }
  | { kind: 'clearing'; waitingFor: string[] }
  | { kind: 'clear-overdue'; dueAt: string }
  | { kind: 'incomplete'; missing: string[] };

export function testFaultStatus(t: TestFault, nowMs: number): TestFaultStatus {
  if (t.complete) return { kind: 'done' };
  if (!t.clearSentAt) {
    return nowMs <= Date.parse(t.clearDueAt) + SETTLE_MS ? { kind: 'running', clearsAt: t.clearDueAt } : { kind: 'clear-overdue', dueAt: t.clearDueAt };
  }
  const rows = t.timeline.map((e) => ({ phase: e.phase, step: e.step as TimelineStep, at: Date.parse(e.at), detail: {} }));
  const missing = (['fault', 'clear'] as const).flatMap((phase) => missingSteps(rows, phase, t.expects).map((s) => `${phase}: ${STEP_TEXT[s]}`));
  return nowMs <= Date.parse(t.clearSentAt) + SETTLE_MS ? { kind: 'clearing', waitingFor: missing } : { kind: 'incomplete', missing };
}
