// The README's "HTTP API" table names every route the app serves (method and path), and nothing it does not
// serve. Enumerated from the app itself (as test/api/openapi.test.ts builds it, without a database), so a route
// added later needs a row. The portal's pages (GET *) are not endpoints; `/device-records/...` in a cell stands
// for every path under it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { openApiPath } from '../../api/openapi/document.js';

const root = new URL('../..', import.meta.url).pathname;
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }); // never connected
const app = createApp({ readiness: {}, pool, jwtSecret: new Uint8Array(32), portalDir: null });
test.after(() => pool.end());

/** `METHOD /path` of every route served (path parameters as `{name}`). */
const served = () => [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${openApiPath(r.path)}`))];

/** What a cell of the table names: `GET /api/x[?a&b]`, `GET /soap?wsdl`; a path ending in `/...` is a prefix. */
export function documentedRoutes(readme: string): { exact: Set<string>; prefixes: string[] } {
  const start = readme.indexOf('\n## HTTP API\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  const cells = section.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split(/(?<!\\)\|/)[1]!);
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const cell of cells) {
    for (const m of cell.matchAll(/`(GET|POST|PUT|DELETE|PATCH) ([^`\s[?]+)[^`]*`/g)) {
      if (m[2]!.endsWith('/...')) prefixes.push(`${m[1]} ${m[2]!.slice(0, -3)}`);
      else exact.add(`${m[1]} ${m[2]}`);
    }
    for (const m of cell.matchAll(/under `(\/[^`]+)\/\.\.\.`/g)) prefixes.push(`GET ${m[1]}/`);
  }
  return { exact, prefixes };
}

const covered = (route: string, d: ReturnType<typeof documentedRoutes>) => d.exact.has(route) || d.prefixes.some((p) => route.startsWith(p));

test('the reader finds rows, prefixes and query forms (the test can fail)', () => {
  const d = documentedRoutes('x\n## HTTP API\n| `GET /api/a[?x&y]`, `POST /api/a/{id}/go` | a |\n| `GET /r/...` (also under `/api/r/...`) | b |\n## Next\n');
  assert.equal([...d.exact], ['GET /api/a', 'POST /api/a/{id}/go']);
  assert.ok(covered('GET /api/r/x', d) && covered('GET /r/y/{imei}', d));
  assert.not.ok(covered('DELETE /api/a', d));
  assert.ok(served().length > 30, `routes: ${served().length}`);
});

test('every route the app serves has a row in the README\'s HTTP API table', () => {
  const d = documentedRoutes(readFileSync(join(root, 'README.md'), 'utf8'));
  assert.equal(served().filter((r) => !covered(r, d)), []);
});

test('every endpoint the README\'s HTTP API table names is served', () => {
  const d = documentedRoutes(readFileSync(join(root, 'README.md'), 'utf8'));
  const routes = served();
  assert.equal([...d.exact].filter((e) => !routes.includes(e)), []);
  assert.equal(d.prefixes.filter((p) => !routes.some((r) => r.startsWith(p))), []);
});

test.run();
