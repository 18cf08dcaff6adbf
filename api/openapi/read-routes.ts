// Every read route table of the API that is not a page of device records (api/read-route.ts), in the order
// the document lists them: the document describes these, and test/structure/openapi-paths.test.ts proves every
// GET the app registers is an entry of one table or another.
import { ALARM_READS } from '../alarms/endpoints.js';
import { GET_BOARD } from '../board/endpoints.js';
import { GET_DEENERGISED_SECTIONS } from '../deenergised-sections/endpoints.js';
import type { ReadRoute } from '../read-route.js';

export const READ_ROUTES: readonly ReadRoute[] = [
  ...ALARM_READS,
  GET_BOARD,
  GET_DEENERGISED_SECTIONS,
];
