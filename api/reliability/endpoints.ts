// The read endpoints of reliability (routes.ts and export.ts register them from these entries; the OpenAPI
// document describes them from the same ones, api/read-route.ts): lines and sections ranked by incidents, and
// the export of incidents as CSV or Parquet.
import { SECTIONS_PAGE } from '../../reliability/ranking.js';
import { errorResponse, json, queryParameter } from '../openapi-kit.js';
import { readRoute, type ReadRoute } from '../read-route.js';
import { EXPORT_COLUMNS } from './export-columns.js';

export const RELIABILITY_LINES_PATH = '/api/reliability/lines';
export const RELIABILITY_SECTIONS_PATH = '/api/reliability/sections';
export const RELIABILITY_EXPORT_PATH = '/api/reliability/export';
export const EXPORT_FORMATS = ['csv', 'parquet'] as const;
/** The line's last incidents listed with its sections. */
export const LAST_INCIDENTS = 10;

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

const BAD_QUERY = { 400: errorResponse('A query parameter is unknown, repeated or invalid; the message names it.') };
const AUTH = { 401: errorResponse('Missing, malformed, expired or invalid bearer token.') };

export const GET_LINES = readRoute({
  path: RELIABILITY_LINES_PATH, operationId: 'reliabilityLines', tag: 'reliability', summary: 'Power lines ranked by incidents seen by indicators in a period, with trend (admin: organisation; user: lines with a device in the user\'s groups)',
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
    ...BAD_QUERY, ...AUTH,
  },
});

export const GET_SECTIONS = readRoute({
  path: RELIABILITY_SECTIONS_PATH, operationId: 'reliabilitySections', tag: 'reliability', summary: 'Faulted sections ranked by incidents in a period, of one power line or of every visible one, with the last incidents',
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
    ...BAD_QUERY, ...AUTH,
    404: errorResponse('No such power line, or it is outside the caller\'s reach (the same answer).'),
  },
});

const dayParam = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: day });

export const GET_EXPORT = readRoute({
  path: RELIABILITY_EXPORT_PATH, operationId: 'reliabilityExport', tag: 'reliability',
  summary: 'One row per incident of the caller\'s reach (those of GET /api/incidents), as CSV or Parquet, streamed',
  description: `Columns, in order (types and rules: docs/reliability-export.md): ${EXPORT_COLUMNS.map((c) => c.name).join(', ')}. `
    + 'An organisation that masks fault details reads every kind as `fault`.',
  parameters: [
    { name: 'format', in: 'query', required: false, description: 'csv (default) or parquet', schema: { type: 'string', enum: [...EXPORT_FORMATS] } },
    dayParam('from', 'First day (YYYYMMDD, the caller\'s time zone) of the first trip; none: from the first incident'),
    dayParam('to', 'Last day (YYYYMMDD, inclusive); none: up to now'),
  ],
  responses: {
    200: {
      description: 'The file (Content-Disposition: attachment)',
      content: { 'text/csv': { schema: { type: 'string' } }, 'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } } },
    },
    400: errorResponse('A query parameter is unknown, repeated or invalid (format, a day, from after to); the message names it.'),
    ...AUTH,
  },
});

export const RELIABILITY_READS: readonly ReadRoute[] = [GET_EXPORT, GET_LINES, GET_SECTIONS];
