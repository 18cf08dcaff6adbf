import type { OperationBody } from '../operations.js';
import { scadaAnalog } from './objects.js';

export const scadaAnalogChangedNotificationByPointId: OperationBody = {
  operation: 'SCADAAnalogChangedNotificationByPointID', version: '3.0',
  write: (w, n) => scadaAnalog(w, n),
};
