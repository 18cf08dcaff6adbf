// The alarm settings of the chatter suites' router, shared with the child process of chatter-crash.test.ts:
// no cap and no storm, so every change is one message per recipient.
import { loadAlarmSettings } from '../../../config/settings.js';

export const ROUTE_SETTINGS = loadAlarmSettings({ ALARM_RECIPIENT_CAP_PER_DAY: '1000', ALARM_STORM_THRESHOLD: '1000' });
