// /device-records/critical-data: fault events of every reachable device (SPEC-DECISIONS: EventType in
// PFault, TFault, SOTF, Fault Like, Fault <50, Overcurrent, FAULT_INITIAL, from both event tables) and the
// model-change alerts as EventType `Model Change`, joined with device name, place and power line.
// Each row carries the device's Ongoing_fault / ActualOngoingFault of the check-in that brought it (masked).
import { calendarDayRange } from '../../domain/calendar-days.js';
import { MODEL_CHANGE_EVENT_TYPE } from '../../domain/model-change-alert.js';
import { fault, num, text, type FieldTable } from './fields.js';
import { pageOf, type ReadEndpoint } from './endpoint.js';
import { displayFault, presentContext, presentEventRow } from './present.js';
import { reachCondition } from './reach.js';
import { filterConditions, orderBy, rangeConditions, SqlParams, whereClause } from './sql.js';

export const CRITICAL_EVENT_TYPES = ['PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL'] as const;

const SORTABLE: FieldTable = {
  EventTimestamp: num('c."EventTimestamp"'), EventType: text('c."EventType"'), IMEINumber: text('c."IMEINumber"'),
  Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
};
const FILTERABLE: FieldTable = {
  EventType: text('c."EventType"'), Source: text('c."Source"'), IMEINumber: text('c."IMEINumber"'), Real_Name: text('d."Real_Name"'),
  PowerLineID: text('d."PowerLineID"'), ActualOngoingFault: fault('r."ActualOngoingFault"'),
};
const DEFAULT_SORT = [{ field: 'EventTimestamp', order: 'desc' }] as const;
// (Source, SourceID) is unique: each source's id is its table's primary key.
const TIE_BREAKER = ['c."Source"', 'c."SourceID" desc'];

function union(types: string, modelChange: string): string {
  return `(
    select 'event'::text as "Source", e."Event_Record_ID" as "SourceID", e."EventID", e."EventTimestamp", e."EventType",
           e."PrefaultCurrent", e."FaultCurrent", e."RecoverCurrent", null::text as "PhaseAEvent", null::text as "PhaseBEvent",
           null::text as "PhaseCEvent", null::text as "oldModel", null::text as "newModel", e."PacketTimestamp", e."DeviceRecordID", e."IMEINumber"
      from event_records e where e."EventType" = any(${types})
    union all
    select 'dm1_event'::text, e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", null::double precision, null::double precision,
           null::double precision, e."PhaseAEvent", e."PhaseBEvent", e."PhaseCEvent", null::text, null::text, e."PacketTimestamp", e."DeviceRecordID", e."IMEINumber"
      from dm1_event_records e where e."EventType" = any(${types})
    union all
    select 'model_change'::text, a.id, null::bigint, a."at", ${modelChange}, null::double precision, null::double precision, null::double precision,
           null::text, null::text, null::text, a."oldModel", a."newModel", a."at", a."DeviceRecordID", a."IMEINumber"
      from model_change_alerts a
  ) c`;
}

const SELECT = `c."Source", c."SourceID", c."EventID", c."EventTimestamp", c."EventType", c."PrefaultCurrent", c."FaultCurrent",
  c."RecoverCurrent", c."PhaseAEvent", c."PhaseBEvent", c."PhaseCEvent", c."oldModel", c."newModel", c."PacketTimestamp",
  c."DeviceRecordID", c."IMEINumber", d."Real_Name", d."Lat", d."Long", d."PowerLineID", pl.name as "PowerLineName",
  r."Ongoing_fault", r."ActualOngoingFault"`;

export const criticalData: ReadEndpoint = {
  path: '/critical-data',
  summary: 'Fault events and model-change alerts with device information',
  description: `Paginated fault events (EventType in ${CRITICAL_EVENT_TYPES.join(', ')}; standard and DM1 tables) and model-change alerts (EventType "${MODEL_CHANGE_EVENT_TYPE}") of every device in reach, with device name, location and power line; spec 3.4 applied; Ongoing_fault / ActualOngoingFault are those of the check-in that brought the event, masked per spec 3.5.`,
  params: { accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, rangeField: 'EventTimestamp', schema: 'CriticalEvent', shape: 'paginated',
  async run({ pool, codeStrings }, caller, q) {
    const p = new SqlParams();
    const source = union(`${p.add(CRITICAL_EVENT_TYPES)}::text[]`, `${p.add(MODEL_CHANGE_EVENT_TYPE)}::text`);
    const range = calendarDayRange(q.from, q.to, caller.timeZone);
    const conditions = [
      reachCondition(caller, p),
      ...rangeConditions('c."EventTimestamp"', range.fromMs, range.untilMs, p),
      ...filterConditions(q.filters, FILTERABLE, { maskFaultDetails: caller.maskFaultDetails, codeStrings }, p),
    ];
    const fromWhere = `from ${source}
      join device_information d on d."IMEINumber" = c."IMEINumber"
      left join power_lines pl on pl."Id" = d."PowerLineID"
      left join device_records r on r."RecordID" = c."DeviceRecordID"
      ${whereClause(conditions)}`;
    const ctx = presentContext(caller, codeStrings);
    return pageOf(pool, p, SELECT, fromWhere, orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER), q, (row) => {
      const { EventTable: _table, Event_Record_ID: _id, ...event } = presentEventRow({ ...row, EventTable: null, Event_Record_ID: null }, ctx);
      return {
        Source: row.Source, SourceID: row.SourceID, ...event,
        oldModel: row.oldModel ?? null, newModel: row.newModel ?? null,
        Real_Name: row.Real_Name ?? null, Lat: row.Lat ?? null, Long: row.Long ?? null,
        PowerLineID: row.PowerLineID ?? null, PowerLineName: row.PowerLineName ?? null,
        Ongoing_fault: displayFault(row.Ongoing_fault, ctx), ActualOngoingFault: displayFault(row.ActualOngoingFault, ctx),
      };
    });
  },
};
