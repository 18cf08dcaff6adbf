// The endpoints of the indicator audit (routes.ts registers them from these entries; the OpenAPI document
// describes them from the same ones, api/read-route.ts and api/write-endpoint.ts): the findings, and an admin
// dismisses an open finding with a reason.
import { FINDING_KINDS } from '../../indicator-audit/findings.js';
import { VERDICTS } from '../../indicator-audit/evidence.js';
import { AUTH_401, errorResponse, json, queryParameter } from '../openapi-kit.js';
import { readRoute } from '../read-route.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';

export const FINDINGS_PATH = '/api/indicator-audit/findings';
export const FINDING_STATES = ['open', 'dismissed', 'all'] as const;

export const DISMISS_REASON_MAX = 500;

const time = { type: ['string', 'null'], format: 'date-time' };
/** Who dismissed a finding, when and why (null: not dismissed). */
export const DISMISSAL = { type: ['object', 'null'], properties: { at: time, by: { type: 'string' }, reason: { type: 'string' } }, required: ['at', 'by', 'reason'] };

export const DISMISS = writeEndpoint({
  method: 'post', path: '/api/indicator-audit/findings/:id/dismiss',
  operationId: 'dismissIndicatorFinding', tag: 'incidents', summary: 'Dismiss an open finding with a reason (organisation admin); its evidence never raises it again',
  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,15}$' } }],
  body: { schema: { type: 'object', properties: { reason: { type: 'string', minLength: 1, maxLength: DISMISS_REASON_MAX } }, required: ['reason'], additionalProperties: false }, limit: 4096, invalid: 'The id or the body is invalid (the message names the field).' },
  responses: {
    200: { description: 'Dismissed', ...json({ type: 'object', properties: { id: { type: 'integer' }, dismissed: DISMISSAL }, required: ['id', 'dismissed'] }) },
    ...AUTH_401,
    403: errorResponse('The caller is not an organisation admin.'),
    404: errorResponse('No open finding of the organisation with this id.'),
  },
});

export const INDICATOR_AUDIT_WRITES: readonly WriteEndpoint[] = [DISMISS];

const finding = {
  type: 'object',
  description: 'An indicator whose recent incidents contradict the topology (docs/decisions.md#indicator-audit).',
  properties: {
    id: { type: 'integer' }, IMEINumber: { type: 'string' }, name: { type: ['string', 'null'] }, phase: { type: ['string', 'null'] },
    powerLineId: { type: 'string' }, powerLineName: { type: ['string', 'null'] },
    kind: { type: 'string', enum: [...FINDING_KINDS] }, title: { type: 'string', description: '"likely failed or mis-set indicator" or "likely topology or phase label error"' },
    contradictions: { type: 'integer', description: 'contradicting incidents among the recent evidence judged' }, considered: { type: 'integer' },
    raisedAt: time, updatedAt: time, dismissed: DISMISSAL,
    agreement: { type: 'object', description: 'the indicator\'s evidence so far, by verdict', properties: Object.fromEntries(VERDICTS.map((v) => [v, { type: 'integer' }])) },
    evidence: {
      type: 'array', description: 'the contradicting incidents, oldest first',
      items: { type: 'object', properties: { incidentId: { type: 'integer' }, verdict: { type: 'string', enum: VERDICTS.filter((v) => v !== 'confirmed') }, otherPhase: { type: 'boolean', description: 'it tripped alone on its own path while every other trip was on another phase' }, firstTripAt: time }, required: ['incidentId', 'verdict', 'otherPhase', 'firstTripAt'] },
    },
  },
  // contradictions, considered, agreement and evidence are left out for an organisation that masks fault details
  // (they would name its permanent incidents), whose raisedAt and updatedAt are days (docs/decisions.md#indicator-audit).
  required: ['id', 'IMEINumber', 'powerLineId', 'kind', 'title', 'raisedAt', 'dismissed'],
};

export const GET_FINDINGS = readRoute({
  path: FINDINGS_PATH, operationId: 'indicatorFindings', tag: 'incidents', summary: 'Indicators and topology that incidents contradict, with the incidents as evidence (devices in the caller\'s reach)',
  parameters: [
    queryParameter('state', { type: 'string', enum: [...FINDING_STATES] }, 'open (default), dismissed or all'),
    queryParameter('powerLine', { type: 'string', maxLength: 100 }, 'a power line id'),
  ],
  responses: {
    200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: finding } }, required: ['data'] }) },
    400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'), ...AUTH_401,
  },
});
