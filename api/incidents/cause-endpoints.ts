// The endpoints of incident causes (cause.ts registers them from these entries; the OpenAPI document describes
// them from the same ones, api/read-route.ts and api/write-endpoint.ts): the list and a history read, and an admin replaces the organisation's list of
// causes, an operator records the cause of an incident in reach. The schemas the reads share are here too.
import { CAUSE_HISTORY_PAGE, MAX_CAUSE_RECORDS, MAX_CAUSES, MAX_NOTE_CHARS } from '../../domain/incident-causes.js';
import { AUTH_401, errorResponse, json, type Obj } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';

export const INCIDENT_CAUSES_PATH = '/api/incident-causes';
export const INCIDENT_CAUSE_PATH = '/api/incidents/:id/cause';
export const INCIDENT_CAUSE_HISTORY_PATH = '/api/incidents/:id/cause-history';
const BODY_LIMIT = 8 * 1024;
const BODY_INVALID = 'The body is invalid; the message and details.problems name every field (an unknown cause names the list).';

const CAUSE_ID = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$' };

export const CAUSE_CHANGE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer', description: 'The record\'s id: newer records have higher ids; the `before` of the next page.' },
    cause: CAUSE_ID, majorEvent: { type: 'boolean', description: 'The operator\'s flag that the incident belongs to a major event (docs/reliability-export.md#major-events).' },
    note: { type: ['string', 'null'] }, setBy: { type: 'string', description: 'The e-mail of the user who recorded it.' }, setAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'cause', 'majorEvent', 'note', 'setBy', 'setAt'],
};
/** The cursor of the next (older) page of a cause history, null at its end. */
export const HISTORY_NEXT = { type: ['integer', 'null'], description: `The \`before\` of the next page of GET ${INCIDENT_CAUSE_HISTORY_PATH.replace(':id', '{id}')}; null: no older record.` };
export const ID_PARAMETER: Obj = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } };
export const CAUSE_LIST = {
  type: 'object',
  properties: {
    data: { type: 'array', items: { type: 'object', properties: { id: CAUSE_ID, label: { type: ['string', 'null'], description: 'For the default causes; null for a cause of the organisation\'s own.' } }, required: ['id', 'label'] } },
    configured: { type: 'boolean', description: 'false: the default list (the organisation stored none).' },
    updatedBy: { type: ['string', 'null'] }, updatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['data', 'configured', 'updatedBy', 'updatedAt'],
};


export const PUT_CAUSES = writeEndpoint({
  method: 'put', path: INCIDENT_CAUSES_PATH,
  operationId: 'putIncidentCauses', tag: 'incidents', summary: 'Replace the organisation\'s list of causes (admin); causes already recorded keep their value',
  body: { schema: { type: 'object', properties: { causes: { type: 'array', items: CAUSE_ID, minItems: 1, maxItems: MAX_CAUSES, uniqueItems: true } }, required: ['causes'], additionalProperties: false }, limit: BODY_LIMIT, invalid: BODY_INVALID },
  responses: { 200: { description: 'Stored', ...json(CAUSE_LIST) }, ...AUTH_401, 403: errorResponse('The caller is not an admin of the organisation.') },
});

export const RECORD_CAUSE = writeEndpoint({
  method: 'post', path: INCIDENT_CAUSE_PATH,
  operationId: 'recordIncidentCause', tag: 'incidents',
  summary: `Record the cause of an incident in the caller's reach; every record is kept (at most ${MAX_CAUSE_RECORDS} per incident), the newest is the cause`,
  parameters: [ID_PARAMETER],
  body: {
    schema: { type: 'object', properties: { cause: { ...CAUSE_ID, description: 'One id of GET /api/incident-causes.' }, majorEvent: { type: 'boolean', default: false }, note: { type: ['string', 'null'], maxLength: MAX_NOTE_CHARS } }, required: ['cause'], additionalProperties: false },
    limit: BODY_LIMIT, invalid: BODY_INVALID,
  },
  responses: {
    200: {
      description: `Recorded: the cause now and the newest ${CAUSE_HISTORY_PAGE.default} records of the history, newest first`,
      ...json({ type: 'object', properties: { ...CAUSE_CHANGE_SCHEMA.properties, id: { type: 'integer', description: 'The incident\'s id.' }, history: { type: 'array', items: CAUSE_CHANGE_SCHEMA }, historyNext: HISTORY_NEXT }, required: [...CAUSE_CHANGE_SCHEMA.required, 'history', 'historyNext'] }),
    },
    ...AUTH_401, 404: errorResponse('No such incident, or it is outside the caller\'s reach (the same answer).'),
    409: errorResponse(`The incident has ${MAX_CAUSE_RECORDS} cause records, the most kept per incident (details.maxRecords); nothing is recorded.`),
  },
});

export const INCIDENT_CAUSE_WRITES: readonly WriteEndpoint[] = [PUT_CAUSES, RECORD_CAUSE];

export const GET_CAUSES = readRoute({
  path: INCIDENT_CAUSES_PATH, operationId: 'incidentCauses', tag: 'incidents', summary: 'The causes an incident may be given: the organisation\'s list, else the default',
  responses: { 200: { description: 'OK', ...json(CAUSE_LIST) }, 400: errorResponse('A query parameter was given (none is accepted).'), ...AUTH_401 },
});

export const GET_CAUSE_HISTORY = readRoute({
  path: INCIDENT_CAUSE_HISTORY_PATH, operationId: 'incidentCauseHistory', tag: 'incidents', summary: 'The causes recorded for an incident in the caller\'s reach, newest first, a page at a time',
  parameters: [
    ID_PARAMETER,
    { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,3}$' }, description: `1 to ${CAUSE_HISTORY_PAGE.max} (default ${CAUSE_HISTORY_PAGE.default})` },
    { name: 'before', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,9}$' }, description: 'Records older than this one (the `next` of the page before)' },
  ],
  responses: {
    200: { description: 'OK', ...json({ type: 'object', properties: { id: { type: 'integer' }, data: { type: 'array', items: CAUSE_CHANGE_SCHEMA }, limit: { type: 'integer' }, next: HISTORY_NEXT }, required: ['id', 'data', 'limit', 'next'] }) },
    400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'), ...AUTH_401,
    404: errorResponse('No such incident, or it is outside the caller\'s reach (the same answer).'),
  },
});

export const INCIDENT_CAUSE_READS: readonly ReadRoute[] = [GET_CAUSES, GET_CAUSE_HISTORY];
