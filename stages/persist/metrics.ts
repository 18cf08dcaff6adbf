// The latency of real traffic up to the database (docs/monitoring.md#latency-of-real-traffic): from the device's own time (the check-in's
// `date`) to the batch that stored it committed, per organisation. Only check-ins this batch stored count: a
// duplicate, a replay or an unregistered device's check-in would blur what a utility reads from it.
import { Histogram } from 'prom-client';
import { registry } from '../../config/metrics.js';
import { isReread } from '../../plumbing/sources.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';

const storedSeconds = new Histogram({
  name: 'faultline_checkin_stored_seconds', help: 'From a check-in\'s device time (its date) to faultline storing it, per organisation',
  labelNames: ['organization'], registers: [registry],
  // Devices report every few minutes to hours and their clocks drift: the tail reaches a day.
  buckets: [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
});

export function observeStored(records: readonly { value: unknown }[], nowMs = Date.now()): void {
  for (const { value } of records) {
    const m = value as PersistedCheckIn;
    if (!m.ownsRecord || !m.device || isReread(m.source)) continue;
    storedSeconds.observe({ organization: m.device.OrganizationID }, Math.max(0, (nowMs - Date.parse(m.checkIn.device_data.date)) / 1000));
  }
}
