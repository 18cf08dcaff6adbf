// What the station's sends and acknowledgements of stored check-ins' events mean outside IEC 104 (the runtime side
// of Iec104Outstation.observer): stored -> acknowledged by the master as a histogram per organisation, and a test
// fault's `iec104Sent` and `iec104Confirmed` steps, as dnp3/event-timing.ts records DNP3's (docs/decisions.md#test-faults,
// docs/monitoring.md#latency-of-real-traffic). The first send and the first acknowledgement of an origin count.
import type pg from 'pg';
import { log } from '../config/log.js';
import type { SnapshotOrigin } from '../points/feed.js';
import { recordStep } from '../plumbing/test-fault-timeline.js';
import { iec104Metrics } from './metrics.js';
import type { EventObserver } from './outstation.js';

export function eventTiming(pool: pg.Pool, integration: { id: string; organizationId: string }): EventObserver {
  const sentAt = new WeakSet<SnapshotOrigin>();
  const confirmedAt = new WeakSet<SnapshotOrigin>();
  const step = (origins: readonly SnapshotOrigin[], which: 'iec104Sent' | 'iec104Confirmed', seen: WeakSet<SnapshotOrigin>, atMs: number) => {
    for (const o of origins) {
      if (seen.has(o)) continue;
      seen.add(o);
      if (which === 'iec104Confirmed') iec104Metrics.confirmedSeconds.observe({ organization: integration.organizationId }, Math.max(0, (atMs - o.storedAtMs) / 1000));
      if (!o.testFault) continue;
      recordStep(pool, o.testFault.id, o.testFault.phase, which, new Date(atMs), { integration: integration.id })
        .catch((err: unknown) => log.warn({ component: 'iec104', integration: integration.id, err: (err as Error).message }, 'test fault timeline step not recorded'));
    }
  };
  return {
    sent: (origins, nowMs) => step(origins, 'iec104Sent', sentAt, nowMs),
    confirmed: (origins, nowMs) => step(origins, 'iec104Confirmed', confirmedAt, nowMs),
  };
}
