// The OpenAPI 3.1 document of every route (docs/decisions.md: served at GET /openapi.json), made entirely from
// endpoint tables (docs/decisions.md#read-endpoint-tables): the device-records and fleet pages (ReadEndpoint),
// the other reads (read-routes.ts) and the writes (write-endpoints.ts) are described from the same entries
// that register them. test/structure/openapi-paths.test.ts proves every route is an entry and documented.
import type { CodeStrings } from '../../domain/code-strings.js';
import { READ_ENDPOINTS, READ_PREFIXES } from '../device-records/endpoints.js';
import { COUNT_CAP, type ReadEndpoint } from '../device-records/endpoint.js';
import { FLEET_ENDPOINTS } from '../fleet/endpoints.js';
import { queryParameters } from './parameters.js';
import { INTEGRATION_KEY_SCHEME } from '../integration-keys/endpoints.js';
import { COMPONENT_SCHEMAS, ref } from './schemas.js';
import { addOperation, errorResponse, json, openApiPath, type Obj } from '../openapi-kit.js';
import { writeOperations } from '../write-endpoint.js';
import { readRouteOperations } from '../read-route.js';
import { READ_ROUTES, SERVICE_READS } from './read-routes.js';
import { WRITE_ENDPOINTS } from './write-endpoints.js';

const AUTH_ERRORS = {
  401: errorResponse('Missing, malformed, expired or invalid bearer token.', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
};
const PARAM_ERROR = { 400: errorResponse('A query parameter is unknown, repeated or invalid; the message and details name it.') };
const NOT_FOUND = { 404: errorResponse('No such device, or the device is outside the caller\'s reach (the same answer).') };

/**
 * Routes this document leaves out on purpose: the SOAP endpoints (channels C/D) are XML, described by
 * their WSDL at GET /soap/wsdl (docs/decisions.md: the OpenAPI document covers every JSON endpoint).
 */
export const UNDOCUMENTED_PREFIXES = ['/soap'] as const;

/** Node's HTTP parser answers this, empty, before the app sees a request line or headers over 16 KiB. */
const TOO_LARGE = { 431: { description: 'The request line (URL) or headers are larger than the server accepts.' } };

/** Adds the responses every operation can give to each operation of `paths`. */
function withCommonResponses(paths: Record<string, Obj>): Record<string, Obj> {
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item) as Obj[]) op.responses = { ...(op.responses as Obj), ...TOO_LARGE };
  }
  return paths;
}

export { openApiPath };

/** The operations of read endpoints described once (endpoint.ts): the spec's under `prefix`, or another capability's at `/` (prefix ''). */
function readOperations(codeStrings: CodeStrings, prefix: string, endpoints: readonly ReadEndpoint[] = READ_ENDPOINTS): Record<string, Obj> {
  const paths: Record<string, Obj> = {};
  for (const e of endpoints) {
    const imei = e.path.includes(':imei');
    // Endpoints that take `after` answer `next`, the cursor to pass as `after` for the following page.
    const keyset = (e.params.accepts as readonly string[]).includes('after');
    const next = keyset ? { next: { type: ['string', 'null'], description: 'The cursor of this page\'s last row, to send as `after` for the next page; null when the page is not full (no more rows).' } } : {};
    const item = e.shape === 'paginated'
      ? { type: 'object', properties: { data: { type: 'array', items: ref(e.schema) }, page: { type: 'integer' }, limit: { type: 'integer' }, total: { type: 'integer' }, totalIsEstimate: { type: 'boolean', description: `true: more than ${COUNT_CAP} rows match a filter or day range, and total is the database planner's estimate instead of a count` }, ...next }, required: ['data', 'page', 'limit', 'total', 'totalIsEstimate', ...(keyset ? ['next'] : [])], additionalProperties: false }
      : e.shape === 'list'
        ? { type: 'object', properties: { data: { type: 'array', items: ref(e.schema) } }, required: ['data'], additionalProperties: false }
        : ref(e.schema);
    const alias = prefix !== READ_PREFIXES[0] && prefix !== '';
    const ok = e.shape === 'csv'
      ? { description: `CSV, one line per item (Content-Disposition: attachment; filename="${e.fileName ?? 'export.csv'}")`, content: { 'text/csv': { schema: { type: 'string' } } } }
      : { description: 'OK', ...json(item) };
    addOperation(paths, prefix + e.path, 'get', {
        operationId: e.operationId ?? `${alias ? 'api_' : ''}${e.path.replace(/\/:imei$/, '').replace(/^\//, '').replace(/[/-]+(.)/g, (_, ch: string) => ch.toUpperCase())}`,
        tags: [e.tag ?? 'device-records'],
        summary: alias ? `${e.summary} (alias of ${READ_PREFIXES[0]}${openApiPath(e.path)})` : e.summary,
        description: e.description,
        security: [{ bearerAuth: [] }],
        parameters: [
          ...(imei ? [{ name: 'imei', in: 'path', required: true, description: 'Device IMEI (spec 4.2 <imei_number>).', schema: { type: 'string' } }] : []),
          ...queryParameters(e.params, codeStrings, e.defaultSort, e.rangeField),
        ],
        responses: { 200: ok, ...PARAM_ERROR, ...AUTH_ERRORS, ...(imei ? NOT_FOUND : {}) },
    });
  }
  return paths;
}

export function openApiDocument({ codeStrings, serverUrl }: { codeStrings: CodeStrings; serverUrl?: string }): Obj {
  return {
    openapi: '3.1.0',
    info: {
      title: 'faultline',
      version: '1',
      description: 'Fault-indicator data service: login, the integration REST endpoint and the read-only device-records interface (spec 4). Errors are {"error": {"code", "message", "details"?}}.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths: withCommonResponses(writeOperations(WRITE_ENDPOINTS, readRouteOperations(SERVICE_READS, {
      ...readRouteOperations(READ_ROUTES),
      ...Object.assign({}, ...READ_PREFIXES.map((prefix) => readOperations(codeStrings, prefix))),
      ...readOperations(codeStrings, '', FLEET_ENDPOINTS),
    }))),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, integrationKey: INTEGRATION_KEY_SCHEME },
      schemas: COMPONENT_SCHEMAS,
    },
  };
}
