// TypeScript shapes of the topic values of topics.ts (avsc decodes `['null', T]` unions to `T | null`).
import type { CheckIn, DeviceSnapshot } from '../../domain/checkin.js';

export interface Origin {
  messageId: string;
  source: string;
  /** ms since the epoch */
  receivedAt: number;
}

export interface RawMessage extends Origin {
  imei: string;
  body: string;
}

export interface EnrichedCheckIn extends Origin {
  checkIn: CheckIn;
  reportedModel: string | null;
  device: DeviceSnapshot | null;
  CurrentName: string | null;
  CurrentLat: number | null;
  CurrentLong: number | null;
}

export interface DedupedCheckIn extends EnrichedCheckIn {
  droppedEvents: number;
}

export interface EventShift {
  EventID: number;
  fromTimestamp: string;
  toTimestamp: string;
}

export interface ComputedCheckIn extends DedupedCheckIn {
  ActualOngoingFault: number;
  ReportedOngoingFault: number;
  shifts: EventShift[];
  alert: { oldModel: string; newModel: string } | null;
  previousActualOngoingFault: number | null;
}

export interface PersistedCheckIn extends ComputedCheckIn {
  DeviceRecordID: number;
  ownsRecord: boolean;
  storedEventIds: number[];
}

export interface DeadLetter {
  messageId: string;
  source: string;
  imei: string | null;
  stage: string;
  code: string;
  reason: string;
  body: string;
  rejectedAt: number;
  /** PROCESSING_FAILED only (stages/runtime/runner.ts): where the record came from, and the error with its stack. */
  topic?: string | null;
  detail?: string | null;
}
