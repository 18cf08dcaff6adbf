// The login's write endpoint (login-route.ts registers it from this entry; the OpenAPI document describes it
// from the same one, api/write-endpoint.ts). Public: the one route that makes a bearer token.
import { errorResponse, json, ref } from '../openapi-kit.js';
import { writeEndpoint } from '../write-endpoint.js';
import { TOKEN_LIFETIME_S } from './tokens.js';

export const LOGIN_BODY_LIMIT = 4 * 1024;
const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } };

export const LOGIN = writeEndpoint({
  method: 'post', path: '/api/auth/login',
  operationId: 'login', tag: 'auth', summary: 'Log in and get a bearer token',
  description: `Organisation users and admins. Same 401 for a wrong email and a wrong password. Rate limited per email and per client address (failed attempts). The token lives ${TOKEN_LIFETIME_S / 3600} hours.`,
  security: [],
  body: { schema: ref('LoginRequest'), limit: LOGIN_BODY_LIMIT, noun: 'The login body', invalid: 'The body is not JSON or a field is missing or invalid (details.field names it).' },
  responses: {
    200: { description: 'Logged in', ...json(ref('LoginResponse')) },
    401: errorResponse('Wrong email or password.'),
    429: errorResponse('Too many failed logins for this email or client address (shared with SOAP logins).', retryAfter),
    503: errorResponse('Too many password checks at once (a login flood); try again after Retry-After.', retryAfter),
  },
});
