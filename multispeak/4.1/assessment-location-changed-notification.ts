import type { OperationBody } from '../operations.js';
import { assessmentLocation } from './objects.js';

// 4.1 dropped 3.0's transactionID here (reference 9).
export const assessmentLocationChangedNotification: OperationBody = {
  operation: 'AssessmentLocationChangedNotification', version: '4.1',
  write: (w, n) => w.node('locations', {}, (a) => assessmentLocation(a, n)),
};
