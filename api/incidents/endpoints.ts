// The read endpoints of feeder incidents (routes.ts registers them from these entries; the OpenAPI document
// describes them from the same ones, api/read-route.ts). The cause routes' entries are cause-endpoints.ts.
import { CAUSE_HISTORY_PAGE } from '../../domain/incident-causes.js';
import { CAUSE_CHANGE_SCHEMA, HISTORY_NEXT } from './cause-endpoints.js';
import { AUTH_401, errorResponse, json, queryParameter } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';

export const INCIDENTS_PATH = '/api/incidents';
export const INCIDENT_PATH = '/api/incidents/:id';
export const TOPOLOGY_PATH = '/api/feeder-topology';
export const INCIDENT_STATUSES = ['open', 'located', 'restored', 'closed', 'active'] as const;

const time = { type: ['string', 'null'], format: 'date-time' };
// An indicator outside the caller's reach is not named: null IMEI and name (docs/decisions.md#reach-applied-once).
const end = { type: 'object', properties: { imei: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } }, required: ['imei', 'name'] };

const section = {
  type: 'object',
  description: 'A faulted section: below the furthest-downstream tripped indicator (from), above the untripped indicators directly below it (to; empty: to the end of the line), widened over indicators that could not tell (spans, each with its reason). An indicator outside the caller\'s reach has a null imei and name, and a label that named it reads "Section below an indicator outside your reach".',
  properties: {
    phase: { type: 'string', enum: ['A', 'B', 'C', 'ABC'] }, from: end, to: { type: 'array', items: end },
    spans: { type: 'array', items: { ...end, properties: { ...end.properties, reason: { type: 'string' } } } }, label: { type: 'string' },
  },
  required: ['phase', 'from', 'to', 'spans', 'label'],
};

const incident = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, powerLineId: { type: 'string' }, powerLineName: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['open', 'located', 'restored', 'closed'] }, kind: { type: 'string', enum: ['momentary', 'permanent', 'unknown', 'fault'], description: '`fault` for an organisation with MaskFaultDetails (docs/decisions.md#masking).' },
    firstTripAt: time, lastTripAt: time, openedAt: time, locatedAt: time, restoredAt: time, closedAt: time,
    sections: { type: 'array', items: section }, trippedDevices: { type: 'integer', description: 'tripped indicators in the caller\'s reach' },
    cause: { type: ['string', 'null'], description: 'The cause recorded last (POST /api/incidents/{id}/cause); null: none yet.' },
    majorEvent: { type: 'boolean', description: 'The operator\'s major-event flag recorded with that cause; false without one.' },
  },
  required: ['id', 'powerLineId', 'status', 'kind', 'firstTripAt', 'openedAt', 'sections', 'trippedDevices'],
};

const NO_QUERY = { 400: errorResponse('A query parameter was given (none is accepted).') };

export const GET_INCIDENTS = readRoute({
  path: INCIDENTS_PATH, operationId: 'incidents', tag: 'incidents', summary: 'Feeder incidents, newest first (admin: organisation; user: with a tripped device in the user\'s groups)',
  parameters: [
    queryParameter('page', { type: 'string', pattern: '^\\d{1,9}$' }, '0-based page'), queryParameter('limit', { type: 'string', pattern: '^\\d{1,3}$' }, '1 to 500 (default 50)'),
    queryParameter('status', { type: 'string', enum: [...INCIDENT_STATUSES] }, 'one status, or active (every one not closed)'), queryParameter('powerLine', { type: 'string', maxLength: 100 }, 'a power line id'),
  ],
  responses: {
    200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: incident }, page: { type: 'integer' }, limit: { type: 'integer' }, total: { type: 'integer' } }, required: ['data', 'page', 'limit', 'total'] }) },
    400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'), ...AUTH_401,
  },
});

export const GET_INCIDENT = readRoute({
  path: INCIDENT_PATH, operationId: 'incident', tag: 'incidents', summary: 'One incident with its tripped devices, sections and timeline',
  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
  responses: {
    200: {
      description: 'OK',
      ...json({
        ...incident,
        properties: {
          ...incident.properties,
          devices: { type: 'array', items: { type: 'object', properties: { IMEINumber: { type: 'string' }, name: { type: ['string', 'null'] }, eventType: { type: 'string' }, trippedAt: time, phase: { type: ['string', 'null'] }, section: { type: ['string', 'null'] }, Lat: { type: ['number', 'null'] }, Long: { type: ['number', 'null'] } } } },
          causeHistory: { type: 'array', items: CAUSE_CHANGE_SCHEMA, description: `The causes recorded, newest first: the newest ${CAUSE_HISTORY_PAGE.default}.` },
          causeHistoryNext: HISTORY_NEXT,
          timeline: { type: 'array', items: { type: 'object', properties: { at: time, what: { type: 'string', enum: ['opened', 'joined', 'located', 'section changed', 'restored', 'tripped again', 'closed'] }, detail: { type: 'object' } }, required: ['at', 'what', 'detail'] } },
        },
      }),
    },
    ...NO_QUERY, ...AUTH_401,
    404: errorResponse('No such incident, or it is outside the caller\'s reach (the same answer).'),
  },
});

export const GET_TOPOLOGY = readRoute({
  path: TOPOLOGY_PATH, operationId: 'feederTopology', tag: 'incidents', summary: 'The imported feeder topology of the devices in the caller\'s reach',
  responses: {
    200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: { type: 'object', properties: { IMEINumber: { type: 'string' }, PowerLineID: { type: ['string', 'null'] }, UpstreamIMEI: { type: ['string', 'null'] }, Phase: { type: 'string', enum: ['A', 'B', 'C', 'ABC'] }, Section: { type: ['string', 'null'] } } } } }, required: ['data'] }) },
    ...NO_QUERY, ...AUTH_401,
  },
});

export const INCIDENT_READS: readonly ReadRoute[] = [GET_INCIDENTS, GET_INCIDENT, GET_TOPOLOGY];
