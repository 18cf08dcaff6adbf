// The read endpoints of DNP3 (organization-devices.ts, point-map.ts, device-profile.ts, diagnostics.ts register
// them from these entries; the OpenAPI document describes them from the same ones, api/read-route.ts): the
// integration outputs an admin or an integration key reads, and the outstation's diagnostics (admin).
import { DISCARD_REASONS } from '../../dnp3/diagnostics/reasons.js';
import { INTEGRATION_OUTPUT_ERRORS, INTEGRATION_OUTPUT_SECURITY } from '../integration-keys/endpoints.js';
import { COMMISSIONING_AUTH } from '../test-faults/endpoints.js';
import { closed, errorResponse, json, ref } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';

export const ORGANIZATION_DEVICES_PATH = '/api/dnp3/dnp3OrganizationDevices';
export const POINT_MAP_PATH = '/api/dnp3/pointMap';
export const DEVICE_PROFILE_PATH = '/api/dnp3/deviceProfile';
export const DIAGNOSTICS_PATH = '/api/dnp3/diagnostics';

const str = { type: 'string' };
const iso = { type: 'string', format: 'date-time' };

export const GET_ORGANIZATION_DEVICES = readRoute({
  path: ORGANIZATION_DEVICES_PATH, operationId: 'dnp3OrganizationDevices', tag: 'integration', summary: 'Devices of the caller\'s organisation (admin)',
  description: 'Every non-deleted device of the organisation with location, power line, DNP3 queue address and slot, and latest status.',
  security: INTEGRATION_OUTPUT_SECURITY,
  responses: {
    200: { description: 'OK', ...json({ type: 'array', items: ref('OrganizationDevice') }) },
    ...INTEGRATION_OUTPUT_ERRORS,
  },
});

export const GET_POINT_MAP = readRoute({
  path: POINT_MAP_PATH, operationId: 'dnp3PointMap', tag: 'integration', summary: 'DNP3 point map of the caller\'s organisation (admin)',
  description: 'Every device slot with its binary and analog point indexes, classes and deadbands, so a master can be configured before go-live. JSON by default; CSV with format=csv or Accept: text/csv.',
  security: INTEGRATION_OUTPUT_SECURITY,
  parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'] } }],
  responses: {
    200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } }, 'text/csv': { schema: { type: 'string' } } } },
    400: errorResponse('A query parameter is invalid or not accepted.'),
    ...INTEGRATION_OUTPUT_ERRORS,
  },
});

export const GET_DEVICE_PROFILE = readRoute({
  path: DEVICE_PROFILE_PATH, operationId: 'dnp3DeviceProfile', tag: 'integration', summary: 'DNP3 device profile of one bank of the caller\'s outstation (admin)',
  description: 'The IEEE 1815 device profile (opendnp3\'s XML device-profile format) generated from the running configuration: link and application settings, TLS, function codes, objects and qualifiers, event classes, time synchronisation, unsolicited behaviour and the point list of the bank.',
  security: INTEGRATION_OUTPUT_SECURITY,
  parameters: [{ name: 'bank', in: 'query', required: false, description: 'Bank number as listed by the point map (default 0).', schema: { type: 'string', pattern: '^\\d{1,6}$' } }],
  responses: {
    200: { description: 'OK', content: { 'application/xml': { schema: { type: 'string' } } } },
    400: errorResponse('A query parameter is invalid or not accepted, or the bank does not exist.'),
    ...INTEGRATION_OUTPUT_ERRORS,
    404: errorResponse('The organisation has no DNP3 integration.'),
  },
});

export const GET_DIAGNOSTICS = readRoute({
  path: DIAGNOSTICS_PATH, operationId: 'dnp3Diagnostics', tag: 'integration', summary: 'DNP3 frames and requests the outstation discarded, by reason (admin)',
  description: 'Beside the point map: for each DNP3 integration of the organisation, every reason the outstation discarded or refused a frame or request, with the count, first and last time and what the master must do, and the master settings faultline expects.',
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
});

/** The integration outputs, in the document's order; the diagnostics come with the commissioning kit (read-routes.ts). */
export const DNP3_OUTPUT_READS: readonly ReadRoute[] = [GET_ORGANIZATION_DEVICES, GET_POINT_MAP, GET_DEVICE_PROFILE];
