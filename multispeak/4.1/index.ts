// The operation bodies of this version, by operation name.
import type { Operation, OperationBody } from '../operations.js';
import { assessmentLocationChangedNotification } from './assessment-location-changed-notification.js';
import { odEventNotification } from './od-event-notification.js';
import { scadaAnalogChangedNotificationByPointId } from './scada-analog-changed-notification-by-point-id.js';
import { scadaStatusChangedNotification } from './scada-status-changed-notification.js';
import { scadaStatusChangedNotificationByPointId } from './scada-status-changed-notification-by-point-id.js';

export const BODIES: Record<Operation, OperationBody> = {
  SCADAStatusChangedNotificationByPointID: scadaStatusChangedNotificationByPointId,
  SCADAStatusChangedNotification: scadaStatusChangedNotification,
  AssessmentLocationChangedNotification: assessmentLocationChangedNotification,
  ODEventNotification: odEventNotification,
  SCADAAnalogChangedNotificationByPointID: scadaAnalogChangedNotificationByPointId,
};
