// The read endpoints' dependencies as the app builds them (api/app.ts), for a suite that calls an endpoint's `run`
// directly: nothing cached across calls but the fleet answers' one second, so each call reads what is stored now.
import type pg from 'pg';
import { totalsCache, type ReadDeps } from '../../api/device-records/endpoint.js';
import { shortCache } from '../../api/device-records/short-cache.js';
import { UnchangedAnswers } from '../../api/device-records/unchanged-answers.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';

export const readDeps = (pool: pg.Pool, now: () => number): ReadDeps => ({
  pool, codeStrings: loadCodeStrings(), offlineAfterHours: 26, now, shortCache: shortCache({ now }),
  totals: totalsCache({ ttlMs: 0, now }), walks: shortCache({ ttlMs: 0, now }), reachSizes: shortCache({ ttlMs: 0, now }), unchanged: new UnchangedAnswers(pool, now),
});
