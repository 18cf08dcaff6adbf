// Pure: one batch of computed check-ins -> the rows persist writes, table by table. Column lists live here
// once and drive the staging DDL, the COPY and the merge SQL (merge.ts), so a new column is one edit.
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS, HOURLY_AVERAGE_COUNT } from '../../domain/checkin.js';
import { shiftedTimestamps } from '../../domain/fault-shift.js';
import type { ComputedCheckIn } from '../../schemas/avro/values.js';
import type { Cell } from '../../plumbing/csv.js';

export interface Column { name: string; type: string }
export interface TableRows { columns: readonly Column[]; rows: Cell[][] }

const col = (name: string, type: string): Column => ({ name, type });
const dbl = (name: string) => col(name, 'double precision');

/** device_records columns written by persist (RecordID and CreatedDate are generated). */
export const RECORD_COLUMNS: readonly Column[] = [
  col('IMEINumber', 'text'),
  col('date', 'timestamptz'),
  col('Ongoing_fault', 'integer'),
  ...DEVICE_STRING_FIELDS.map((f) => col(f, 'text')),
  ...DEVICE_NUMBER_FIELDS.map(dbl),
  col('ActualOngoingFault', 'integer'),
  col('ReportedOngoingFault', 'integer'),
  col('CurrentName', 'text'),
  dbl('CurrentLat'),
  dbl('CurrentLong'),
  col('source_message_id', 'text'),
  // docs/decisions.md#test-faults: a test fault's synthetic check-in is marked as such where it is stored.
  col('TestFaultID', 'bigint'),
];

export const EVENT_COLUMNS: readonly Column[] = [
  col('EventID', 'bigint'), col('EventTimestamp', 'timestamptz'), col('EventType', 'text'),
  dbl('PrefaultCurrent'), dbl('FaultCurrent'), dbl('RecoverCurrent'),
  col('PacketTimestamp', 'timestamptz'), col('IMEINumber', 'text'), col('ReportedEventTimestamp', 'timestamptz'),
  col('TimestampShifted', 'boolean'),
];

export const DM1_EVENT_COLUMNS: readonly Column[] = [
  col('EventID', 'bigint'), col('EventTimestamp', 'timestamptz'), col('EventType', 'text'),
  col('PhaseAEvent', 'text'), col('PhaseBEvent', 'text'), col('PhaseCEvent', 'text'),
  col('PacketTimestamp', 'timestamptz'), col('IMEINumber', 'text'), col('ReportedEventTimestamp', 'timestamptz'),
];

const HOURS = Array.from({ length: HOURLY_AVERAGE_COUNT }, (_, i) => `AverageCurrentH${i}`);
export const CURRENT_COLUMNS: readonly Column[] = [
  col('PacketTimestamp', 'timestamptz'), col('IMEINumber', 'text'), dbl('PeakCurrent'), col('PeakCurrentTimestamp', 'timestamptz'),
  ...HOURS.map(dbl), col('CurrentName', 'text'),
];

export const ALERT_COLUMNS: readonly Column[] = [col('IMEINumber', 'text'), col('oldModel', 'text'), col('newModel', 'text'), col('at', 'timestamptz')];

export const SHIFT_COLUMNS: readonly Column[] = [
  col('IMEINumber', 'text'), col('EventID', 'bigint'), col('fromTimestamp', 'timestamptz'), col('toTimestamp', 'timestamptz'),
];

/** Every staged row starts with `idx`, the message's position in the batch, to join results back. */
export interface BatchRows {
  records: TableRows;
  events: TableRows;
  dm1Events: TableRows;
  currents: TableRows;
  alerts: TableRows;
  shifts: TableRows;
}

export function batchRows(messages: readonly ComputedCheckIn[]): BatchRows {
  const out: BatchRows = {
    records: { columns: RECORD_COLUMNS, rows: [] }, events: { columns: EVENT_COLUMNS, rows: [] },
    dm1Events: { columns: DM1_EVENT_COLUMNS, rows: [] }, currents: { columns: CURRENT_COLUMNS, rows: [] },
    alerts: { columns: ALERT_COLUMNS, rows: [] }, shifts: { columns: SHIFT_COLUMNS, rows: [] },
  };
  messages.forEach((m, idx) => {
    const d = m.checkIn.device_data;
    const imei = d.IMEINumber;
    out.records.rows.push([
      idx, imei, d.date, m.ActualOngoingFault,
      ...DEVICE_STRING_FIELDS.map((f) => d[f]),
      ...DEVICE_NUMBER_FIELDS.map((f) => d[f]),
      m.ActualOngoingFault, m.ReportedOngoingFault, m.CurrentName, m.CurrentLat, m.CurrentLong, m.messageId,
      m.checkIn.test_fault?.id ?? null,
    ]);
    // This message's events go in with their spec 3.4 timestamps (shiftedTimestamps); the shifts of events that
    // earlier messages stored are staged for persist's UPDATE (merge.ts).
    const own = new Set<string>();
    m.checkIn.events.forEach((e, pos) => {
      own.add(`${e.EventID}@${e.EventTimestamp}`);
      if (m.checkIn.dm1_device) {
        out.dm1Events.rows.push([idx, pos, e.EventID, e.EventTimestamp, e.EventType, e.PhaseAEvent, e.PhaseBEvent, e.PhaseCEvent, d.date, imei, e.EventTimestamp]);
      } else {
        const t = shiftedTimestamps(e, m.shifts);
        out.events.rows.push([idx, pos, e.EventID, t.EventTimestamp, e.EventType, e.PrefaultCurrent, e.FaultCurrent, e.RecoverCurrent, d.date, imei, t.OriginalEventTimestamp, t.TimestampShifted]);
      }
    });
    const c = m.checkIn.currents;
    if (c) out.currents.rows.push([idx, d.date, imei, c.PeakCurrent, c.PeakCurrentTimestamp, ...HOURS.map((_, i) => c.HourlyAverages[i] ?? null), m.CurrentName]);
    if (m.alert) out.alerts.rows.push([idx, imei, m.alert.oldModel, m.alert.newModel, d.date]);
    for (const s of m.shifts) if (!own.has(`${s.EventID}@${s.fromTimestamp}`)) out.shifts.rows.push([idx, imei, s.EventID, s.fromTimestamp, s.toTimestamp]);
  });
  return out;
}
