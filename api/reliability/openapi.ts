// The OpenAPI paths of the reliability routes (routes.ts), merged into the document by api/openapi/document.ts
// (which this file must not import: the document imports it).
import { SECTIONS_PAGE } from '../../reliability/ranking.js';
import { LAST_INCIDENTS, RELIABILITY_LINES_PATH, RELIABILITY_SECTIONS_PATH } from './routes.js';
import { errorResponse, json, queryParameter, type Obj } from '../openapi-kit.js';

const int = { type: 'integer' };
const num = (description: string) => ({ type: ['number', 'null'], description });
const day = { type: 'string', pattern: '^\\d{8}$' };

const PERIOD_PARAMS = [
  queryParameter('from', day, 'First UTC calendar day (YYYYMMDD, inclusive); default 29 days before `to`.'),
  queryParameter('to', day, 'Last UTC calendar day (YYYYMMDD, inclusive); default today (UTC).'),
];
const period = { type: 'object', properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' }, days: int, timeZone: { type: 'string', enum: ['UTC'] } }, required: ['from', 'to', 'days', 'timeZone'] };
const kindCounts = {
  incidents: { ...int, description: 'Incidents seen by indicators in the period (every kind).' },
  permanent: { ...int, description: 'Absent for an organisation with MaskFaultDetails (docs/decisions.md#masking): it reads incidents only.' },
  momentary: { ...int, description: 'Absent for an organisation with MaskFaultDetails.' },
  unknown: { ...int, description: 'Absent for an organisation with MaskFaultDetails.' },
  trippedIndicators: { ...int, description: 'Tripped indicators summed over the incidents.' },
};
const trendSchema = {
  type: 'object', description: 'Against the previous period of the same length.',
  properties: { previousIncidents: int, change: int, direction: { type: 'string', enum: ['up', 'down', 'same'] } }, required: ['previousIncidents', 'change', 'direction'],
};
const figures = {
  lengthKm: num('Length from the import (SectionLengthKm), null when not imported.'),
  incidentsPer100Km: num('Incidents per 100 km in the period; null without a length.'),
  customers: { type: ['integer', 'null'], description: 'Customers from the import (SectionCustomers), null when not imported.' },
  customerIncidentsEstimate: num('Estimate observed by indicators: each section\'s incidents times its imported customers, summed. Not IEEE 1366 customer interruptions; null without customers.'),
};
const note = { type: 'string', description: 'What these figures are and are not against IEEE 1366.' };

export const RELIABILITY_OPENAPI_PATHS: Record<string, Obj> = {
  [RELIABILITY_LINES_PATH]: {
    get: {
      operationId: 'reliabilityLines', tags: ['reliability'], summary: 'Power lines ranked by incidents seen by indicators in a period, with trend (admin: organisation; user: lines with a device in the user\'s groups)',
      security: [{ bearerAuth: [] }],
      parameters: PERIOD_PARAMS,
      responses: {
        200: {
          description: 'OK',
          ...json({
            type: 'object', required: ['period', 'previousPeriod', 'note', 'data'],
            properties: {
              period, previousPeriod: period, note,
              data: { type: 'array', items: { type: 'object', required: ['rank', 'powerLineId', 'incidents', 'trippedIndicators', 'sections', 'repeatingSections', 'trend'], properties: {
                rank: { ...int, description: '1: most incidents (ties: more tripped indicators, then line id)' }, powerLineId: { type: 'string' }, powerLineName: { type: ['string', 'null'] },
                ...kindCounts, sections: { ...int, description: 'Sections with an incident in the period' }, repeatingSections: { ...int, description: 'Sections with two or more incidents in the period' },
                trend: trendSchema, ...figures,
              } } },
            },
          }),
        },
        400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'),
        401: errorResponse('Missing, malformed, expired or invalid bearer token.'),
      },
    },
  },
  [RELIABILITY_SECTIONS_PATH]: {
    get: {
      operationId: 'reliabilitySections', tags: ['reliability'], summary: 'Faulted sections ranked by incidents in a period, of one power line or of every visible one, with the last incidents',
      security: [{ bearerAuth: [] }],
      parameters: [
        queryParameter('powerLine', { type: 'string', maxLength: 100 }, 'A power line id; absent: every line the caller sees.'), ...PERIOD_PARAMS,
        queryParameter('page', { type: 'string', pattern: '^\\d{1,7}$' }, 'The 0-based page of the ranked sections (default 0).'),
        queryParameter('limit', { type: 'string', pattern: '^\\d{1,4}$' }, `Sections per page, 1 to ${SECTIONS_PAGE.max} (default ${SECTIONS_PAGE.default}).`),
      ],
      responses: {
        200: {
          description: 'OK',
          ...json({
            type: 'object', required: ['period', 'previousPeriod', 'powerLine', 'note', 'data', 'page', 'limit', 'total', 'lastIncidents'],
            properties: {
              period, previousPeriod: period, powerLine: { type: ['string', 'null'] }, note,
              page: int, limit: int, total: { ...int, description: 'Sections ranked in all pages.' },
              data: { type: 'array', items: { type: 'object', required: ['rank', 'powerLineId', 'label', 'imei', 'incidents', 'trippedIndicators', 'repeats', 'trend'], properties: {
                rank: int, powerLineId: { type: 'string' }, label: { type: 'string', description: 'The section\'s label (docs/decisions.md#feeder-incidents); when its upstream indicator is outside the caller\'s reach, the import\'s Section or a numbered "Section below an indicator outside your reach"' },
                imei: { type: ['string', 'null'], description: 'The indicator at the section\'s upstream end; null when outside the caller\'s reach' },
                Lat: { type: ['number', 'null'] }, Long: { type: ['number', 'null'] }, ...kindCounts, repeats: { type: 'boolean', description: 'Two or more incidents in the period' }, trend: trendSchema, ...figures,
              } } },
              lastIncidents: { type: 'array', description: `The ${LAST_INCIDENTS} newest incidents the caller may see (GET /api/incidents/{id} has the rest)`, items: { type: 'object', properties: {
                id: int, powerLineId: { type: 'string' }, kind: { type: 'string', enum: ['momentary', 'permanent', 'unknown', 'fault'] }, status: { type: 'string' },
                firstTripAt: { type: 'string', format: 'date-time' }, sections: { type: 'array', items: { type: 'string' } }, trippedDevices: int,
              } } },
            },
          }),
        },
        400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.'),
        401: errorResponse('Missing, malformed, expired or invalid bearer token.'),
        404: errorResponse('No such power line, or it is outside the caller\'s reach (the same answer).'),
      },
    },
  },
};
