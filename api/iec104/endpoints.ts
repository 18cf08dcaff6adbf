// The read endpoints of IEC 104 (point-map.ts, interoperability.ts, diagnostics.ts register them from these
// entries; the OpenAPI document describes them from the same ones, api/read-route.ts): the commissioning outputs
// an admin or an integration key reads, and what masters did wrong (admin).
import { REFUSAL_REASONS } from '../../iec104/diagnostics/reasons.js';
import { INTEGRATION_OUTPUT_ERRORS, INTEGRATION_OUTPUT_SECURITY } from '../integration-keys/endpoints.js';
import { closed, errorResponse, json, ref } from '../openapi-kit.js';
import { readRoute } from '../read-route.js';

export const IEC104_POINT_MAP_PATH = '/api/iec104/pointMap';
export const IEC104_INTEROPERABILITY_PATH = '/api/iec104/interoperability';
export const IEC104_DIAGNOSTICS_PATH = '/api/iec104/diagnostics';

const int = { type: 'integer' };
const str = { type: 'string' };
const iso = { type: 'string', format: 'date-time' };
const orNull = (type: string) => ({ type: [type, 'null'] });
const ERRORS = {
  ...INTEGRATION_OUTPUT_ERRORS,
  404: errorResponse('The organisation has no enabled IEC 104 integration.'),
};
const status = { enum: ['supported', 'not supported', 'not applicable', 'not used in 104'] };

const pointRow = closed({
  bank: int, commonAddress: int, ioa: int, kind: { enum: ['binary', 'analog'] },
  interrogationType: { enum: ['M_SP_NA_1', 'M_ME_NC_1'] }, spontaneousType: { enum: ['M_SP_TB_1', 'M_ME_TF_1', null] },
  group: int, point: str, slot: orNull('integer'), imei: orNull('string'), deviceName: orNull('string'), deadband: orNull('number'), unit: orNull('string'),
});

const section = closed({
  clause: str, title: str,
  items: { type: 'array', items: closed({ item: str, status, value: str }, ['item', 'status']) },
  types: { type: 'array', items: closed({ group: str, types: { type: 'array', items: closed({ typeId: int, name: str, description: str, status, note: str }, ['typeId', 'name', 'description', 'status']) } }) },
  causes: { type: 'array', items: closed({ typeId: int, name: str, causes: { type: 'array', items: int } }) },
  parameters: { type: 'array', items: closed({ name: str, value: { type: 'number' }, default: { type: 'number' }, unit: { enum: ['frames', 's'] }, range: { type: 'array', items: int, minItems: 2, maxItems: 2 }, meaning: str }) },
}, ['clause', 'title', 'items']);

const integration = closed({
  id: str,
  masterIdentity: { type: 'string', description: 'the DNS SAN (or CN, without a DNS SAN) the master\'s client certificate must carry' },
  certificateMode: { enum: ['ca', 'pinned'] },
  tlsMinVersion: { enum: ['TLSv1.2', 'TLSv1.3'] },
  port: { type: ['integer', 'null'], description: 'the integration\'s own port besides IEC104_PORT, or null' },
  commonAddresses: { type: 'array', items: closed({ bank: int, commonAddress: int }), description: 'the common address (ASDU address) of each bank' },
  apci: closed({ k: int, w: int, t0: int, t1: int, t2: int, t3: int }, ['k', 'w', 't0', 't1', 't2', 't3']),
  expectedMasterSettings: { type: 'array', items: str },
  refusals: {
    type: 'array',
    items: closed({ reason: { enum: Object.keys(REFUSAL_REASONS) }, meaning: str, count: int, firstAt: iso, lastAt: iso }),
  },
});


export const GET_IEC104_POINT_MAP = readRoute({
  path: IEC104_POINT_MAP_PATH, operationId: 'iec104PointMap', tag: 'integration', summary: 'IEC 104 point map of the caller\'s organisation (admin)',
  description: 'Every point of the organisation\'s IEC 104 station: bank and common address, IOA, the type in interrogation (M_SP_NA_1, M_ME_NC_1) and spontaneous (M_SP_TB_1, M_ME_TF_1), interrogation group, meaning, device, slot and deadband; the heartbeat at IOA 100000 of each bank. The slots are the DNP3 point map\'s. JSON by default; CSV with format=csv or Accept: text/csv.',
  security: INTEGRATION_OUTPUT_SECURITY,
  parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'] } }],
  responses: {
    200: {
      description: 'OK',
      content: {
        'application/json': {
          schema: closed({
            organizationId: str, integrationId: str, commonAddress: int, analogOnly: { type: 'boolean' }, heartbeatIoa: int,
            banks: { type: 'array', items: closed({ bank: int, commonAddress: int, firstSlot: int, lastSlot: int }) },
            points: { type: 'array', items: pointRow },
          }),
        },
        'text/csv': { schema: str },
      },
    },
    400: errorResponse('A query parameter is invalid or not accepted.'),
    ...ERRORS,
  },
});

export const GET_IEC104_INTEROPERABILITY = readRoute({
  path: IEC104_INTEROPERABILITY_PATH, operationId: 'iec104Interoperability', tag: 'integration', summary: 'IEC 60870-5-104 interoperability list of the caller\'s station (admin)',
  description: 'The interoperability list of IEC 60870-5-104 clause 9, generated from the running configuration of the organisation\'s iec104 integration (common addresses, k, w, t0..t3, TLS, port) and the station\'s own type table and command handling. JSON by default; Markdown with format=markdown.',
  security: INTEGRATION_OUTPUT_SECURITY,
  parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'markdown'] } }],
  responses: {
    200: {
      description: 'OK',
      content: {
        'application/json': { schema: closed({ title: str, integrationId: orNull('string'), sections: { type: 'array', items: section } }) },
        'text/markdown': { schema: str },
      },
    },
    400: errorResponse('A query parameter is invalid or not accepted.'),
    ...ERRORS,
  },
});

export const GET_IEC104_DIAGNOSTICS = readRoute({
  path: IEC104_DIAGNOSTICS_PATH, operationId: 'iec104Diagnostics', tag: 'integration', summary: 'What IEC 104 masters did wrong, by reason, and the settings they must match (admin)',
  description: 'For each IEC 104 integration of the organisation: the settings a controlling station must match (identity, TLS, common address per bank, k, w, t0..t3, in seconds), the same as sentences, and every refusal the station made (negative confirmations, closed connections, TLS refusals for a trusted certificate naming the integration), with count, first and last time and what to change.',
  responses: {
    200: { description: 'OK', ...json(closed({ organizationId: str, integrations: { type: 'array', items: integration } })) },
    400: errorResponse('A query parameter was sent; none is accepted.'),
    401: { description: 'Missing, malformed, expired or invalid bearer token.', headers: { 'WWW-Authenticate': { schema: str } }, ...json(ref('Error')) },
    403: errorResponse('The caller is not an organisation admin.'),
    404: errorResponse('The organisation has no IEC 104 integration.'),
  },
});
