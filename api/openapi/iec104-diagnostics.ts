// The OpenAPI path of GET /api/iec104/diagnostics (api/iec104/diagnostics.ts), the sibling of DNP3's in commissioning.ts.
import { IEC104_DIAGNOSTICS_PATH } from '../iec104/diagnostics.js';
import { REFUSAL_REASONS } from '../../iec104/diagnostics/reasons.js';
import { ref } from './schemas.js';
import { closed, errorResponse, json, type Obj } from '../openapi-kit.js';

const str = { type: 'string' };
const int = { type: 'integer' };
const iso = { type: 'string', format: 'date-time' };

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

export const IEC104_DIAGNOSTICS_PATHS: Record<string, Obj> = {
  [IEC104_DIAGNOSTICS_PATH]: {
    get: {
      operationId: 'iec104Diagnostics', tags: ['integration'], summary: 'What IEC 104 masters did wrong, by reason, and the settings they must match (admin)',
      description: 'For each IEC 104 integration of the organisation: the settings a controlling station must match (identity, TLS, common address per bank, k, w, t0..t3, in seconds), the same as sentences, and every refusal the station made (negative confirmations, closed connections, TLS refusals for a trusted certificate naming the integration), with count, first and last time and what to change.',
      security: [{ bearerAuth: [] }],
      responses: {
        200: { description: 'OK', ...json(closed({ organizationId: str, integrations: { type: 'array', items: integration } })) },
        400: errorResponse('A query parameter was sent; none is accepted.'),
        401: { description: 'Missing, malformed, expired or invalid bearer token.', headers: { 'WWW-Authenticate': { schema: str } }, ...json(ref('Error')) },
        403: errorResponse('The caller is not an organisation admin.'),
        404: errorResponse('The organisation has no IEC 104 integration.'),
      },
    },
  },
};
