// The board's read endpoint (routes.ts registers it from this entry; the OpenAPI document describes it from the
// same one, api/read-route.ts). The board's actions (feeder acknowledgement, shelve, unshelve) are write
// endpoints: api/alarms/endpoints.ts.
import { ALARM_CLASSES } from '../../domain/alarm-kinds.js';
import { PRIORITIES } from '../../domain/board.js';
import { AUTH_401, errorResponse, json } from '../openapi-kit.js';
import { readRoute } from '../read-route.js';

export const BOARD_PATH = '/api/board';

const time = { type: ['string', 'null'], format: 'date-time' };
const classProp = { type: 'string', enum: ALARM_CLASSES };

const common = {
  type: { type: 'string', enum: ['incident', 'alarm'] }, id: { type: 'integer' }, priority: { type: 'string', enum: PRIORITIES },
  at: { type: 'integer', description: 'Epoch ms it began on the service clock (opened, raised): the order within a priority.' },
  powerLineId: { type: ['string', 'null'] }, powerLineName: { type: ['string', 'null'] },
  kind: { type: 'string', description: 'An incident\'s kind or an alarm\'s kind; `fault` for every class under MaskFaultDetails.' },
};
const ITEM = {
  type: 'object',
  description: 'An active incident (status, sections, openedAt, firstTripAt, locatedAt, restoredAt) or an alarm that is not normal (label, class, state, device, times).',
  properties: {
    ...common, status: { type: 'string', enum: ['open', 'located', 'restored'] }, sections: { type: 'array', items: { type: 'object' } }, openedAt: time, firstTripAt: time, locatedAt: time, restoredAt: time,
    label: { type: ['string', 'null'] }, class: classProp, state: { type: 'string', enum: ['unacknowledged-active', 'acknowledged-active', 'unacknowledged-cleared', 'normal', 'shelved'] },
    IMEINumber: { type: 'string' }, Real_Name: { type: ['string', 'null'] }, codeText: { type: ['string', 'null'] }, raisedAt: time, acknowledgedAt: time,
    acknowledgedBy: { type: ['string', 'null'] }, clearedAt: time, shelvable: { type: 'boolean' },
    shelveMaxMinutes: { type: ['integer', 'null'], description: 'The longest this alarm may be shelved for (a chattering operations alarm: ALARM_CHATTER_SHELVE_MAX_MINUTES); null: not shelvable.' },
    episodes: { type: 'integer', minimum: 1, description: 'A chattering alarm is one row: its raise/clear episodes (1: not chattering); raisedAt is the first raise, lastRaisedAt the last.' },
    lastRaisedAt: time,
    firstEpisodeAt: { ...time, description: 'A chattering alarm: the device time of its first episode (the raising check-in); null when not chattering.' },
    lastEpisodeAt: { ...time, description: 'A chattering alarm: the device time of its last episode; null when not chattering.' },
    summary: { type: ['string', 'null'], description: 'A recurring-section alarm: how many incidents within how many days in which section; a deenergised-section alarm: the section and its silent indicators; null for other kinds.' },
  },
  required: ['type', 'id', 'priority', 'at', 'kind'],
};
const BOARD = {
  type: 'object',
  properties: {
    counts: { type: 'object', properties: { incidents: { type: 'integer' }, unacknowledged: { type: 'integer' }, critical: { type: 'integer' }, shelved: { type: 'integer' } } },
    items: { type: 'array', items: ITEM, description: 'Active incidents and unacknowledged alarms (active, or cleared and not acknowledged): by priority, incidents first, newest first.' },
    acknowledged: { type: 'array', items: ITEM, description: 'Alarms acknowledged whose condition still holds, in the same order.' },
    shelved: { type: 'array', items: { type: 'object', properties: { IMEINumber: { type: 'string' }, Real_Name: { type: ['string', 'null'] }, kind: { type: 'string' }, label: { type: 'string' }, until: time, shelvedBy: { type: 'string' }, shelvedAt: time, alarmId: { type: ['integer', 'null'] } } } },
    truncated: { type: 'boolean', description: 'More than 1,000 alarms are not normal: the newest 1,000 are read.' },
  },
  required: ['counts', 'items', 'acknowledged', 'shelved', 'truncated'],
};

export const GET_BOARD = readRoute({
  path: BOARD_PATH, operationId: 'board', tag: 'board', summary: 'The control-room board of the caller\'s reach; send If-None-Match to poll (304 when unchanged)',
  // An empty `class=` is every class, as no `class` is (a cleared filter in a URL); a body's empty class is a 400 (api/alarms/actions.ts).
  parameters: [{ name: 'class', in: 'query', required: false, description: 'Only alarms of this class (incidents are operations); empty or absent: every class.', schema: { type: 'string', enum: ['', ...ALARM_CLASSES] } }],
  responses: { 200: { description: 'The board, with an ETag', ...json(BOARD) }, 304: { description: 'Unchanged since the ETag sent' }, 400: errorResponse('A query parameter is invalid or not accepted.'), ...AUTH_401 },
});
