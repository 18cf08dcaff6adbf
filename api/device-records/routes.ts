// Mounts the read endpoints: GET only, bearer token required, query validated into a typed ListQuery
// before the handler runs (Hono's validator), the body answered as JSON. For a caller whose organisation
// masks fault details, this is the one place the mask is applied (domain/fault-masking.ts): a query that
// would reveal the fault class is refused, and every answer passes through the mask.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { validator } from 'hono/validator';
import { codeText } from '../../domain/code-strings.js';
import { maskedQueryProblem, maskFaultClass } from '../../domain/fault-masking.js';
import type { AuthEnv } from '../auth/caller.js';
import { badParameter } from '../errors.js';
import type { ReadDeps } from './endpoint.js';
import { READ_ENDPOINTS } from './endpoints.js';
import { parseListQuery } from './list-params.js';

export function deviceRecordRoutes({ deps, auth }: { deps: ReadDeps; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const unmaskedNames = { faultTypeNone: codeText(deps.codeStrings.FaultType, 0)! };
  for (const endpoint of READ_ENDPOINTS) {
    app.get(
      endpoint.path,
      auth,
      validator('query', (value) => parseListQuery(value, endpoint.params)),
      async (c) => {
        const caller = c.get('caller');
        const query = c.req.valid('query');
        if (!caller.maskFaultDetails) return c.json(await endpoint.run(deps, caller, query, c.req.param('imei')));
        const problem = maskedQueryProblem(query);
        if (problem) throw badParameter(problem.parameter, problem.message, { field: problem.field });
        return c.json(maskFaultClass(await endpoint.run(deps, caller, query, c.req.param('imei')), unmaskedNames));
      },
    );
  }
  return app;
}
