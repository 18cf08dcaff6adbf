import type { OperationBody } from '../operations.js';
import { scadaStatus } from './objects.js';

export const scadaStatusChangedNotificationByPointId: OperationBody = {
  operation: 'SCADAStatusChangedNotificationByPointID', version: '4.1',
  write: (w, n) => scadaStatus(w, n),
};
