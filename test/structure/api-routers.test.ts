// The routers of api/ (docs/decisions.md#a-request-kit-and-write-endpoints): a router registers routes and reads
// its request with api/request.ts; it holds no SQL (the capability's store does), and the mask policy that wraps
// every router imports none of them (a route says it is an integration output with a route option). Each rule is
// shown failing on a fixture.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importsOf, isRouter, read, sqlIn, tsFiles } from './api-routers.js';

const test = suite('api routers');
const root = new URL('../..', import.meta.url).pathname;
const routers = tsFiles(root, 'api').filter((f) => isRouter(read(root, f)));

test('the routers are found: every capability\'s routes file, the alarm actions and the login', () => {
  for (const f of ['api/alarms/routes.ts', 'api/alarms/actions.ts', 'api/board/routes.ts', 'api/incidents/routes.ts', 'api/incidents/cause.ts', 'api/auth/login-route.ts', 'api/test-faults/routes.ts']) {
    assert.ok(routers.includes(f), `${f} is a router`);
  }
  for (const f of ['api/alarms/store.ts', 'api/request.ts', 'api/fault-mask-policy.ts', 'api/auth/require-auth.ts']) assert.not.ok(routers.includes(f), `${f} is not a router`);
  // A file that registers only endpoint entries is a router too (api/read-route.ts, api/write-endpoint.ts).
  assert.ok(isRouter('getRoute(app, GET_BOARD, [auth], async (c) => c.json({}));'));
  assert.ok(isRouter('writeRoute(app, DISMISS, [auth], async (c) => c.json({}));'));
  assert.ok(routers.includes('api/portal-settings.ts'), 'a router that registers only a read route');
});

test('no router holds SQL: the capability\'s store does', () => {
  const holding = routers.map((f) => ({ f, sql: sqlIn(read(root, f)) })).filter((r) => r.sql.length > 0);
  assert.equal(holding, [], `routers with SQL: ${holding.map((r) => `${r.f} (${r.sql.join(' | ')})`).join('; ')}`);
});

test('the rule fails on a router that reads its rows itself (fixture), and on a tagged template', () => {
  const fixture = read(root, 'test/fixtures/structure/router-with-sql.ts.txt');
  assert.ok(isRouter(fixture));
  assert.is(sqlIn(fixture).length, 2);
  assert.is(sqlIn('const rows = await sql`select 1`;').length, 1);
  assert.is(sqlIn('throw new ApiError(\'CONFLICT\', \'Update the rule first.\');').length, 0, 'a sentence is not SQL');
  assert.is(sqlIn('// select 1 from alarms, in a comment').length, 0);
});

test('api/fault-mask-policy.ts imports no router (the exemption is a route option)', () => {
  const imported = importsOf('api/fault-mask-policy.ts', read(root, 'api/fault-mask-policy.ts'));
  assert.ok(imported.length > 0);
  assert.equal(imported.filter((f) => routers.includes(f)), []);
  // The check sees an import of a router, as the policy had five before.
  assert.equal(importsOf('api/fault-mask-policy.ts', "import { POINT_MAP_PATH } from './dnp3/point-map.js';").filter((f) => routers.includes(f)), ['api/dnp3/point-map.ts']);
});

test.run();
