// The read endpoint of the possible de-energised sections (routes.ts registers it from this entry; the OpenAPI
// document describes it from the same one, api/read-route.ts).
import { errorResponse, json } from '../openapi-kit.js';
import { readRoute } from '../read-route.js';

export const DEENERGISED_SECTIONS_PATH = '/api/deenergised-sections';
export const DEENERGISED_STATUSES = ['open', 'closed', 'all'] as const;

const time = { type: ['string', 'null'], format: 'date-time' };
const indicator = { type: ['object', 'null'], properties: { IMEINumber: { type: 'string' }, name: { type: ['string', 'null'] }, Lat: { type: ['number', 'null'] }, Long: { type: ['number', 'null'] } } };

const SECTION = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, powerLineId: { type: 'string' }, powerLineName: { type: ['string', 'null'] }, status: { type: 'string', enum: ['open', 'closed'] },
    label: { type: 'string', description: 'The point\'s Section label, else "below <the indicator above it>".' }, phase: { type: 'string' },
    point: { ...indicator, description: 'The topology point: the top indicator of the silent stretch (null when not in the caller\'s reach).' },
    upstream: { ...indicator, description: 'The indicator directly above the point, still reporting (null: the feeder head went quiet, or not in reach).' },
    silentSince: time, openedAt: time, closedAt: time, closedReason: { type: ['string', 'null'] },
    silentDevices: { type: 'integer', description: 'Line-powered indicators silent below the point (in reach or not).' },
    devices: { type: 'array', items: { ...indicator, type: 'object', properties: { ...indicator.properties, silentSince: time } }, description: 'Those of them in the caller\'s reach.' },
  },
};

export const GET_DEENERGISED_SECTIONS = readRoute({
  path: DEENERGISED_SECTIONS_PATH, operationId: 'deenergisedSections', tag: 'incidents',
  summary: 'Possible de-energised sections: line-powered indicators silent together below one point of a feeder, no trip (not fault incidents)',
  parameters: [
    { name: 'status', in: 'query', required: false, description: 'open (default), closed or all.', schema: { type: 'string', enum: DEENERGISED_STATUSES } },
    { name: 'powerLine', in: 'query', required: false, description: 'Only this power line.', schema: { type: 'string' } },
    { name: 'limit', in: 'query', required: false, description: 'The newest this many (1 to 500, default 100).', schema: { type: 'integer', minimum: 1, maximum: 500 } },
  ],
  responses: {
    200: { description: 'Newest first', ...json({ type: 'object', properties: { data: { type: 'array', items: SECTION } } }) },
    400: errorResponse('A query parameter is invalid or not accepted.'), 401: errorResponse('Missing, malformed, expired or invalid bearer token.'),
  },
});
