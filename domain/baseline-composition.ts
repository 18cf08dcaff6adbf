// NOT the pipeline. One check-in decided the way the spec's own design runs it (spec 6.1 steps 2 to 11): every
// rule of domain/ applied in the spec's order to one message and what is stored of the device, with the spec's
// arrival-order event filter (high-water marks). It exists for two users: the baseline bench
// (bench/baseline.bench.ts, the spec's design measured) and the domain tests that walk the fixtures through
// the rules in one place. The pipeline composes the same rules in its stage handlers (stages/*/handler.ts,
// tested in test/stages/) and filters events in device time (domain/event-history.ts), so a check-in that
// arrives late after a crash is judged against the check-ins dated before it (docs/decisions.md). Pure: the
// caller loads `previous`, then writes what this returns.
import type { CheckIn, DeviceSnapshot } from './checkin.js';
import { deviceCurrentsRow, type DeviceCurrentsRow } from './device-currents.js';
import { buildDeviceRecord, toPreviousRecord, type DeviceRecord, type PreviousRecord } from './device-record.js';
import { dnp3Delivery, type Dnp3Output } from './dnp3-output.js';
import { isDuplicateCheckIn } from './duplicate-checkin.js';
import { enrich } from './enrichment.js';
import { filterNewEvents, type DropReason, type EventFilterState } from './event-filter.js';
import { eventTable, type EventRecord, type EventTable } from './event-record.js';
import { planFaultShifts, shiftedTimestamps, type StoredShiftCandidate, type TimestampShift } from './fault-shift.js';
import { modelChangeAlert, type ModelChangeAlert } from './model-change-alert.js';
import { replaceModel, type ModelMap } from './model-replacement.js';
import { computeActualOngoingFault, type OngoingFaultDecision } from './ongoing-fault.js';
import { epochMs } from './utc-timestamp.js';

/** What the caller knows of the device before this check-in. */
export interface DeviceHistory {
  /** The previous (latest) stored record of the device, or null. */
  record: PreviousRecord | null;
  /** High-water marks of the event filter, per table (null: nothing stored). */
  standardEvents: EventFilterState | null;
  dm1Events: EventFilterState | null;
  /**
   * Recently stored standard events of the device that a new event could still pair with for the Fault <50
   * move (spec 3.4): at least those less than 6 minutes before the newest stored event. More is harmless.
   */
  shiftCandidates: readonly StoredShiftCandidate[];
}

export interface DecideOptions {
  /** Spec 3.2 "very low" previous AverageCurrent1m, amperes. Default 1.0. */
  lowCurrentA?: number;
}

export interface DecideInput {
  checkIn: CheckIn;
  /** Device information at check-in time; null for an unregistered IMEI. */
  device: DeviceSnapshot | null;
  previous: DeviceHistory;
  modelMap: ModelMap;
  options?: DecideOptions;
}

export interface CheckInDecision {
  IMEINumber: string;
  /**
   * Same IMEINumber and date as the previous record: insert no record and no currents row, send no DNP3
   * output or alert; ack and count it. Events that still pass the filter (normally none, the resend
   * carries the same ones) are stored linked to that existing record.
   */
  duplicate: boolean;
  /** The record to insert (when not duplicate): model replaced, enriched, Ongoing_fault = computed. */
  record: DeviceRecord;
  /** Why ActualOngoingFault has its value (row of spec 3.2 and the triggering event). */
  ongoingFault: OngoingFaultDecision;
  /** ActualOngoingFault differs from the previous record's (no previous: differs from NONE). */
  faultChanged: boolean;
  table: EventTable;
  /** New events in message order, with final timestamps (Fault <50 moves applied). */
  events: EventRecord[];
  droppedEvents: { EventID: number; EventTimestamp: string; reason: DropReason }[];
  /** Moves of already stored Fault <50 events (UPDATE by IMEINumber, EventID, fromTimestamp). */
  storedShifts: TimestampShift[];
  alert: ModelChangeAlert | null;
  currents: DeviceCurrentsRow | null;
  dnp3: { address: string; payload: Dnp3Output } | null;
  /** The device's history after this check-in, for the caller's per-device cache. */
  next: Omit<DeviceHistory, 'shiftCandidates'>;
}

/**
 * Decides one validated check-in.
 *
 * @example
 *   const d = decideAsSpecWritten({ checkIn, device, previous, modelMap });
 *   if (!d.duplicate) insertRecord(d.record); insertEvents(d.table, d.events); updateShifts(d.storedShifts);
 */
export function decideAsSpecWritten(input: DecideInput): CheckInDecision {
  const { checkIn, device, previous, modelMap, options = {} } = input;
  const data = checkIn.device_data;
  const table = eventTable(checkIn.dm1_device);

  const model = replaceModel(data.model, modelMap); // 6.1 step 2, spec 3.3
  const enrichment = enrich(device); // step 3
  const duplicate = previous.record !== null && isDuplicateCheckIn(checkIn, previous.record.date); // step 8 check
  const alert = duplicate ? null : modelChangeAlert({ // step 5
    IMEINumber: data.IMEINumber, newModel: model, previous: previous.record, at: data.date, modelMap,
  });

  const filterState = checkIn.dm1_device ? previous.dm1Events : previous.standardEvents; // step 6
  const filtered = filterNewEvents(checkIn.events, filterState);

  const ongoingFault = computeActualOngoingFault({ // step 7, spec 3.2
    reported: data.Ongoing_fault,
    dm1: checkIn.dm1_device,
    newEvents: filtered.kept,
    previous: previous.record,
    lowCurrentA: options.lowCurrentA,
  });
  const record = buildDeviceRecord({ device: data, model, enrichment, actualOngoingFault: ongoingFault.code });

  // Spec 3.4 storage-time move; standard events only (DM1 events have no Fault <50 / SOTF / PFault / TFault).
  const shifts = checkIn.dm1_device ? [] : planFaultShifts(filtered.kept, previous.shiftCandidates);
  const newShifts = shifts.filter((s) => !s.stored);
  const events: EventRecord[] = filtered.kept.map((event) => ({
    ...event, table, IMEINumber: data.IMEINumber, PacketTimestamp: data.date, ...shiftedTimestamps(event, newShifts),
  }));

  const previousFault = previous.record?.ActualOngoingFault ?? 0;
  return {
    IMEINumber: data.IMEINumber,
    duplicate,
    record,
    ongoingFault,
    faultChanged: !duplicate && ongoingFault.code !== previousFault,
    table,
    events,
    droppedEvents: filtered.dropped.map(({ event, reason }) => ({ EventID: event.EventID, EventTimestamp: event.EventTimestamp, reason })),
    storedShifts: shifts.filter((s) => s.stored),
    alert,
    currents: duplicate ? null : deviceCurrentsRow(checkIn, enrichment.CurrentName), // step 10
    dnp3: dnp3Delivery(device, record, events, !duplicate), // step 11
    next: {
      record: duplicate ? previous.record : latestRecord(previous.record, toPreviousRecord(record)),
      standardEvents: checkIn.dm1_device ? previous.standardEvents : filtered.state,
      dm1Events: checkIn.dm1_device ? filtered.state : previous.dm1Events,
    },
  };
}

/**
 * Decision: "the previous record" is the latest by date, so a check-in delivered late (older date than
 * the stored one) is stored but does not become the reference for the next one.
 */
function latestRecord(stored: PreviousRecord | null, candidate: PreviousRecord): PreviousRecord {
  if (stored === null || epochMs(candidate.date) >= epochMs(stored.date)) return candidate;
  return stored;
}
