import type { OperationBody } from '../operations.js';
import { assessmentLocation } from './objects.js';

export const assessmentLocationChangedNotification: OperationBody = {
  operation: 'AssessmentLocationChangedNotification', version: '3.0',
  write: (w, n) => w.node('locations', {}, (a) => assessmentLocation(a, n)).leaf('transactionID', n.messageId),
};
