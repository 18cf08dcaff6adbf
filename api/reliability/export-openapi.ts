// The OpenAPI path of the reliability export (export.ts), merged into the document by api/openapi/document.ts.
import { EXPORT_COLUMNS } from './export-columns.js';
import { EXPORT_FORMATS, RELIABILITY_EXPORT_PATH } from './export.js';
import { errorResponse } from '../openapi-kit.js';

type Obj = Record<string, unknown>;
const day = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'string', pattern: '^\\d{8}$' } });

export const RELIABILITY_EXPORT_OPENAPI: Record<string, Obj> = {
  [RELIABILITY_EXPORT_PATH]: {
    get: {
      operationId: 'reliabilityExport', tags: ['reliability'],
      summary: 'One row per incident of the caller\'s reach (those of GET /api/incidents), as CSV or Parquet, streamed',
      description: `Columns, in order (types and rules: docs/reliability-export.md): ${EXPORT_COLUMNS.map((c) => c.name).join(', ')}. `
        + 'An organisation that masks fault details reads every kind as `fault`.',
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: 'format', in: 'query', required: false, description: 'csv (default) or parquet', schema: { type: 'string', enum: [...EXPORT_FORMATS] } },
        day('from', 'First day (YYYYMMDD, the caller\'s time zone) of the first trip; none: from the first incident'),
        day('to', 'Last day (YYYYMMDD, inclusive); none: up to now'),
      ],
      responses: {
        200: {
          description: 'The file (Content-Disposition: attachment)',
          content: { 'text/csv': { schema: { type: 'string' } }, 'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } } },
        },
        400: errorResponse('A query parameter is unknown, repeated or invalid (format, a day, from after to); the message names it.'),
        401: errorResponse('Missing, malformed, expired or invalid bearer token.'),
      },
    },
  },
};
