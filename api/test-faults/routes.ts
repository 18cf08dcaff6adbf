// Test faults (admin; docs/decisions.md#test-faults): POST /api/test-faults starts one for a device of the
// caller's organisation, GET /api/test-faults/{id} and GET /api/test-faults?imei= show its timeline. The
// synthetic check-ins go to the queue this process is configured with; a process without one answers 503.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { requireAdmin } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { callerEmail, jsonBody, wholeNumberId } from '../request.js';
import { getRoute } from '../read-route.js';
import { writeRoute } from '../write-endpoint.js';
import { CLEAR_AFTER_BOUNDS, GET_TEST_FAULT, GET_TEST_FAULT_TARGETS, GET_TEST_FAULTS, START_TEST_FAULT, TEST_FAULT_TARGETS_PATH, TEST_FAULTS_PATH } from './endpoints.js';
import { isImei } from '../../domain/validate-message.js';
import { listTestFaults, readTestFault, startTestFault, testFaultTargets, TestFaultError, type TestFaultReach } from '../../commissioning/test-faults.js';
import { reachCondition, type ReachCaller } from '../device-records/reach.js';
import type { TestFaultQueue } from '../../commissioning/queue.js';

export { CLEAR_AFTER_BOUNDS, TEST_FAULT_TARGETS_PATH, TEST_FAULTS_PATH };

export interface TestFaultRouteOptions {
  pool: pg.Pool;
  auth: MiddlewareHandler<AuthEnv>;
  /** null: this process has no queue to send to (POST answers 503). */
  queue: TestFaultQueue | null;
  /** TEST_FAULT_CLEAR_SECONDS, in ms: the default time until the clearing check-in. */
  clearAfterMs: number;
}

function parseBody(raw: unknown, defaultMs: number): { imei: string; clearAfterMs: number } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('INVALID_BODY', 'The body must be a JSON object with "imei".', { field: 'body' });
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o)) if (key !== 'imei' && key !== 'clearAfterSeconds') throw new ApiError('INVALID_BODY', `Field "${key}" is not accepted; only "imei" and "clearAfterSeconds" are.`, { field: key });
  if (!isImei(o.imei)) throw new ApiError('INVALID_BODY', '"imei" must be the device\'s IMEI: a string of 14 to 16 digits.', { field: 'imei' });
  const s = o.clearAfterSeconds;
  if (s !== undefined && (typeof s !== 'number' || !Number.isInteger(s) || s < CLEAR_AFTER_BOUNDS.min || s > CLEAR_AFTER_BOUNDS.max)) {
    throw new ApiError('INVALID_BODY', `"clearAfterSeconds" must be a whole number of seconds from ${CLEAR_AFTER_BOUNDS.min} to ${CLEAR_AFTER_BOUNDS.max}.`, { field: 'clearAfterSeconds' });
  }
  return { imei: o.imei, clearAfterMs: s === undefined ? defaultMs : s * 1000 };
}

/** Test faults of devices in the caller's reach, started since the device joined the organisation. */
const inReach = (caller: ReachCaller): TestFaultReach => (p) => reachCondition(caller, p, 'd', 't.started_at');

export function testFaultRoutes({ pool, auth, queue, clearAfterMs }: TestFaultRouteOptions): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  writeRoute(
    app, START_TEST_FAULT, [auth, requireAdmin],
    async (c) => {
      const body = parseBody(await jsonBody(c), clearAfterMs);
      if (!queue) throw new ApiError('UNAVAILABLE', 'This API process has no device queue to send a test fault to (SQS_QUEUE_URL or INBOX_DIR); start it where the bridge\'s queue is configured.');
      const caller = c.get('caller');
      // Who started it, as the timeline shows it: the user's email (their id if the account is gone meanwhile).
      const startedBy = await callerEmail(pool, caller);
      try {
        const { id } = await startTestFault(pool, queue, { imei: body.imei, organizationId: caller.org, startedBy, clearAfterMs: body.clearAfterMs });
        return c.json(await readTestFault(pool, caller.org, id, inReach(caller)), 202, { location: `${TEST_FAULTS_PATH}/${id}` });
      } catch (err) {
        if (err instanceof TestFaultError) throw new ApiError(err.code, err.message, { imei: body.imei });
        throw err;
      }
    },
  );
  getRoute(app, GET_TEST_FAULT_TARGETS, [auth, requireAdmin], async (c) => c.json({ data: await testFaultTargets(pool, c.get('caller').org) }));
  getRoute(app, GET_TEST_FAULT, [auth, requireAdmin], async (c) => {
    const caller = c.get('caller');
    const view = await readTestFault(pool, caller.org, wholeNumberId(c.req.param('id'), 'a test fault'), inReach(caller));
    if (!view) throw new ApiError('NOT_FOUND', `Test fault ${c.req.param('id')} was not found.`);
    return c.json(view);
  });
  getRoute(app, GET_TEST_FAULTS, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), ['imei', 'limit']);
    const imei = c.req.query('imei') ?? null;
    if (imei !== null && !isImei(imei)) throw badParameter('imei', 'must be 14 to 16 digits');
    const limitText = c.req.query('limit') ?? '20';
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) throw badParameter('limit', 'must be a whole number from 1 to 100');
    return c.json({ data: await listTestFaults(pool, c.get('caller').org, imei, Number(limitText), inReach(c.get('caller'))) });
  });
  return app;
}
