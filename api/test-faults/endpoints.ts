// The endpoints of test faults (routes.ts registers them from these entries; the OpenAPI document describes
// them from the same ones, api/read-route.ts and api/write-endpoint.ts): an admin lists the integrations a test
// fault reaches, starts a test fault for a device and reads test faults with their timelines.
import { TIMELINE_STEPS } from '../../domain/test-fault.js';
import { closed, errorResponse, json, ref } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';
import { CHANNELS_BY_KIND } from '../../reference-data/integration-settings.js';

export const TEST_FAULTS_PATH = '/api/test-faults';
/** GET: the integrations a test fault of the caller's organisation reaches (named before one is started). */
export const TEST_FAULT_TARGETS_PATH = '/api/test-fault-targets';
/** Bounds of clearAfterSeconds: long enough for a master's poll cycle, short enough to stay a test. */
export const CLEAR_AFTER_BOUNDS = { min: 5, max: 3600 } as const;

const str = { type: 'string' };
const iso = { type: 'string', format: 'date-time' };
/** 401 and 403 of the commissioning routes (organisation admins): test faults and the DNP3 diagnostics. */
export const COMMISSIONING_AUTH = {
  401: { description: 'Missing, malformed, expired or invalid bearer token.', headers: { 'WWW-Authenticate': { schema: str } }, ...json(ref('Error')) },
  403: errorResponse('The caller is not an organisation admin.'),
};

const timelineEntry = closed({
  phase: { enum: ['fault', 'clear'] },
  step: { enum: [...TIMELINE_STEPS] },
  text: str,
  at: iso,
  sinceQueuedMs: { type: ['integer', 'null'], description: 'milliseconds since this phase\'s check-in was queued' },
  sinceStepBeforeMs: { type: ['integer', 'null'], description: 'milliseconds since the step it follows: queued for stored, stored for dnp3Sent, iec104Sent, omsAnswered and omsFailed, dnp3Sent for dnp3Confirmed, iec104Sent for iec104Confirmed' },
  detail: { type: 'object', description: 'stored: recordId; DNP3: integration, bank, unsolicited, events; OMS: integration, kind, attempt, status and operation, or code and error' },
});

/** A test fault with its timeline. */
export const TEST_FAULT = closed({
  id: { type: 'integer' },
  IMEINumber: str,
  OrganizationID: str,
  startedBy: str,
  startedAt: iso,
  faultCode: { type: 'integer', description: 'the Ongoing_fault the synthetic fault check-in reports' },
  clearDueAt: iso,
  clearSentAt: { type: ['string', 'null'], format: 'date-time' },
  expects: closed({ dnp3: { type: 'boolean' }, iec104: { type: 'boolean' }, oms: { type: 'boolean' } }),
  complete: { type: 'boolean', description: 'every step both phases should pass (by what the organisation delivers to) is recorded' },
  timeline: { type: 'array', items: timelineEntry },
});

export const START_TEST_FAULT = writeEndpoint({
  method: 'post', path: TEST_FAULTS_PATH,
  operationId: 'startTestFault', tag: 'integration', summary: 'Start a test fault for a device (admin)',
  description: 'Sends a synthetic fault check-in for the device, marked as a test, through the configured queue and the real pipeline to the DNP3 master and the OMS, and a clearing check-in after clearAfterSeconds (default TEST_FAULT_CLEAR_SECONDS). The answer is the test fault with its timeline so far.',
  body: {
    schema: closed({ imei: { type: 'string', pattern: '^[0-9]{14,16}$' }, clearAfterSeconds: { type: 'integer', minimum: CLEAR_AFTER_BOUNDS.min, maximum: CLEAR_AFTER_BOUNDS.max } }, ['imei']),
    limit: 4096, invalid: 'The body is not JSON or a field is missing or invalid; the message names it.',
  },
  responses: {
    202: { description: 'Started', headers: { Location: { schema: str } }, ...json(TEST_FAULT) },
    ...COMMISSIONING_AUTH,
    404: errorResponse('No such device in the caller\'s organisation.'),
    409: errorResponse('The device reports a fault now, or another test fault of it is still running.'),
    503: errorResponse('This API process has no device queue configured.'),
  },
});

export const TEST_FAULT_WRITES: readonly WriteEndpoint[] = [START_TEST_FAULT];

export const GET_TEST_FAULT_TARGETS = readRoute({
  path: TEST_FAULT_TARGETS_PATH, operationId: 'listTestFaultTargets', tag: 'integration', summary: 'The integrations a test fault reaches (admin)',
  description: 'The enabled integrations of the caller\'s organisation: the SCADA masters (dnp3, iec104) and OMS endpoints (multispeak) a test fault\'s check-ins are delivered to. The portal names them before starting a test fault.',
  responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: closed({ id: str, kind: { enum: Object.keys(CHANNELS_BY_KIND) }, channel: { enum: ['A', 'B', 'C', 'D', 'E'] } }) } })) }, ...COMMISSIONING_AUTH },
});

export const GET_TEST_FAULTS = readRoute({
  path: TEST_FAULTS_PATH, operationId: 'listTestFaults', tag: 'integration', summary: 'Test faults of the caller\'s organisation, newest first (admin)',
  parameters: [
    { name: 'imei', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{14,16}$' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,3}$' }, description: '1 to 100, default 20' },
  ],
  responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: TEST_FAULT } })) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...COMMISSIONING_AUTH },
});

export const GET_TEST_FAULT = readRoute({
  path: `${TEST_FAULTS_PATH}/:id`, operationId: 'getTestFault', tag: 'integration', summary: 'One test fault with its timeline (admin)',
  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
  responses: { 200: { description: 'OK', ...json(TEST_FAULT) }, 400: errorResponse('The id is not a number.'), ...COMMISSIONING_AUTH, 404: errorResponse('No such test fault in the caller\'s organisation.') },
});

export const TEST_FAULT_READS: readonly ReadRoute[] = [GET_TEST_FAULT_TARGETS, GET_TEST_FAULTS, GET_TEST_FAULT];
