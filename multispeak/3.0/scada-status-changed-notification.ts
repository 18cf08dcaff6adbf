import type { OperationBody } from '../operations.js';
import { scadaStatus } from './objects.js';

export const scadaStatusChangedNotification: OperationBody = {
  operation: 'SCADAStatusChangedNotification', version: '3.0',
  write: (w, n) => w.node('scadaStatuses', {}, (a) => scadaStatus(a, n)),
};
