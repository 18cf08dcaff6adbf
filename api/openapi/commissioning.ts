// The OpenAPI read paths of the commissioning kit (issue 21): test faults and DNP3 diagnostics. Starting a test
// fault is a write endpoint: api/test-faults/endpoints.ts.
import { DIAGNOSTICS_PATH } from '../dnp3/diagnostics.js';
import { TEST_FAULT, COMMISSIONING_AUTH, TEST_FAULT_TARGETS_PATH, TEST_FAULTS_PATH } from '../test-faults/endpoints.js';
import { DISCARD_REASONS } from '../../dnp3/diagnostics/reasons.js';
import { CHANNELS_BY_KIND } from '../../reference-data/integration-settings.js';
import { closed, errorResponse, json, type Obj } from '../openapi-kit.js';

const str = { type: 'string' };
const iso = { type: 'string', format: 'date-time' };

export const COMMISSIONING_PATHS: Record<string, Obj> = {
  [TEST_FAULT_TARGETS_PATH]: {
    get: {
      operationId: 'listTestFaultTargets', tags: ['integration'], summary: 'The integrations a test fault reaches (admin)',
      description: 'The enabled integrations of the caller\'s organisation: the SCADA masters (dnp3, iec104) and OMS endpoints (multispeak) a test fault\'s check-ins are delivered to. The portal names them before starting a test fault.',
      security: [{ bearerAuth: [] }],
      responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: closed({ id: str, kind: { enum: Object.keys(CHANNELS_BY_KIND) }, channel: { enum: ['A', 'B', 'C', 'D', 'E'] } }) } })) }, ...COMMISSIONING_AUTH },
    },
  },
  [TEST_FAULTS_PATH]: {
    get: {
      operationId: 'listTestFaults', tags: ['integration'], summary: 'Test faults of the caller\'s organisation, newest first (admin)',
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: 'imei', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{14,16}$' } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,3}$' }, description: '1 to 100, default 20' },
      ],
      responses: { 200: { description: 'OK', ...json(closed({ data: { type: 'array', items: TEST_FAULT } })) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...COMMISSIONING_AUTH },
    },
  },
  [`${TEST_FAULTS_PATH}/{id}`]: {
    get: {
      operationId: 'getTestFault', tags: ['integration'], summary: 'One test fault with its timeline (admin)',
      security: [{ bearerAuth: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
      responses: { 200: { description: 'OK', ...json(TEST_FAULT) }, 400: errorResponse('The id is not a number.'), ...COMMISSIONING_AUTH, 404: errorResponse('No such test fault in the caller\'s organisation.') },
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
        ...COMMISSIONING_AUTH,
        404: errorResponse('The organisation has no DNP3 integration.'),
      },
    },
  },
};
