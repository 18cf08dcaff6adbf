// The device record as stored (spec 2.2, 6.1 step 8): device_data with the model replaced (3.3), the
// enrichment copies (6.1 step 3) and the computed fault code (3.2). RecordID and CreatedDate are generated
// by the database and are not part of the decision.
import type { DeviceData } from './checkin.js';
import type { Enrichment } from './enrichment.js';

export interface DeviceRecord extends DeviceData, Enrichment {
  /** Spec 2.2: ActualOngoingFault, computed per 3.2. Ongoing_fault holds the same value. */
  ActualOngoingFault: number;
  /** The device-reported Ongoing_fault, kept for audit (docs/decisions.md#processing). */
  ReportedOngoingFault: number;
}

/** What later check-ins of the device need from its previous stored record (6.1 steps 4, 5, 7, 8). */
export interface PreviousRecord {
  date: string;
  model: string | null;
  AverageCurrent1m: number | null;
  ActualOngoingFault: number | null;
}

export interface DeviceRecordParts {
  device: DeviceData;
  model: string | null;
  enrichment: Enrichment;
  actualOngoingFault: number;
}

export function buildDeviceRecord({ device, model, enrichment, actualOngoingFault }: DeviceRecordParts): DeviceRecord {
  return {
    ...device,
    model,
    Ongoing_fault: actualOngoingFault,
    ...enrichment,
    ActualOngoingFault: actualOngoingFault,
    ReportedOngoingFault: device.Ongoing_fault,
  };
}

/** The PreviousRecord view of a record just decided, for the caller's per-device cache. */
export function toPreviousRecord(record: DeviceRecord): PreviousRecord {
  return {
    date: record.date,
    model: record.model,
    AverageCurrent1m: record.AverageCurrent1m,
    ActualOngoingFault: record.ActualOngoingFault,
  };
}
