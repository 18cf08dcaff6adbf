// Integration keys (issue 41 point 7; docs/decisions.md#integration-keys-and-the-mask): an organisation admin
// creates, lists, rotates and revokes the machine credentials its SCADA integrations read their outputs with.
// The key is in the answer of create and rotate only (with Cache-Control: no-store); the list shows who made
// each, when it was last used, and whether it is revoked. Admins of the caller's own organisation only.
// A key reads the fault class unmasked, so in an organisation with MaskFaultDetails its admins list and revoke
// but do not create or rotate: the operator does (`faultline integration-keys`, cli/commands/integration-keys.ts).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { keyNameProblem, type IntegrationKeyStore } from '../auth/integration-keys.js';
import { requireAdmin } from '../auth/require-auth.js';
import { acceptOnly, ApiError } from '../errors.js';
import { callerEmail, jsonObjectBody } from '../request.js';
import { getRoute } from '../read-route.js';
import { writeRoute } from '../write-endpoint.js';
import { CREATE_KEY, INTEGRATION_KEYS_PATH, LIST_KEYS, REVOKE_KEY, ROTATE_KEY } from './endpoints.js';

export { INTEGRATION_KEYS_PATH };
const NO_STORE = { 'cache-control': 'no-store' };

export interface IntegrationKeyRouteOptions {
  keys: IntegrationKeyStore;
  pool: pg.Pool;
  auth: MiddlewareHandler<AuthEnv>;
}

function nameOf(body: Record<string, unknown>): string {
  const extra = Object.keys(body).filter((k) => k !== 'name');
  if (extra.length) throw new ApiError('INVALID_BODY', `The body takes only "name"; not ${extra.map((k) => `"${k}"`).join(', ')}.`, { field: extra[0]! });
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  const problem = keyNameProblem(name);
  if (problem) throw new ApiError('INVALID_BODY', `The field "name" ${problem}.`, { field: 'name' });
  return name;
}

/** A masked organisation's admin would read the class through a key they mint: the operator issues its keys. */
function refuseIfMasked(caller: Caller): void {
  if (!caller.maskFaultDetails) return;
  throw new ApiError('FORBIDDEN', 'This organisation masks fault details (MaskFaultDetails), and an integration key reads them unmasked: '
    + 'its admins list and revoke keys but do not create or rotate them. Ask the operator to issue the key with '
    + '`faultline integration-keys create <organisation> <name>` (or `rotate <organisation> <id>`).', { reason: 'masked-organisation' });
}

const idOf = (text: string): string => {
  if (!/^[0-9a-f]{16}$/.test(text)) throw new ApiError('BAD_PARAMETER', 'Path parameter "id" must be a key id (16 hex digits, as listed).', { parameter: 'id' });
  return text;
};

export function integrationKeyRoutes({ keys, pool, auth }: IntegrationKeyRouteOptions): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, LIST_KEYS, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), []);
    return c.json({ data: await keys.list(c.get('caller').org) });
  });
  writeRoute(app, CREATE_KEY, [auth, requireAdmin], async (c) => {
    const caller = c.get('caller');
    refuseIfMasked(caller);
    const name = nameOf(await jsonObjectBody(c));
    const { info, key } = await keys.create(caller.org, name, await callerEmail(pool, caller));
    return c.json({ ...info, key }, 201, NO_STORE);
  });
  writeRoute(app, ROTATE_KEY, [auth, requireAdmin], async (c) => {
    refuseIfMasked(c.get('caller'));
    const rotated = await keys.rotate(c.get('caller').org, idOf(c.req.param('id')));
    if (!rotated) throw new ApiError('NOT_FOUND', 'No key of this organisation with this id that is not revoked.', { id: c.req.param('id') });
    return c.json({ ...rotated.info, key: rotated.key }, 200, NO_STORE);
  });
  writeRoute(app, REVOKE_KEY, [auth, requireAdmin], async (c) => {
    const revoked = await keys.revoke(c.get('caller').org, idOf(c.req.param('id')));
    if (!revoked) throw new ApiError('NOT_FOUND', 'No key of this organisation with this id.', { id: c.req.param('id') });
    return c.json(revoked);
  });
  return app;
}
