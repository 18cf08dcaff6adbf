import type { OperationBody } from '../operations.js';
import { scadaStatus } from './objects.js';

export const scadaStatusChangedNotificationByPointId: OperationBody = {
  operation: 'SCADAStatusChangedNotificationByPointID', version: '3.0',
  write: (w, n) => scadaStatus(w, n),
};
