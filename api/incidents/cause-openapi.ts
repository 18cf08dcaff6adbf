// The OpenAPI paths of the incident cause routes (cause.ts), merged into the document by api/openapi/document.ts.
import { MAX_CAUSES, MAX_NOTE_CHARS } from '../../domain/incident-causes.js';
import { INCIDENT_CAUSE_PATH, INCIDENT_CAUSES_PATH } from './cause.js';

type Obj = Record<string, unknown>;
const json = (schema: Obj) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const security = [{ bearerAuth: [] }];
const AUTH = { 401: error('Missing, malformed, expired or invalid bearer token.') };
const BODY_ERRORS = { 400: error('The body is invalid; the message and details.problems name every field (an unknown cause names the list).'), 413: error('The body is larger than 8 KiB.'), 415: error('The body is not application/json.') };
const CAUSE_ID = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$' };

export const CAUSE_CHANGE_SCHEMA = {
  type: 'object',
  properties: {
    cause: CAUSE_ID, majorEvent: { type: 'boolean', description: 'The operator\'s flag that the incident belongs to a major event (docs/reliability-export.md#major-events).' },
    note: { type: ['string', 'null'] }, setBy: { type: 'string', description: 'The e-mail of the user who recorded it.' }, setAt: { type: 'string', format: 'date-time' },
  },
  required: ['cause', 'majorEvent', 'note', 'setBy', 'setAt'],
};
const LIST = {
  type: 'object',
  properties: {
    data: { type: 'array', items: { type: 'object', properties: { id: CAUSE_ID, label: { type: ['string', 'null'], description: 'For the default causes; null for a cause of the organisation\'s own.' } }, required: ['id', 'label'] } },
    configured: { type: 'boolean', description: 'false: the default list (the organisation stored none).' },
    updatedBy: { type: ['string', 'null'] }, updatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['data', 'configured', 'updatedBy', 'updatedAt'],
};

export const CAUSE_OPENAPI_PATHS: Record<string, Obj> = {
  [INCIDENT_CAUSES_PATH]: {
    get: {
      operationId: 'incidentCauses', tags: ['incidents'], summary: 'The causes an incident may be given: the organisation\'s list, else the default', security,
      responses: { 200: { description: 'OK', ...json(LIST) }, 400: error('A query parameter was given (none is accepted).'), ...AUTH },
    },
    put: {
      operationId: 'putIncidentCauses', tags: ['incidents'], summary: 'Replace the organisation\'s list of causes (admin); causes already recorded keep their value', security,
      requestBody: { required: true, ...json({ type: 'object', properties: { causes: { type: 'array', items: CAUSE_ID, minItems: 1, maxItems: MAX_CAUSES, uniqueItems: true } }, required: ['causes'], additionalProperties: false }) },
      responses: { 200: { description: 'Stored', ...json(LIST) }, ...BODY_ERRORS, ...AUTH, 403: error('The caller is not an admin of the organisation.') },
    },
  },
  [INCIDENT_CAUSE_PATH.replace(':id', '{id}')]: {
    post: {
      operationId: 'recordIncidentCause', tags: ['incidents'], summary: 'Record the cause of an incident in the caller\'s reach; every record is kept, the newest is the cause',
      security, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
      requestBody: {
        required: true,
        ...json({ type: 'object', properties: { cause: { ...CAUSE_ID, description: 'One id of GET /api/incident-causes.' }, majorEvent: { type: 'boolean', default: false }, note: { type: ['string', 'null'], maxLength: MAX_NOTE_CHARS } }, required: ['cause'], additionalProperties: false }),
      },
      responses: {
        200: { description: 'Recorded: the cause now and the history, newest first', ...json({ type: 'object', properties: { id: { type: 'integer' }, ...CAUSE_CHANGE_SCHEMA.properties, history: { type: 'array', items: CAUSE_CHANGE_SCHEMA } }, required: ['id', ...CAUSE_CHANGE_SCHEMA.required, 'history'] }) },
        ...BODY_ERRORS, ...AUTH, 404: error('No such incident, or it is outside the caller\'s reach (the same answer).'),
      },
    },
  },
};
