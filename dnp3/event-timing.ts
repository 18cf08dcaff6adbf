// What the outstation's sends and confirms of stored check-ins' events mean outside DNP3 (the runtime side of
// Outstation.observer): stored -> confirmed by the master as a histogram per organisation, and a test fault's
// `dnp3Sent` and `dnp3Confirmed` steps (docs/decisions.md#test-faults, #latency-metrics).
import type pg from 'pg';
import { log } from '../config/log.js';
import type { EventObserver } from './outstation/outstation.js';
import type { BufferedEvent } from './outstation/event-buffer.js';
import type { EventOrigin } from './outstation/database.js';
import { dnp3Metrics } from './metrics.js';
import { recordStep } from '../plumbing/test-fault-timeline.js';

/** The origins these events carry, each once (the events of one check-in share one origin object). */
const originsOf = (events: readonly BufferedEvent[]): EventOrigin[] => [...new Set(events.flatMap((e) => (e.origin ? [e.origin] : [])))];

export function eventTiming(pool: pg.Pool, integration: { id: string; organizationId: string }, bank: () => number): EventObserver {
  const step = (o: EventOrigin, which: 'dnp3Sent' | 'dnp3Confirmed', atMs: number, unsolicited: boolean, events: number) => {
    if (!o.testFault) return;
    recordStep(pool, o.testFault.id, o.testFault.phase, which, new Date(atMs), { integration: integration.id, bank: bank(), unsolicited, events })
      .catch((err: unknown) => log.warn({ component: 'dnp3', integration: integration.id, err: (err as Error).message }, 'test fault timeline step not recorded'));
  };
  return {
    sent(events, nowMs, unsolicited) {
      for (const o of originsOf(events)) {
        if (o.sentAtMs !== undefined) continue;
        o.sentAtMs = nowMs;
        step(o, 'dnp3Sent', nowMs, unsolicited, events.filter((e) => e.origin === o).length);
      }
    },
    confirmed(events, nowMs, unsolicited) {
      for (const o of originsOf(events)) {
        if (o.confirmedAtMs !== undefined) continue;
        o.confirmedAtMs = nowMs;
        dnp3Metrics.confirmedSeconds.observe({ organization: integration.organizationId }, Math.max(0, (nowMs - o.storedAtMs) / 1000));
        step(o, 'dnp3Confirmed', nowMs, unsolicited, events.filter((e) => e.origin === o).length);
      }
    },
  };
}
