// What "each device's check-ins stored in order" means (docs/architecture.md#guarantees): the order is kept from
// the raw topic on, keyed by IMEI, not from the queue. SQS standard queues do not order, and the bridge's
// several pollers may put two close check-ins of a device on fi.raw.v1 either way round; from there on, one
// partition per device and the stages' order keep it. So a device's stored rows (RecordID order) are compared
// with its records on the raw topic (offset order), never with the order they were sent or their dates.

/** A check-in: its device and its device_data.date (ms). */
export interface CheckInKey {
  imei: string;
  date: number;
}

/**
 * One line per device whose stored check-ins are not in the order of its raw-topic records. `raw`: the raw
 * topic's records in offset order (a device's all lie in one partition); a record on it twice (a queue message
 * the bridge published again) is stored at its first copy, later copies change nothing. Only what was stored is
 * compared (a record dead-lettered is not), but a stored check-in the raw topic never had is a difference.
 */
export function storedOutOfRawOrder(raw: readonly CheckInKey[], stored: readonly CheckInKey[]): string[] {
  const storedByDevice = byDevice(stored);
  const storedKeys = new Set(stored.map(keyOf));
  const rawByDevice = byDevice(raw.filter((r) => storedKeys.has(keyOf(r))));
  const out: string[] = [];
  for (const [imei, dates] of storedByDevice) {
    const expected = [...new Set(rawByDevice.get(imei) ?? [])];
    if (dates.length !== expected.length || dates.some((d, i) => d !== expected[i])) {
      out.push(`${imei}: stored ${dates.map(iso).join(', ')}; on the raw topic ${expected.map(iso).join(', ')}`);
    }
  }
  return out;
}

const keyOf = (k: CheckInKey) => `${k.imei}@${k.date}`;
const iso = (ms: number) => new Date(ms).toISOString();

function byDevice(keys: readonly CheckInKey[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const k of keys) {
    const dates = out.get(k.imei);
    if (dates) dates.push(k.date);
    else out.set(k.imei, [k.date]);
  }
  return out;
}
