// The OpenAPI 3.1 document of every route (docs/decisions.md: served at GET /openapi.json). The read
// endpoints and the write endpoints (write-endpoints.ts) are described from the same objects that mount them;
// the other reads are listed here or beside their routers,
// and test/api/openapi.test.ts walks the app's routes to prove each is documented and nothing else is.
import type { CodeStrings } from '../../domain/code-strings.js';
import { READ_ENDPOINTS, READ_PREFIXES } from '../device-records/endpoints.js';
import { COUNT_CAP, type ReadEndpoint } from '../device-records/endpoint.js';
import { FLEET_ENDPOINTS } from '../fleet/endpoints.js';
import { ORGANIZATION_DEVICES_PATH } from '../dnp3/organization-devices.js';
import { POINT_MAP_PATH } from '../dnp3/point-map.js';
import { DEVICE_PROFILE_PATH } from '../dnp3/device-profile.js';
import { COMMISSIONING_PATHS } from './commissioning.js';
import { INTEGRATION_KEY_PATHS, INTEGRATION_KEY_SCHEME, INTEGRATION_OUTPUT_ERRORS, INTEGRATION_OUTPUT_SECURITY } from './integration-keys.js';
import { IEC104_DIAGNOSTICS_PATHS } from './iec104-diagnostics.js';
import { queryParameters } from './parameters.js';
import { INCIDENT_OPENAPI_PATHS } from '../incidents/openapi.js';
import { INDICATOR_AUDIT_OPENAPI_PATHS } from '../indicator-audit/openapi.js';

import { CAUSE_OPENAPI_PATHS } from '../incidents/cause-openapi.js';
import { RELIABILITY_EXPORT_OPENAPI } from '../reliability/export-openapi.js';
import { RELIABILITY_OPENAPI_PATHS } from '../reliability/openapi.js';
import { IEC104_COMMISSIONING_OPENAPI } from './iec104-commissioning.js';
import { PORTAL_SETTINGS_OPENAPI } from '../portal-settings.js';
import { COMPONENT_SCHEMAS, ref } from './schemas.js';
import { errorResponse, json, openApiPath, type Obj } from '../openapi-kit.js';
import { writeOperations } from '../write-endpoint.js';
import { readRouteOperations } from '../read-route.js';
import { READ_ROUTES } from './read-routes.js';
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
    paths[openApiPath(prefix + e.path)] = {
      get: {
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
      },
    };
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
    paths: withCommonResponses(writeOperations(WRITE_ENDPOINTS, {
      [ORGANIZATION_DEVICES_PATH]: {
        get: {
          operationId: 'dnp3OrganizationDevices', tags: ['integration'], summary: 'Devices of the caller\'s organisation (admin)',
          description: 'Every non-deleted device of the organisation with location, power line, DNP3 queue address and slot, and latest status.',
          security: INTEGRATION_OUTPUT_SECURITY,
          responses: {
            200: { description: 'OK', ...json({ type: 'array', items: ref('OrganizationDevice') }) },
            ...INTEGRATION_OUTPUT_ERRORS,
          },
        },
      },
      [POINT_MAP_PATH]: {
        get: {
          operationId: 'dnp3PointMap', tags: ['integration'], summary: 'DNP3 point map of the caller\'s organisation (admin)',
          description: 'Every device slot with its binary and analog point indexes, classes and deadbands, so a master can be configured before go-live. JSON by default; CSV with format=csv or Accept: text/csv.',
          security: INTEGRATION_OUTPUT_SECURITY,
          parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'] } }],
          responses: {
            200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } }, 'text/csv': { schema: { type: 'string' } } } },
            400: errorResponse('A query parameter is invalid or not accepted.'),
            ...INTEGRATION_OUTPUT_ERRORS,
          },
        },
      },
      [DEVICE_PROFILE_PATH]: {
        get: {
          operationId: 'dnp3DeviceProfile', tags: ['integration'], summary: 'DNP3 device profile of one bank of the caller\'s outstation (admin)',
          description: 'The IEEE 1815 device profile (opendnp3\'s XML device-profile format) generated from the running configuration: link and application settings, TLS, function codes, objects and qualifiers, event classes, time synchronisation, unsolicited behaviour and the point list of the bank.',
          security: INTEGRATION_OUTPUT_SECURITY,
          parameters: [{ name: 'bank', in: 'query', required: false, description: 'Bank number as listed by the point map (default 0).', schema: { type: 'string', pattern: '^\\d{1,6}$' } }],
          responses: {
            200: { description: 'OK', content: { 'application/xml': { schema: { type: 'string' } } } },
            400: errorResponse('A query parameter is invalid or not accepted, or the bank does not exist.'),
            ...INTEGRATION_OUTPUT_ERRORS,
            404: errorResponse('The organisation has no DNP3 integration.'),
          },
        },
      },
      ...COMMISSIONING_PATHS,
      ...INTEGRATION_KEY_PATHS,
      ...IEC104_COMMISSIONING_OPENAPI,
      ...IEC104_DIAGNOSTICS_PATHS,
      ...INCIDENT_OPENAPI_PATHS,
      ...INDICATOR_AUDIT_OPENAPI_PATHS,

      ...CAUSE_OPENAPI_PATHS,
      ...RELIABILITY_EXPORT_OPENAPI,
      ...RELIABILITY_OPENAPI_PATHS,
      ...PORTAL_SETTINGS_OPENAPI,
      ...readRouteOperations(READ_ROUTES),
      ...Object.assign({}, ...READ_PREFIXES.map((prefix) => readOperations(codeStrings, prefix))),
      ...readOperations(codeStrings, '', FLEET_ENDPOINTS),
      '/healthz': { get: { operationId: 'healthz', tags: ['health'], summary: 'The process is up', responses: { 200: { description: 'Up', ...json(ref('Health')) } } } },
      '/readyz': {
        get: {
          operationId: 'readyz', tags: ['health'], summary: 'Every dependency answers',
          responses: { 200: { description: 'Ready', ...json(ref('Readiness')) }, 503: { description: 'A dependency is down', ...json(ref('Readiness')) } },
        },
      },
      '/metrics': { get: { operationId: 'metrics', tags: ['health'], summary: 'Prometheus metrics', responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      '/openapi.json': { get: { operationId: 'openapi', tags: ['health'], summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', ...json({ type: 'object' }) } } } },
    })),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, integrationKey: INTEGRATION_KEY_SCHEME },
      schemas: COMPONENT_SCHEMAS,
    },
  };
}
