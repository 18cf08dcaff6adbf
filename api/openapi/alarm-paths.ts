// OpenAPI operations of the alarm API (api/alarms/routes.ts), kept beside the document that includes them.
import { RULE_KIND_IDS } from '../../domain/alarm-kinds.js';
import { ALARM_DELIVERIES_PATH, ALARM_KINDS_PATH, ALARM_RECIPIENTS_PATH, ALARM_RULES_PATH, ALARM_STATES, ALARMS_PATH } from '../alarms/routes.js';
import { AUTH_401, BEARER, errorResponse, json, type Obj } from '../openapi-kit.js';

const AUTH = AUTH_401;
const ADMIN = { ...AUTH, 403: errorResponse('The caller is not an admin of the organisation.') };
const security = BEARER;
const list = (items: Obj) => json({ type: 'object', properties: { data: { type: 'array', items } }, required: ['data'] });
const idPath = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });
const limit = { name: 'limit', in: 'query', required: false, description: '1 to 500 (default 100; deliveries 50).', schema: { type: 'integer', minimum: 1, maximum: 500 } };

const ids = { type: 'array', items: { type: 'string' } };
const RULE = {
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
const RECIPIENT = {
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
const BODY_ERRORS = { 400: errorResponse('The body is invalid; details.problems names every field.'), 413: errorResponse('The body is larger than 16 KiB.'), 415: errorResponse('The body is not application/json.') };

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
    [`${ALARMS_PATH}/{id}/acknowledge`]: {
      post: {
        operationId: 'acknowledgeAlarm', tags: ['alarms'], summary: 'Acknowledge an alarm (stops its escalation)', security, parameters: [idPath('Alarm id.')],
        responses: { 200: { description: 'Acknowledged (again: the first acknowledgement stays)', ...json({ type: 'object' }) }, 400: errorResponse('The id is not a number.'), ...AUTH, 404: errorResponse('No such alarm in the caller\'s reach.') },
      },
    },
    [ALARM_RULES_PATH]: { get: { operationId: 'alarmRules', tags: ['alarms'], summary: 'The organisation\'s alarm rules (admin)', security, responses: { 200: { description: 'OK', ...list(RULE) }, 400: errorResponse('A query parameter is not accepted.'), ...ADMIN } } },
    [`${ALARM_RULES_PATH}/{id}`]: {
      put: {
        operationId: 'putAlarmRule', tags: ['alarms'], summary: 'Create or replace an alarm rule (admin)', security, parameters: [idPath('Rule id.')],
        requestBody: { required: true, ...json(RULE) },
        responses: { 200: { description: 'Stored', ...json(RULE) }, ...BODY_ERRORS, ...ADMIN, 409: errorResponse('The id belongs to another organisation.') },
      },
      delete: { operationId: 'deleteAlarmRule', tags: ['alarms'], summary: 'Delete an alarm rule (admin)', security, parameters: [idPath('Rule id.')], responses: { 204: { description: 'Deleted' }, ...ADMIN, 404: errorResponse('No such rule.') } },
    },
    [ALARM_RECIPIENTS_PATH]: { get: { operationId: 'alarmRecipients', tags: ['alarms'], summary: 'The organisation\'s alarm recipients (admin; secrets never returned)', security, responses: { 200: { description: 'OK', ...list(RECIPIENT) }, 400: errorResponse('A query parameter is not accepted.'), ...ADMIN } } },
    [`${ALARM_RECIPIENTS_PATH}/{id}`]: {
      put: {
        operationId: 'putAlarmRecipient', tags: ['alarms'], summary: 'Create or replace an alarm recipient (admin)', security, parameters: [idPath('Recipient id.')],
        requestBody: { required: true, ...json(RECIPIENT) },
        responses: { 200: { description: 'Stored', ...json(RECIPIENT) }, ...BODY_ERRORS, ...ADMIN, 409: errorResponse('The id belongs to another organisation, or no secret key is configured.') },
      },
      delete: { operationId: 'deleteAlarmRecipient', tags: ['alarms'], summary: 'Delete an alarm recipient no rule names (admin)', security, parameters: [idPath('Recipient id.')], responses: { 204: { description: 'Deleted' }, ...ADMIN, 404: errorResponse('No such recipient.'), 409: errorResponse('Rules still name it.') } },
    },
    [ALARM_DELIVERIES_PATH]: {
      get: {
        operationId: 'alarmDeliveries', tags: ['alarms'], summary: 'Alarm messages of the organisation (admin; default: the dead ones)', security,
        parameters: [{ name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'dead', 'delivered', 'all'] } }, limit],
        responses: { 200: { description: 'Newest first', ...list(DELIVERY) }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...ADMIN },
      },
    },
    [`${ALARM_DELIVERIES_PATH}/{id}/retry`]: {
      post: { operationId: 'retryAlarmDelivery', tags: ['alarms'], summary: 'Send a given-up alarm message again (admin)', security, parameters: [idPath('Alarm message id.')], responses: { 200: { description: 'Due now', ...json({ type: 'object' }) }, 400: errorResponse('The id is not a number.'), ...ADMIN, 404: errorResponse('No undelivered message with this id.') } },
    },
  };
}
