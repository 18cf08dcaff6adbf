import type { OperationBody } from '../operations.js';
import { scadaAnalog } from './objects.js';

export const scadaAnalogChangedNotificationByPointId: OperationBody = {
  operation: 'SCADAAnalogChangedNotificationByPointID', version: '4.1',
  write: (w, n) => scadaAnalog(w, n),
};
