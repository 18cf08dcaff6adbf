// The OpenAPI paths of the IEC 104 commissioning outputs (api/iec104/point-map.ts, interoperability.ts), merged
// into the document by document.ts (which this file must not import: the document imports it); the sibling of
// iec104-diagnostics.ts.
import { IEC104_INTEROPERABILITY_PATH } from '../iec104/interoperability.js';
import { IEC104_POINT_MAP_PATH } from '../iec104/point-map.js';
import { INTEGRATION_OUTPUT_ERRORS, INTEGRATION_OUTPUT_SECURITY } from './integration-keys.js';
import { closed, errorResponse, type Obj } from '../openapi-kit.js';

const int = { type: 'integer' };
const str = { type: 'string' };
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

export const IEC104_COMMISSIONING_OPENAPI: Record<string, Obj> = {
  [IEC104_POINT_MAP_PATH]: {
    get: {
      operationId: 'iec104PointMap', tags: ['integration'], summary: 'IEC 104 point map of the caller\'s organisation (admin)',
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
    },
  },
  [IEC104_INTEROPERABILITY_PATH]: {
    get: {
      operationId: 'iec104Interoperability', tags: ['integration'], summary: 'IEC 60870-5-104 interoperability list of the caller\'s station (admin)',
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
    },
  },
};
