// The OpenAPI paths of the incident cause routes that read (cause.ts), merged into the document by
// api/openapi/document.ts. Replacing the list and recording a cause are write endpoints: cause-endpoints.ts.
import { CAUSE_HISTORY_PAGE } from '../../domain/incident-causes.js';
import { CAUSE_CHANGE_SCHEMA, CAUSE_LIST, HISTORY_NEXT, ID_PARAMETER, INCIDENT_CAUSE_HISTORY_PATH, INCIDENT_CAUSES_PATH } from './cause-endpoints.js';
import { AUTH_401, BEARER, errorResponse, json, type Obj } from '../openapi-kit.js';

const security = BEARER;
const AUTH = AUTH_401;

export const CAUSE_OPENAPI_PATHS: Record<string, Obj> = {
  [INCIDENT_CAUSES_PATH]: {
    get: {
      operationId: 'incidentCauses', tags: ['incidents'], summary: 'The causes an incident may be given: the organisation\'s list, else the default', security,
      responses: { 200: { description: 'OK', ...json(CAUSE_LIST) }, 400: errorResponse('A query parameter was given (none is accepted).'), ...AUTH },
    },
  },
  [INCIDENT_CAUSE_HISTORY_PATH.replace(':id', '{id}')]: {
    get: {
      operationId: 'incidentCauseHistory', tags: ['incidents'], summary: 'The causes recorded for an incident in the caller\'s reach, newest first, a page at a time',
      security,
      parameters: [
        ID_PARAMETER,
        { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,3}$' }, description: `1 to ${CAUSE_HISTORY_PAGE.max} (default ${CAUSE_HISTORY_PAGE.default})` },
        { name: 'before', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,9}$' }, description: 'Records older than this one (the `next` of the page before)' },
      ],
      responses: {
        200: { description: 'OK', ...json({ type: 'object', properties: { id: { type: 'integer' }, data: { type: 'array', items: CAUSE_CHANGE_SCHEMA }, limit: { type: 'integer' }, next: HISTORY_NEXT }, required: ['id', 'data', 'limit', 'next'] }) },
        400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'), ...AUTH,
        404: errorResponse('No such incident, or it is outside the caller\'s reach (the same answer).'),
      },
    },
  },
};
