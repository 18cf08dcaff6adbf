// OpenAPI read operations of the alarm API (api/alarms/routes.ts), kept beside the document that includes them;
// its writes are entries of api/alarms/endpoints.ts.
import { ALARM_STATES } from '../alarms/store.js';
import { ALARM_DELIVERIES_PATH, ALARM_KINDS_PATH, ALARM_RECIPIENTS_PATH, ALARM_RULES_PATH, ALARMS_PATH, RECIPIENT, RULE } from '../alarms/endpoints.js';
import { AUTH_401, BEARER, errorResponse, json, type Obj } from '../openapi-kit.js';

const AUTH = AUTH_401;
const ADMIN = { ...AUTH, 403: errorResponse('The caller is not an admin of the organisation.') };
const security = BEARER;
const list = (items: Obj) => json({ type: 'object', properties: { data: { type: 'array', items } }, required: ['data'] });
const limit = { name: 'limit', in: 'query', required: false, description: '1 to 500 (default 100; deliveries 50).', schema: { type: 'integer', minimum: 1, maximum: 500 } };

const ALARM = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, kind: { type: 'string' }, label: { type: ['string', 'null'] }, class: { type: ['string', 'null'] }, IMEINumber: { type: 'string' },
    Real_Name: { type: ['string', 'null'] }, PowerLineID: { type: ['string', 'null'] }, codeText: { type: ['string', 'null'] }, state: { type: 'string', enum: ['active', 'acknowledged', 'cleared'] },
    raised_at: { type: 'string', format: 'date-time' }, acknowledged_at: { type: ['string', 'null'], format: 'date-time' }, acknowledged_by: { type: ['string', 'null'] },
    cleared_at: { type: ['string', 'null'], format: 'date-time' },
  },
};
const DELIVERY = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, recipient: { type: 'string' }, alarmId: { type: ['integer', 'null'] }, kind: { type: 'string' }, attempts: { type: 'integer' },
    lastError: { type: ['string', 'null'] }, suppressed: { type: ['string', 'null'] }, createdAt: { type: 'string' }, deliveredAt: { type: ['string', 'null'] }, deadAt: { type: ['string', 'null'] },
  },
};

export function alarmPaths(): Record<string, Obj> {
  return {
    [ALARM_KINDS_PATH]: { get: { operationId: 'alarmKinds', tags: ['alarms'], summary: 'The alarm kinds rules can name', security, responses: { 200: { description: 'OK', ...list({ type: 'object' }) }, 400: errorResponse('A query parameter is not accepted.'), ...AUTH } } },
    [ALARMS_PATH]: {
      get: {
        operationId: 'alarms', tags: ['alarms'], summary: 'Alarms of the devices in the caller\'s reach', security,
        parameters: [{ name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ALARM_STATES } }, limit],
        responses: { 200: { description: 'Newest first', ...list(ALARM) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...AUTH },
      },
    },
    [ALARM_RULES_PATH]: { get: { operationId: 'alarmRules', tags: ['alarms'], summary: 'The organisation\'s alarm rules (admin)', security, responses: { 200: { description: 'OK', ...list(RULE) }, 400: errorResponse('A query parameter is not accepted.'), ...ADMIN } } },
    [ALARM_RECIPIENTS_PATH]: { get: { operationId: 'alarmRecipients', tags: ['alarms'], summary: 'The organisation\'s alarm recipients (admin; secrets never returned)', security, responses: { 200: { description: 'OK', ...list(RECIPIENT) }, 400: errorResponse('A query parameter is not accepted.'), ...ADMIN } } },
    [ALARM_DELIVERIES_PATH]: {
      get: {
        operationId: 'alarmDeliveries', tags: ['alarms'], summary: 'Alarm messages of the organisation (admin; default: the dead ones)', security,
        parameters: [{ name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'dead', 'delivered', 'all'] } }, limit],
        responses: { 200: { description: 'Newest first', ...list(DELIVERY) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...ADMIN },
      },
    },
  };
}
