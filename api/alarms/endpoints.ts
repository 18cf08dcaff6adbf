// The endpoints of the alarm API (routes.ts and actions.ts register them from these entries; the OpenAPI
// document describes them from the same ones, api/read-route.ts and api/write-endpoint.ts): its reads, and: the actions on one alarm or a feeder
// (every user, alarms in their reach) and the organisation's rules, recipients and given-up messages (admins).
import { ALARM_CLASSES, RULE_KIND_IDS } from '../../domain/alarm-kinds.js';
import { SHELVE_MINUTES } from '../../domain/alarm-states.js';
import { MAX_ID_LENGTH } from '../../domain/storable-text.js';
import { AUTH_401, errorResponse, json, type Obj } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';
import { ALARM_STATES } from './store.js';

export const ALARMS_PATH = '/api/alarms';
export const ALARM_KINDS_PATH = '/api/alarm-kinds';
export const ALARM_RULES_PATH = '/api/alarm-rules';
export const ALARM_RECIPIENTS_PATH = '/api/alarm-recipients';
export const ALARM_DELIVERIES_PATH = '/api/alarm-deliveries';

/** Bodies of rules and recipients; of the actions. */
const RULE_BODY_LIMIT = 16 * 1024;
const ACTION_BODY_LIMIT = 4096;

const ADMIN = { ...AUTH_401, 403: errorResponse('The caller is not an admin of the organisation.') };
const idPath = (description: string): Obj => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });
const time = { type: ['string', 'null'], format: 'date-time' };
const classProp = { type: 'string', enum: ALARM_CLASSES };
const ids = { type: 'array', items: { type: 'string' } };

export const RULE = {
  type: 'object',
  properties: {
    id: { type: 'string' }, name: { type: ['string', 'null'] }, class: { type: 'string', enum: ['operations', 'maintenance'] },
    what: { type: 'array', items: { type: 'string', enum: RULE_KIND_IDS }, description: '`fault` covers every kind that names a class of fault (the one such kind a MaskFaultDetails organisation reads).' },
    where: { type: 'object', properties: { powerLines: ids, groups: ids, devices: ids }, description: 'Empty or absent: every device of the organisation.' },
    who: { ...ids, description: 'Recipient ids, notified at once.' },
    when: { description: '"always", or days 1 (Monday) to 7 and HH:MM from/to in the organisation\'s time zone.', oneOf: [{ type: 'string', enum: ['always'] }, { type: 'object', properties: { days: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 7 } }, from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'] }] },
    escalation: { type: ['object', 'null'], properties: { afterMinutes: { type: 'integer', minimum: 1 }, roster: ids }, description: 'Operations rules only: unacknowledged alarms go to the next roster entry after each period.' },
    enabled: { type: 'boolean' },
  },
  required: ['class', 'what', 'who'],
};
export const RECIPIENT = {
  type: 'object',
  properties: {
    id: { type: 'string' }, name: { type: ['string', 'null'] }, channel: { type: 'string', enum: ['email', 'sms', 'webhook'] },
    address: { type: 'string', description: 'E-mail address, phone number, or webhook URL (loopback, link-local and private targets are refused unless ALARM_WEBHOOK_ALLOW allows them).' },
    capPerDay: { type: ['integer', 'null'], minimum: 1 },
    fleetDigest: { type: ['string', 'null'], enum: ['daily', 'weekly', null], description: 'A daily or weekly fleet health digest (e-mail and webhook only; the counts of GET /api/fleet/summary). Null or absent: none.' },
    secret: { type: ['string', 'null'], writeOnly: true, description: 'Webhooks: the HMAC-SHA256 signing secret (16+ characters); stored encrypted, never returned. Absent: keep the stored one.' },
    hasSecret: { type: 'boolean', readOnly: true },
  },
  required: ['channel', 'address'],
};
const RULE_BODY_INVALID = 'The body is invalid; details.problems names every field.';
/** A DELETE's path id refused by the request kit's textId (api/request.ts). */
const TEXT_ID_400 = errorResponse(`The id is not 1 to ${MAX_ID_LENGTH} characters of storable text.`);

export const ACKNOWLEDGE = writeEndpoint({
  method: 'post', path: '/api/alarms/:id/acknowledge',
  operationId: 'acknowledgeAlarm', tag: 'alarms', summary: 'Acknowledge an alarm (stops its escalation)', parameters: [idPath('Alarm id.')],
  responses: { 200: { description: 'Acknowledged (again: the first acknowledgement stays)', ...json({ type: 'object' }) }, 400: errorResponse('The id is not a number.'), ...AUTH_401, 404: errorResponse('No such alarm in the caller\'s reach.') },
});

export const FEEDER_ACKNOWLEDGE = writeEndpoint({
  method: 'post', path: '/api/board/feeders/:powerLineId/acknowledge',
  operationId: 'acknowledgeFeeder', tag: 'board', summary: 'Acknowledge every unacknowledged, unshelved alarm of a feeder in the caller\'s reach (never clears them)',
  parameters: [{ name: 'powerLineId', in: 'path', required: true, schema: { type: 'string' } }],
  body: { schema: { type: 'object', properties: { class: classProp } }, required: false, limit: ACTION_BODY_LIMIT, invalid: 'The body or the power line id is invalid.' },
  responses: { 200: { description: 'The ids acknowledged now', ...json({ type: 'object', properties: { powerLineId: { type: 'string' }, acknowledged: { type: 'array', items: { type: 'integer' } }, acknowledgedAt: time } }) }, ...AUTH_401 },
});

export const SHELVE = writeEndpoint({
  method: 'post', path: '/api/alarms/:id/shelve',
  operationId: 'shelveAlarm', tag: 'board', summary: 'Shelve a maintenance or chattering alarm\'s device and kind for a time: hidden from the board until then', parameters: [idPath('Alarm id.')],
  body: { schema: { type: 'object', properties: { minutes: { type: 'integer', minimum: SHELVE_MINUTES.min, maximum: SHELVE_MINUTES.max } }, required: ['minutes'] }, limit: ACTION_BODY_LIMIT, invalid: 'The minutes are missing or out of range (a chattering operations alarm: at most ALARM_CHATTER_SHELVE_MAX_MINUTES), or the alarm id is not a positive whole number.' },
  responses: { 200: { description: 'Shelved until', ...json({ type: 'object' }) }, ...AUTH_401, 404: errorResponse('No such alarm in the caller\'s reach.'), 409: errorResponse('Neither a maintenance alarm nor a chattering one.') },
});

export const UNSHELVE = writeEndpoint({
  method: 'post', path: '/api/alarms/:id/unshelve',
  operationId: 'unshelveAlarm', tag: 'board', summary: 'End the shelving of an alarm\'s device and kind now', parameters: [idPath('Alarm id.')],
  responses: { 200: { description: 'Unshelved (false: it was not shelved)', ...json({ type: 'object' }) }, 400: errorResponse('The alarm id is not a positive whole number.'), ...AUTH_401, 404: errorResponse('No such alarm in the caller\'s reach.') },
});

export const PUT_RULE = writeEndpoint({
  method: 'put', path: '/api/alarm-rules/:id',
  operationId: 'putAlarmRule', tag: 'alarms', summary: 'Create or replace an alarm rule (admin)', parameters: [idPath('Rule id.')],
  body: { schema: RULE, limit: RULE_BODY_LIMIT, invalid: RULE_BODY_INVALID },
  responses: { 200: { description: 'Stored', ...json(RULE) }, ...ADMIN, 409: errorResponse('The id belongs to another organisation.') },
});

export const DELETE_RULE = writeEndpoint({
  method: 'delete', path: '/api/alarm-rules/:id',
  operationId: 'deleteAlarmRule', tag: 'alarms', summary: 'Delete an alarm rule (admin)', parameters: [idPath('Rule id.')],
  responses: { 204: { description: 'Deleted' }, 400: TEXT_ID_400, ...ADMIN, 404: errorResponse('No such rule.') },
});

export const PUT_RECIPIENT = writeEndpoint({
  method: 'put', path: '/api/alarm-recipients/:id',
  operationId: 'putAlarmRecipient', tag: 'alarms', summary: 'Create or replace an alarm recipient (admin)', parameters: [idPath('Recipient id.')],
  body: { schema: RECIPIENT, limit: RULE_BODY_LIMIT, invalid: RULE_BODY_INVALID },
  responses: { 200: { description: 'Stored', ...json(RECIPIENT) }, ...ADMIN, 409: errorResponse('The id belongs to another organisation, or no secret key is configured.') },
});

export const DELETE_RECIPIENT = writeEndpoint({
  method: 'delete', path: '/api/alarm-recipients/:id',
  operationId: 'deleteAlarmRecipient', tag: 'alarms', summary: 'Delete an alarm recipient no rule names (admin)', parameters: [idPath('Recipient id.')],
  responses: { 204: { description: 'Deleted' }, 400: TEXT_ID_400, ...ADMIN, 404: errorResponse('No such recipient.'), 409: errorResponse('Rules still name it.') },
});

export const RETRY_DELIVERY = writeEndpoint({
  method: 'post', path: '/api/alarm-deliveries/:id/retry',
  operationId: 'retryAlarmDelivery', tag: 'alarms', summary: 'Send a given-up alarm message again (admin)', parameters: [idPath('Alarm message id.')],
  responses: { 200: { description: 'Due now', ...json({ type: 'object' }) }, 400: errorResponse('The id is not a number.'), ...ADMIN, 404: errorResponse('No undelivered message with this id.') },
});

export const ALARM_WRITES: readonly WriteEndpoint[] = [ACKNOWLEDGE, FEEDER_ACKNOWLEDGE, SHELVE, UNSHELVE, PUT_RULE, DELETE_RULE, PUT_RECIPIENT, DELETE_RECIPIENT, RETRY_DELIVERY];

const list = (items: Obj) => json({ type: 'object', properties: { data: { type: 'array', items } }, required: ['data'] });
const limit = { name: 'limit', in: 'query', required: false, description: '1 to 500 (default 100; deliveries 50).', schema: { type: 'integer', minimum: 1, maximum: 500 } };
const NO_QUERY = { 400: errorResponse('A query parameter is not accepted.') };
const BAD_QUERY = { 400: errorResponse('A query parameter is invalid or not accepted.') };

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

export const GET_ALARM_KINDS = readRoute({
  path: ALARM_KINDS_PATH, operationId: 'alarmKinds', tag: 'alarms', summary: 'The alarm kinds rules can name',
  responses: { 200: { description: 'OK', ...list({ type: 'object' }) }, ...NO_QUERY, ...AUTH_401 },
});
export const GET_ALARMS = readRoute({
  path: ALARMS_PATH, operationId: 'alarms', tag: 'alarms', summary: 'Alarms of the devices in the caller\'s reach',
  parameters: [{ name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ALARM_STATES } }, limit],
  responses: { 200: { description: 'Newest first', ...list(ALARM) }, ...BAD_QUERY, ...AUTH_401 },
});
export const GET_RULES = readRoute({
  path: ALARM_RULES_PATH, operationId: 'alarmRules', tag: 'alarms', summary: 'The organisation\'s alarm rules (admin)',
  responses: { 200: { description: 'OK', ...list(RULE) }, ...NO_QUERY, ...ADMIN },
});
export const GET_RECIPIENTS = readRoute({
  path: ALARM_RECIPIENTS_PATH, operationId: 'alarmRecipients', tag: 'alarms', summary: 'The organisation\'s alarm recipients (admin; secrets never returned)',
  responses: { 200: { description: 'OK', ...list(RECIPIENT) }, ...NO_QUERY, ...ADMIN },
});
export const GET_DELIVERIES = readRoute({
  path: ALARM_DELIVERIES_PATH, operationId: 'alarmDeliveries', tag: 'alarms', summary: 'Alarm messages of the organisation (admin; default: the dead ones)',
  parameters: [{ name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'dead', 'delivered', 'all'] } }, limit],
  responses: { 200: { description: 'Newest first', ...list(DELIVERY) }, ...BAD_QUERY, ...ADMIN },
});

export const ALARM_READS: readonly ReadRoute[] = [GET_ALARM_KINDS, GET_ALARMS, GET_RULES, GET_RECIPIENTS, GET_DELIVERIES];
