// No oracle through the mask (issue 41 finding 2; docs/decisions.md#masking): a route built for this test
// hashes its UNMASKED body into an ETag and honours If-None-Match itself, as a careless route of the future
// might. A masked caller who hashes each candidate body (one per fault class) and sends it as If-None-Match
// must never get the 304 that would name the class: the policy (api/fault-mask-policy.ts) takes the
// caller's conditions off the request and judges If-None-Match only against the masked answer's ETag. The
// route sits behind the app's own `auth` (api/app.ts createAuth), on a running server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { createApp, createAuth } from '../../api/app.js';
import type { AuthEnv } from '../../api/auth/caller.js';
import { matchesEtag } from '../../api/request.js';
import { renderError } from '../../api/errors.js';
import { listen, type Listening } from '../../api/server.js';
import { FAULT_EVENT_TYPES } from '../../domain/fault-events.js';
import { JWT_SECRET, NOW, seededApi, type SeededApi, type UserName } from '../integration/api/seeded-api.js';
import { reportTally } from '../helpers/tally.js';

let api: SeededApi;
let server: Listening;
let tried = 0;
let refused = 0;

const PROBE_PATH = '/api/test-only/latest-trip';
/** What the route knows and a masked organisation must not learn: the class of its latest trip. */
const HIDDEN_CLASS: Record<string, string> = { north: 'SOTF', south: 'PFault' };
const bodyFor = (eventType: string) => JSON.stringify({ device: 'Pole 7', EventType: eventType });
const etagOf = (body: string) => `"${createHash('sha1').update(body).digest('base64url')}"`;

test.before(async () => {
  api = await seededApi({ feed: false, app: { accountCacheMs: 0 } });
  await api.db.pool.query('update organizations set "MaskFaultDetails" = ("OrganizationID" = \'north\')');
  const routes = new Hono<AuthEnv>();
  // The careless route: its ETag hashes the unmasked body, and it answers If-None-Match and If-Match itself.
  routes.get(PROBE_PATH, createAuth({ pool: api.db.pool, jwtSecret: JWT_SECRET, accountCacheMs: 0, now: () => NOW }), (c) => {
    const body = bodyFor(HIDDEN_CLASS[c.get('caller').org]!);
    const etag = etagOf(body);
    c.header('etag', etag);
    if (matchesEtag(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    const ifMatch = c.req.header('if-match');
    if (ifMatch && !matchesEtag(ifMatch, etag)) return c.body(null, 412);
    return c.body(body, 200, { 'content-type': 'application/json' });
  });
  const probe = new Hono();
  probe.route('/', routes);
  probe.route('/', createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0, now: () => NOW }));
  probe.onError(renderError);
  server = await listen(probe, { port: 0, hostname: '127.0.0.1' });
});
test.after(async () => {
  await server?.close();
  await api?.close();
  reportTally('mask-oracle', { attacksTried: tried, attacksRefused: refused });
});

const get = (user: UserName, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${server.port}${PROBE_PATH}`, { headers: { authorization: `Bearer ${api.tokens[user]}`, ...headers } });

test('unmasked, the route answers a right guess 304: the oracle the policy must close is real', async () => {
  const res = await get('southAdmin', { 'if-none-match': etagOf(bodyFor('PFault')) });
  assert.is(res.status, 304);
  assert.is((await get('southAdmin', { 'if-none-match': etagOf(bodyFor('TFault')) })).status, 200);
});

test('masked: every guess of the unmasked body, the right one included, gets 200 and the masked body', async () => {
  for (const user of ['northAdmin', 'northEast'] as const) {
    for (const guess of FAULT_EVENT_TYPES) {
      const unmaskedEtag = etagOf(bodyFor(guess));
      for (const condition of [unmaskedEtag, `W/${unmaskedEtag}`, `"x", ${unmaskedEtag}`]) {
        tried++;
        const res = await get(user, { 'if-none-match': condition });
        assert.is(res.status, 200, `${user} guessing ${guess} with If-None-Match ${condition}`);
        assert.equal(await res.json(), { device: 'Pole 7', EventType: 'Fault' }, `${user} ${guess}`);
        assert.is.not(res.headers.get('etag'), unmaskedEtag, 'the ETag is not the unmasked body\'s');
        refused++;
      }
    }
  }
});

test('masked: the masked answer\'s own ETag still gets 304 (conditional polls keep working)', async () => {
  const first = await get('northAdmin');
  const etag = first.headers.get('etag')!;
  assert.is(etag, etagOf(bodyFor('Fault')), 'the ETag names the masked bytes');
  assert.is((await get('northAdmin', { 'if-none-match': etag })).status, 304);
  assert.is((await get('northAdmin', { 'if-none-match': '*' })).status, 304, '* matches the masked answer, and says nothing of the class');
});

test('masked: If-Match never reaches the route either (its 412 for a wrong guess would name the class too)', async () => {
  for (const guess of FAULT_EVENT_TYPES) {
    tried++;
    const res = await get('northAdmin', { 'if-match': etagOf(bodyFor(guess)) });
    assert.is(res.status, 200, `If-Match guessing ${guess}`);
    assert.equal(await res.json(), { device: 'Pole 7', EventType: 'Fault' });
    refused++;
  }
  assert.is((await get('southAdmin', { 'if-match': etagOf(bodyFor('TFault')) })).status, 412, 'unmasked, the route judges it');
});

test.run();
