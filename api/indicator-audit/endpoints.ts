// The write endpoint of the indicator audit (routes.ts registers it from this entry; the OpenAPI document
// describes it from the same one, api/write-endpoint.ts): an admin dismisses an open finding with a reason.
import { AUTH_401, errorResponse, json } from '../openapi-kit.js';
import { writeEndpoint, type WriteEndpoint } from '../write-endpoint.js';

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
