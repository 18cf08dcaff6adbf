// The OpenAPI path of the indicator audit's findings (routes.ts), merged into the document by
// api/openapi/document.ts (which this file must not import: the document imports it). The dismissal is a
// write endpoint: endpoints.ts.
import { FINDING_STATES, FINDINGS_PATH } from './routes.js';
import { DISMISSAL } from './endpoints.js';
import { FINDING_KINDS } from '../../indicator-audit/findings.js';
import { VERDICTS } from '../../indicator-audit/evidence.js';
import { AUTH_401, errorResponse, json, queryParameter, type Obj } from '../openapi-kit.js';

const time = { type: ['string', 'null'], format: 'date-time' };
const AUTH = AUTH_401;

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

export const INDICATOR_AUDIT_OPENAPI_PATHS: Record<string, Obj> = {
  [FINDINGS_PATH]: {
    get: {
      operationId: 'indicatorFindings', tags: ['incidents'], summary: 'Indicators and topology that incidents contradict, with the incidents as evidence (devices in the caller\'s reach)',
      security: [{ bearerAuth: [] }],
      parameters: [
        queryParameter('state', { type: 'string', enum: [...FINDING_STATES] }, 'open (default), dismissed or all'),
        queryParameter('powerLine', { type: 'string', maxLength: 100 }, 'a power line id'),
      ],
      responses: {
        200: { description: 'OK', ...json({ type: 'object', properties: { data: { type: 'array', items: finding } }, required: ['data'] }) },
        400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'), ...AUTH,
      },
    },
  },
};
