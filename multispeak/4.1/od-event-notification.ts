import type { OperationBody } from '../operations.js';
import { outageDetectionEvent } from './objects.js';

export const odEventNotification: OperationBody = {
  operation: 'ODEventNotification', version: '4.1',
  write: (w, n) => w.node('ODEvents', {}, (a) => outageDetectionEvent(a, n)).leaf('transactionID', n.messageId),
};
