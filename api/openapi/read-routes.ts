// Every read route table of the API that is not a page of device records (api/read-route.ts), in the order the
// document lists them: the document describes these, and test/structure/openapi-paths.test.ts proves every GET
// the app registers is an entry of these tables or of the device-records and fleet ones.
import { ALARM_READS } from '../alarms/endpoints.js';
import { GET_BOARD } from '../board/endpoints.js';
import { GET_DEENERGISED_SECTIONS } from '../deenergised-sections/endpoints.js';
import { DNP3_OUTPUT_READS, GET_DIAGNOSTICS } from '../dnp3/endpoints.js';
import { HEALTH_READS } from '../health/routes.js';
import { GET_IEC104_DIAGNOSTICS, GET_IEC104_INTEROPERABILITY, GET_IEC104_POINT_MAP } from '../iec104/endpoints.js';
import { INCIDENT_CAUSE_READS } from '../incidents/cause-endpoints.js';
import { INCIDENT_READS } from '../incidents/endpoints.js';
import { GET_FINDINGS } from '../indicator-audit/endpoints.js';
import { LIST_KEYS } from '../integration-keys/endpoints.js';
import { OPS_READS } from '../ops-routes.js';
import { GET_PORTAL_SETTINGS } from '../portal-settings.js';
import type { ReadRoute } from '../read-route.js';
import { RELIABILITY_READS } from '../reliability/endpoints.js';
import { TEST_FAULT_READS } from '../test-faults/endpoints.js';

/** The capabilities' reads: listed before the device-records pages. */
export const READ_ROUTES: readonly ReadRoute[] = [
  ...DNP3_OUTPUT_READS,
  ...TEST_FAULT_READS,
  GET_DIAGNOSTICS,
  LIST_KEYS,
  GET_IEC104_POINT_MAP,
  GET_IEC104_INTEROPERABILITY,
  GET_IEC104_DIAGNOSTICS,
  ...INCIDENT_READS,
  GET_FINDINGS,
  ...INCIDENT_CAUSE_READS,
  ...RELIABILITY_READS,
  GET_PORTAL_SETTINGS,
  ...ALARM_READS,
  GET_BOARD,
  GET_DEENERGISED_SECTIONS,
];

/** The service's own reads (health, metrics, the document): listed last, no credential. */
export const SERVICE_READS: readonly ReadRoute[] = [...HEALTH_READS, ...OPS_READS];
