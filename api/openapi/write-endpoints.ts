// Every write endpoint table of the API (api/write-endpoint.ts): the document describes these, and
// test/structure/openapi-paths.test.ts proves every POST, PUT, PATCH and DELETE the app registers is one of them.
import { LOGIN } from '../auth/login-endpoint.js';
import { ALARM_WRITES } from '../alarms/endpoints.js';
import { INCIDENT_CAUSE_WRITES } from '../incidents/cause-endpoints.js';
import { INDICATOR_AUDIT_WRITES } from '../indicator-audit/endpoints.js';
import { INTEGRATION_KEY_WRITES } from '../integration-keys/endpoints.js';
import { TEST_FAULT_WRITES } from '../test-faults/endpoints.js';
import type { WriteEndpoint } from '../write-endpoint.js';

export const WRITE_ENDPOINTS: readonly WriteEndpoint[] = [
  LOGIN,
  ...INTEGRATION_KEY_WRITES,
  ...ALARM_WRITES,
  ...INDICATOR_AUDIT_WRITES,
  ...INCIDENT_CAUSE_WRITES,
  ...TEST_FAULT_WRITES,
];
