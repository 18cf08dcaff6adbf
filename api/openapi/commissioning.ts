// The OpenAPI paths of the commissioning kit (issue 21): test faults and DNP3 diagnostics.
import { DIAGNOSTICS_PATH } from '../dnp3/diagnostics.js';
import { CLEAR_AFTER_BOUNDS, TEST_FAULT_TARGETS_PATH, TEST_FAULTS_PATH } from '../test-faults/routes.js';
import { DISCARD_REASONS } from '../../dnp3/diagnostics/reasons.js';
import { TIMELINE_STEPS } from '../../domain/test-fault.js';
import { CHANNELS_BY_KIND } from '../../reference-data/integration-settings.js';
import { ref } from './schemas.js';
import { closed, errorResponse, json, type Obj } from '../openapi-kit.js';

const str = { type: 'string' };
const iso = { type: 'string', format: 'date-time' };
const AUTH = {
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

const testFault = closed({
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

export const COMMISSIONING_PATHS: Record<string, Obj> = {
  [TEST_FAULT_TARGETS_PATH]: {
    get: {
      operationId: 'listTestFaultTargets', tags: ['integration'], summary: 'The integrations a test fault reaches (admin)',
      description: 'The enabled integrations of the caller\'s organisation: the SCADA masters (dnp3, iec104) and OMS endpoints (multispeak) a test fault\'s check-ins are delivered to. The portal names them before starting a test fault.',
      security: [{ bearerAuth: [] }],
      responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: closed({ id: str, kind: { enum: Object.keys(CHANNELS_BY_KIND) }, channel: { enum: ['A', 'B', 'C', 'D', 'E'] } }) } })) }, ...AUTH },
    },
  },
  [TEST_FAULTS_PATH]: {
    post: {
      operationId: 'startTestFault', tags: ['integration'], summary: 'Start a test fault for a device (admin)',
      description: 'Sends a synthetic fault check-in for the device, marked as a test, through the configured queue and the real pipeline to the DNP3 master and the OMS, and a clearing check-in after clearAfterSeconds (default TEST_FAULT_CLEAR_SECONDS). The answer is the test fault with its timeline so far.',
      security: [{ bearerAuth: [] }],
      requestBody: {
        required: true,
        ...json(closed({ imei: { type: 'string', pattern: '^[0-9]{14,16}$' }, clearAfterSeconds: { type: 'integer', minimum: CLEAR_AFTER_BOUNDS.min, maximum: CLEAR_AFTER_BOUNDS.max } }, ['imei'])),
      },
      responses: {
        202: { description: 'Started', headers: { Location: { schema: str } }, ...json(testFault) },
        400: errorResponse('The body is not JSON or a field is missing or invalid; the message names it.'),
        ...AUTH,
        404: errorResponse('No such device in the caller\'s organisation.'),
        409: errorResponse('The device reports a fault now, or another test fault of it is still running.'),
        413: errorResponse('The body is larger than 4 KiB.'),
        415: errorResponse('The body is not sent as application/json.'),
        503: errorResponse('This API process has no device queue configured.'),
      },
    },
    get: {
      operationId: 'listTestFaults', tags: ['integration'], summary: 'Test faults of the caller\'s organisation, newest first (admin)',
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: 'imei', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{14,16}$' } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,3}$' }, description: '1 to 100, default 20' },
      ],
      responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: testFault } })) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...AUTH },
    },
  },
  [`${TEST_FAULTS_PATH}/{id}`]: {
    get: {
      operationId: 'getTestFault', tags: ['integration'], summary: 'One test fault with its timeline (admin)',
      security: [{ bearerAuth: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
      responses: { 200: { description: 'OK', ...json(testFault) }, 400: errorResponse('The id is not a number.'), ...AUTH, 404: errorResponse('No such test fault in the caller\'s organisation.') },
    },
  },
  [DIAGNOSTICS_PATH]: {
    get: {
      operationId: 'dnp3Diagnostics', tags: ['integration'], summary: 'DNP3 frames and requests the outstation discarded, by reason (admin)',
      description: 'Beside the point map: for each DNP3 integration of the organisation, every reason the outstation discarded or refused a frame or request, with the count, first and last time and what the master must do, and the master settings faultline expects.',
      security: [{ bearerAuth: [] }],
      responses: {
        200: {
          description: 'OK',
          ...json(closed({
            organizationId: str,
            integrations: {
              type: 'array',
              items: closed({
                id: str, outstationAddress: { type: 'integer' }, masterAddress: { type: 'integer' }, unsolicited: { type: 'boolean' },
                expectedMasterSettings: { type: 'array', items: str },
                discards: {
                  type: 'array',
                  items: closed({ reason: { enum: Object.keys(DISCARD_REASONS) }, layer: { enum: ['link', 'transport', 'application'] }, meaning: str, count: { type: 'integer' }, firstAt: iso, lastAt: iso }),
                },
              }),
            },
          })),
        },
        400: errorResponse('A query parameter was sent; none is accepted.'),
        ...AUTH,
        404: errorResponse('The organisation has no DNP3 integration.'),
      },
    },
  },
};
