// The OpenAPI side of integration keys (api/integration-keys/routes.ts; docs/decisions.md#integration-keys-and-the-mask):
// the list, the security scheme, and the security of the outputs a key may read. Create, rotate and revoke are
// described by their entries (api/integration-keys/endpoints.ts).
import { INTEGRATION_KEYS_PATH, KEY_ADMIN_ERRORS, KEY_INFO } from '../integration-keys/endpoints.js';
import { BEARER, errorResponse, json, type Obj } from '../openapi-kit.js';

const str = { type: 'string' };

/** The scheme of a key: `Authorization: Bearer flk_<id>_<secret>`. */
export const INTEGRATION_KEY_SCHEME = {
  type: 'http', scheme: 'bearer', bearerFormat: 'flk_<id>_<secret>',
  description: 'An integration key an organisation admin created (POST /api/integration-keys), or, for an organisation that masks fault details, the operator (`faultline integration-keys create`). It reads only the SCADA integration outputs, and reads them unmasked.',
};

/** The outputs a key may read: a person's login (an admin) or a key. */
export const INTEGRATION_OUTPUT_SECURITY = [{ bearerAuth: [] }, { integrationKey: [] }];
/** 401 and 403 of those outputs. */
export const INTEGRATION_OUTPUT_ERRORS = {
  401: errorResponse('Missing, malformed, expired or invalid bearer token; an unknown or revoked integration key (details.reason says which).', { 'WWW-Authenticate': { schema: str } }),
  403: errorResponse('The caller is neither an organisation admin nor an integration key.'),
  429: errorResponse('Too many failed credentials from this client address (the login limit).', { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } }),
};

const security = BEARER;

export const INTEGRATION_KEY_PATHS: Record<string, Obj> = {
  [INTEGRATION_KEYS_PATH]: {
    get: {
      operationId: 'integrationKeys', tags: ['integration'], summary: 'The organisation\'s integration keys (admin)',
      description: 'Every key, revoked ones included, with who created it and when it was last used. Never the key or its hash.',
      security, responses: { 200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: KEY_INFO } }, required: ['data'] }) }, 400: errorResponse('A query parameter is not accepted.'), ...KEY_ADMIN_ERRORS },
    },
  },
};
