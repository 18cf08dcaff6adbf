// The endpoints of integration keys (routes.ts registers them from these entries; the OpenAPI document
// describes them from the same ones, api/read-route.ts and api/write-endpoint.ts; docs/decisions.md#integration-keys-and-the-mask).
// List, create, rotate, revoke: an organisation admin. Also the key's security scheme, and the security and
// errors of the integration outputs a key may read (api/dnp3/, api/iec104/).
import { KEY_NAME_MAX } from '../auth/integration-keys.js';
import { BEARER, errorResponse, json, type Obj } from '../openapi-kit.js';
import { readRoute } from '../read-route.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';

export const INTEGRATION_KEYS_PATH = '/api/integration-keys' as const;

const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const timeOrNull = { type: ['string', 'null'], format: 'date-time' };

/** A key as listed: never the key or its hash. */
export const KEY_INFO = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[0-9a-f]{16}$', description: 'Names the key; the part of the key after flk_.' },
    name: str, role: { type: 'string', enum: ['integration'] }, createdBy: { type: 'string', description: 'The admin who created it (e-mail), or "operator (command line)" for a key the operator issued.' },
    createdAt: time, rotatedAt: timeOrNull, lastUsedAt: { ...timeOrNull, description: 'Last request made with the key, to the minute.' }, revokedAt: timeOrNull,
  },
  required: ['id', 'name', 'role', 'createdBy', 'createdAt', 'rotatedAt', 'lastUsedAt', 'revokedAt'],
  additionalProperties: false,
};
const WITH_KEY = {
  ...KEY_INFO,
  properties: { ...KEY_INFO.properties, key: { type: 'string', pattern: '^flk_[0-9a-f]{16}_[0-9a-f]{64}$', description: 'The key, shown this once: only a hash of it is kept.' } },
  required: [...KEY_INFO.required, 'key'],
};
/** 401 and 403 of the routes that manage keys. */
export const KEY_ADMIN_ERRORS = {
  401: errorResponse('Missing, malformed, expired or invalid bearer token.', { 'WWW-Authenticate': { schema: str } }),
  403: errorResponse('The caller is not an organisation admin (an integration key cannot manage keys).'),
};
/** Create and rotate: an admin of a masked organisation is refused (a key reads the class unmasked). */
const ADMIN_UNMASKED = {
  ...KEY_ADMIN_ERRORS,
  403: errorResponse('The caller is not an organisation admin (an integration key cannot manage keys), or the organisation masks fault details (details.reason masked-organisation): the operator issues its keys with `faultline integration-keys`.'),
};
const idPath: Obj = { name: 'id', in: 'path', required: true, description: 'The key\'s id, as listed.', schema: { type: 'string', pattern: '^[0-9a-f]{16}$' } };

export const CREATE_KEY = writeEndpoint({
  method: 'post', path: INTEGRATION_KEYS_PATH,
  operationId: 'createIntegrationKey', tag: 'integration', summary: 'Create an integration key (admin)',
  description: 'A machine credential for the SCADA integration outputs. The answer holds the key once (Cache-Control: no-store). Refused (403) in an organisation that masks fault details: the key would read them unmasked.',
  body: { schema: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: KEY_NAME_MAX } }, required: ['name'], additionalProperties: false }, limit: 4 * 1024, invalid: 'The body is not JSON or "name" is missing or invalid.' },
  responses: { 201: { description: 'Created', ...json(WITH_KEY) }, ...ADMIN_UNMASKED },
});

export const ROTATE_KEY = writeEndpoint({
  method: 'post', path: `${INTEGRATION_KEYS_PATH}/:id/rotate`,
  operationId: 'rotateIntegrationKey', tag: 'integration', summary: 'A new secret for an integration key (admin)',
  description: 'The old key stops working at once; the answer holds the new one once. For a change without a gap, create a second key, move the integration to it, then revoke the first. Refused (403) in an organisation that masks fault details.',
  parameters: [idPath],
  responses: { 200: { description: 'Rotated', ...json(WITH_KEY) }, 400: errorResponse('The id is not a key id.'), ...ADMIN_UNMASKED, 404: errorResponse('No key of the organisation with this id that is not revoked.') },
});

export const REVOKE_KEY = writeEndpoint({
  method: 'delete', path: `${INTEGRATION_KEYS_PATH}/:id`,
  operationId: 'revokeIntegrationKey', tag: 'integration', summary: 'Revoke an integration key (admin)',
  description: 'For good: the key is refused from the next request (401, reason revoked-key). It stays listed.',
  parameters: [idPath],
  responses: { 200: { description: 'Revoked', ...json(KEY_INFO) }, 400: errorResponse('The id is not a key id.'), ...KEY_ADMIN_ERRORS, 404: errorResponse('No key of the organisation with this id.') },
});

export const INTEGRATION_KEY_WRITES: readonly WriteEndpoint[] = [CREATE_KEY, ROTATE_KEY, REVOKE_KEY];

/** The scheme of a key: `Authorization: Bearer flk_<id>_<secret>`. */
export const INTEGRATION_KEY_SCHEME = {
  type: 'http', scheme: 'bearer', bearerFormat: 'flk_<id>_<secret>',
  description: 'An integration key an organisation admin created (POST /api/integration-keys), or, for an organisation that masks fault details, the operator (`faultline integration-keys create`). It reads only the SCADA integration outputs, and reads them unmasked.',
};

/** The outputs a key may read: a person's login (an admin) or a key. */
export const INTEGRATION_OUTPUT_SECURITY = [...BEARER, { integrationKey: [] }];
/** 401 and 403 of those outputs. */
export const INTEGRATION_OUTPUT_ERRORS = {
  401: errorResponse('Missing, malformed, expired or invalid bearer token; an unknown or revoked integration key (details.reason says which).', { 'WWW-Authenticate': { schema: str } }),
  403: errorResponse('The caller is neither an organisation admin nor an integration key.'),
  429: errorResponse('Too many failed credentials from this client address (the login limit).', { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } }),
};

export const LIST_KEYS = readRoute({
  path: INTEGRATION_KEYS_PATH, operationId: 'integrationKeys', tag: 'integration', summary: 'The organisation\'s integration keys (admin)',
  description: 'Every key, revoked ones included, with who created it and when it was last used. Never the key or its hash.',
  responses: { 200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: KEY_INFO } }, required: ['data'] }) }, 400: errorResponse('A query parameter is not accepted.'), ...KEY_ADMIN_ERRORS },
});
