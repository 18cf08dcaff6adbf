// The notification operations faultline sends (spec 6.3) and the contract each operation file fulfils.
import type { Writer } from './envelope.js';
import type { Notification } from './notification.js';
import type { Version } from './versions.js';

export const OPERATIONS = [
  'SCADAStatusChangedNotificationByPointID',
  'SCADAStatusChangedNotification',
  'AssessmentLocationChangedNotification',
  'ODEventNotification',
  'SCADAAnalogChangedNotificationByPointID',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The operation that may carry every check-in (an integration's `checkins` setting), not only status changes. */
export const CHECKIN_OPERATION: Operation = 'SCADAAnalogChangedNotificationByPointID';

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value);
}

/** One operation in one version: the children of the body element. */
export interface OperationBody {
  operation: Operation;
  version: Version;
  write(w: Writer, n: Notification): void;
}
